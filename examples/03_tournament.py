"""A small tournament: run it on two worker processes, resume it, score it, export it.

Shows: a ``TournamentConfig`` (the same fields as the YAML file), the process-pool
executor, resuming from the SQLite results file (nothing runs twice), leaderboards
with bootstrap intervals and neighbour tests, a truncated mean, pandas tables, CSV and
Parquet export and the self-contained HTML report.

    python examples/03_tournament.py
"""

import tempfile
from pathlib import Path

from accord.tournament import (
    Results,
    TournamentConfig,
    agent_vs_agent,
    leaderboard,
    run_tournament,
    write_report,
)

config = TournamentConfig(
    agents=["boulware", "conceder", "linear", "titfortat"],  # registry names or import paths
    scenarios=["lunch", "job_offer", "builtin:tiny"],
    reps=2,
    rounds=40,
    seed=7,
)

with tempfile.TemporaryDirectory() as tmp:
    out = Path(tmp) / "demo.sqlite"
    run = run_tournament(config, out, executor="processes", workers=2)
    print(f"ran {run.ran} of {run.total} sessions")
    again = run_tournament(config, out, executor="processes", workers=2)
    print(f"resumed: {again.ran} sessions left to run")

    results = Results(out)
    parties = results.parties  # one row per agent per session, with its scores
    print(
        f"tables: {len(results.sessions)} sessions, {len(parties)} party rows, "
        f"{len(results.events)} events"
    )
    board = leaderboard(parties, "utility", seed=config.seed)
    for row in board.itertuples():
        print(
            f"  {row.rank}. {row.agent:10s} {row.score:.3f} "
            f"[{row.ci_low:.3f}, {row.ci_high:.3f}] n={row.n} p(vs next)={row.p_next:.2g}"
        )
    trimmed = leaderboard(parties, "utility", seed=config.seed, trim=0.1)
    print(f"winner by 10%-truncated mean: {trimmed.agent[0]}")
    print(f"agent-vs-agent table: {agent_vs_agent(parties).shape}")

    written = results.export(Path(tmp) / "csv", "csv") + results.export(Path(tmp) / "pq", "parquet")
    print("exported: " + ", ".join(sorted({p.name for p in written})))
    results.close()
    html = write_report(out)
    print(f"report: {html.name}, {html.stat().st_size // 1024} kB")
