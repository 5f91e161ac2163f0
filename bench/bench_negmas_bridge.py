"""The NegMAS bridge's cost: overhead per action, and a tournament in Accord vs NegMAS.

1. **Overhead per negotiator action.** The same trivial strategy (offer the best
   outcome, reject everything) as a native Accord agent and as a NegMAS negotiator
   through the bridge, each against Accord's Hardliner for 1000 rounds on ANAC 2013
   DefensiveCharms; the difference in time per action is the bridge's own cost. Also
   NegMAS's Boulware through the bridge against Accord's Boulware, both on that session.
2. **The tournament** ``examples/negmas_tournament.yaml`` (ported ANAC agents, five ANAC
   scenarios, 100 rounds) through ``accord tournament`` (serial executor, default rules:
   in-process, no time limit) and through NegMAS's ``cartesian_tournament`` (serial,
   ``njobs=-1``) with the same agents, the same utilities (converted by the bridge), the
   same schedule (every ordered pair, no self-play, both profile rotations) and no
   statistics or plots. Interleaved per scenario (the side that starts alternates) so that
   both sides see the same load; each side is one command timed by its wall clock
   (imports included), the load average is recorded before and after each, and the run
   prints per-scenario and total ratios, Accord's leaderboard and how the two sides'
   agreements and mean utilities compare. Files go to ``bench/runs/negmas-tournament``;
   a second run resumes the scenarios not yet done; ``--part summarize`` reprints.

Run from the repository root with the extra installed:

    .venv/bin/python bench/bench_negmas_bridge.py            # both parts
    .venv/bin/python bench/bench_negmas_bridge.py --part overhead
    .venv/bin/python bench/bench_negmas_bridge.py --part tournament   # about an hour
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path
from typing import Any

import yaml

from benchlib import genius_folder

REPO = Path(__file__).resolve().parents[1]
YAML = REPO / "examples" / "negmas_tournament.yaml"
GENIUS = genius_folder("anac2013_DefensiveCharms").parent


def overhead(rounds: int = 1000, repeat: int = 5) -> None:
    from negmas.gb.common import ResponseType
    from negmas.sao import BoulwareTBNegotiator, SAONegotiator

    from accord.agents import Boulware, Hardliner
    from accord.bridges.negmas import NegmasNegotiator
    from accord.core import Deadline, Negotiator, Response, Session
    from accord.formats import load_scenario

    class Best(Negotiator):
        def on_start(self, view: Any) -> None:
            self.best = view.best_outcome

        def propose(self, view: Any) -> Any:
            return self.best

        def respond(self, view: Any, offer: Any) -> Response:
            return Response.REJECT

    class NegmasBest(SAONegotiator):
        def on_negotiation_start(self, state: Any) -> None:
            self.top = self.ufun.best()

        def propose(self, state: Any, dest: str | None = None) -> Any:
            return self.top

        def respond(self, state: Any, source: str | None = None) -> ResponseType:
            return ResponseType.REJECT_OFFER

    scenario = load_scenario(genius_folder("anac2013_DefensiveCharms"))

    def per_action(make: Any) -> float:
        best = float("inf")
        for _ in range(repeat):
            session = Session(
                scenario.space, [make(), Hardliner()], scenario.utilities, Deadline(rounds=rounds)
            )
            start = time.perf_counter()
            result = session.run()
            best = min(best, (time.perf_counter() - start) / result.steps)
        return best

    native = per_action(Best)
    bridged = per_action(lambda: NegmasNegotiator(NegmasBest(), seed_globals=False))
    boulware = per_action(Boulware)
    negmas_boulware = per_action(lambda: NegmasNegotiator(BoulwareTBNegotiator()))
    print(f"per action (session of {rounds} rounds vs Hardliner, mean over both parties' actions):")
    print(
        f"  trivial strategy: native {native * 1e6:8.1f} us   through the bridge {bridged * 1e6:8.1f} us"
    )
    print(f"  bridge overhead per action of the bridged party: {(bridged - native) * 2e6:8.1f} us")
    print(
        f"  Boulware: Accord {boulware * 1e6:8.1f} us   NegMAS BoulwareTB via bridge {negmas_boulware * 1e6:8.1f} us"
    )


def _negmas_scenario(folder: Path) -> Any:
    """One GENIUS folder as a NegMAS scenario, utilities converted by the bridge."""
    from negmas.inout import Scenario as NegmasScenario

    from accord.bridges.negmas import outcome_space, utility
    from accord.bridges.negmas.convert import Clock
    from accord.formats import load_scenario

    s = load_scenario(folder)
    space = outcome_space(s.space, name=folder.name)
    ufuns = []
    for u in s.utilities:
        nu = utility(u, space, Clock())
        if u.discount is not None:
            nu.factor = "relative_time"  # NegMAS's own discounting rule
        ufuns.append(nu)
    return NegmasScenario(outcome_space=space, ufuns=tuple(ufuns))


def negmas_side(folder: Path, out: Path, config_path: Path = YAML) -> None:
    """NegMAS's ``cartesian_tournament`` on one scenario (run as its own command).

    Writes ``out``.details.csv, ``out``.scores.csv and ``out``.json (inner seconds).
    """
    from negmas.tournaments.neg import cartesian_tournament

    from accord.agents.registry import resolve_agent

    config = yaml.safe_load(config_path.read_text())
    classes, names = [], []
    for entry in config["agents"]:
        name, _, path = entry.rpartition("=")
        classes.append(resolve_agent(path).negmas_class)  # type: ignore[attr-defined]
        names.append(name or path.rpartition(":")[2])
    scenario = _negmas_scenario(folder)
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        results = cartesian_tournament(
            competitors=classes,
            competitor_names=names,
            scenarios=[scenario],
            n_steps=config["rounds"],
            n_repetitions=config.get("reps", 1),
            rotate_ufuns=True,
            self_play=config.get("self_play", True),
            njobs=-1,  # serial, as Accord's side
            path=Path(tmp) / "negmas",
            verbosity=0,
            plot_fraction=0.0,
            save_stats=False,
            save_scenario_figs=False,
            raise_exceptions=False,
            storage_optimization="space",
        )
        inner = time.perf_counter() - start
    results.details.to_csv(out.with_suffix(".details.csv"), index=False)
    results.scores.to_csv(out.with_suffix(".scores.csv"), index=False)
    out.with_suffix(".json").write_text(
        json.dumps({"sessions": len(results.details), "inner_seconds": inner})
    )


def _load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"{one:.2f} {five:.2f} {fifteen:.2f}"


def _timed(cmd: list[str], log: Path) -> tuple[float, float]:
    """Run ``cmd``: its wall-clock seconds and the CPU seconds (user + system) it used."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    with log.open("w") as f, log.with_suffix(".err").open("w") as err:
        run = subprocess.run(
            cmd, cwd=REPO, stdout=f, stderr=err, env={**os.environ, "COLUMNS": "120"}
        )
    seconds = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if run.returncode != 0:
        raise SystemExit(f"{cmd[:3]} failed, see {log}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return seconds, cpu


def tournament(scenario_override: list[str] | None, outdir: Path, config_path: Path = YAML) -> None:
    """Both sides per scenario, interleaved (the order alternates), timed the same way.

    Each side runs as its own command (imports included) and the wall clock of that
    command is its time; one JSON line per scenario goes to ``outdir/steps.jsonl``.
    """
    config = yaml.safe_load(config_path.read_text())
    folders = [(REPO / f).resolve() for f in config["scenarios"]]
    if scenario_override:
        folders = [genius_folder(s) for s in scenario_override]
    outdir.mkdir(parents=True, exist_ok=True)
    steps = outdir / "steps.jsonl"
    done = (
        {json.loads(line)["scenario"] for line in steps.read_text().splitlines()}
        if steps.exists()
        else set()
    )
    accord = str(Path(sys.executable).with_name("accord"))
    for i, folder in enumerate(folders):
        if folder.name in done:
            continue
        cfg = dict(config, scenarios=[str(folder)])
        yaml_path = outdir / f"{folder.name}.yaml"
        yaml_path.write_text(yaml.safe_dump(cfg))
        db = outdir / f"accord-{folder.name}.sqlite"
        db.unlink(missing_ok=True)
        sides = {
            "accord": [
                accord,
                "tournament",
                str(yaml_path),
                "--executor",
                "serial",
                "--out",
                str(db),
                "--no-report",
                "--json",
            ],
            "negmas": [
                sys.executable,
                __file__,
                "--negmas-side",
                str(folder),
                "--out",
                str(outdir / f"negmas-{folder.name}"),
                "--config",
                str(config_path),
            ],
        }
        order = ["accord", "negmas"] if i % 2 == 0 else ["negmas", "accord"]
        row: dict[str, Any] = {"scenario": folder.name, "order": order}
        for side in order:
            row[f"{side}_load_before"] = _load()
            row[f"{side}_started"] = time.strftime("%H:%M:%S", time.gmtime())
            print(
                f"{row[f'{side}_started']} {folder.name} {side} (load {row[f'{side}_load_before']})",
                flush=True,
            )
            wall, cpu = _timed(sides[side], outdir / f"{side}-{folder.name}.log")
            row[f"{side}_seconds"] = round(wall, 2)
            row[f"{side}_cpu_seconds"] = round(cpu, 2)
            row[f"{side}_load_after"] = _load()
        acc = json.loads((outdir / f"accord-{folder.name}.log").read_text())
        neg = json.loads((outdir / f"negmas-{folder.name}.json").read_text())
        row.update(
            accord_sessions=acc["sessions"],
            accord_inner_seconds=acc["seconds"],
            negmas_sessions=neg["sessions"],
            negmas_inner_seconds=round(neg["inner_seconds"], 2),
            ratio=round(row["negmas_seconds"] / row["accord_seconds"], 3),
            cpu_ratio=round(row["negmas_cpu_seconds"] / row["accord_cpu_seconds"], 3),
        )
        print(json.dumps(row), flush=True)
        with steps.open("a") as f:
            f.write(json.dumps(row) + "\n")
    summarize(outdir)


def summarize(outdir: Path) -> None:
    """Per-scenario and total figures from ``outdir/steps.jsonl`` (written by the run)."""
    rows = [json.loads(line) for line in (outdir / "steps.jsonl").read_text().splitlines()]
    print(
        "scenario                  sessions  wall s: accord  negmas  ratio"
        "   cpu s: accord  negmas  ratio   load 1-min before/after: accord | negmas"
    )
    for r in rows:
        print(
            f"{r['scenario']:<26}{r['accord_sessions']:>8} {r['accord_seconds']:>15.1f}"
            f" {r['negmas_seconds']:>7.1f} {r['ratio']:>6.2f} {r['accord_cpu_seconds']:>15.1f}"
            f" {r['negmas_cpu_seconds']:>7.1f} {r['cpu_ratio']:>6.2f}   "
            f"{r['accord_load_before'].split()[0]}/{r['accord_load_after'].split()[0]} | "
            f"{r['negmas_load_before'].split()[0]}/{r['negmas_load_after'].split()[0]}"
        )

    def total(key: str) -> float:
        return float(sum(r[key] for r in rows))

    a, n = total("accord_seconds"), total("negmas_seconds")
    ac, nc = total("accord_cpu_seconds"), total("negmas_cpu_seconds")
    print(
        f"{'total':<26}{int(total('accord_sessions')):>8} {a:>15.1f} {n:>7.1f} {n / a:>6.2f}"
        f" {ac:>15.1f} {nc:>7.1f} {nc / ac:>6.2f}"
    )
    ai, ni = total("accord_inner_seconds"), total("negmas_inner_seconds")
    print(
        f"inner wall (the sessions only, no imports): accord {ai:.1f} s, negmas {ni:.1f} s,"
        f" ratio {ni / ai:.2f}"
    )
    consistency(outdir, [r["scenario"] for r in rows])


def consistency(outdir: Path, scenarios: list[str]) -> None:
    """Accord's leaderboard over the scenarios run, and how NegMAS's side compares."""
    import pandas as pd

    from accord.formats import load_scenario
    from accord.tournament.results import Results
    from accord.tournament.scores import leaderboards

    parties, sessions = [], []
    for name in scenarios:
        res = Results(outdir / f"accord-{name}.sqlite")
        try:
            parties.append(res.parties)
            sessions.append(res.sessions)
        finally:
            res.close()
    accord_parties = pd.concat(parties, ignore_index=True)
    accord_sessions = pd.concat(sessions, ignore_index=True)
    board = leaderboards(accord_parties, seed=0)["utility"]
    cols = ["rank", "agent", "score", "ci_low", "ci_high", "n"]
    print("\nAccord leaderboard (utility):")
    print(board[cols].to_string(index=False, float_format=lambda v: f"{v:.4f}"))

    details = pd.concat(
        [pd.read_csv(outdir / f"negmas-{name}.details.csv") for name in scenarios],
        ignore_index=True,
    )
    scores = pd.concat(
        [pd.read_csv(outdir / f"negmas-{name}.scores.csv") for name in scenarios],
        ignore_index=True,
    )
    print(
        "\nby scenario (a: accord, n: negmas)  discount  agreements a / n"
        "    rounds a / n   mean utility a / n   Spearman of agents' means"
    )
    for name in scenarios:
        a = accord_sessions[accord_sessions["scenario"] == name]
        ap = accord_parties[accord_parties["scenario"] == name]
        d = details[details["scenario"].isin([name, f"{name}-1"])]  # -1: rotated
        ns = scores[scores["scenario"].isin([name, f"{name}-1"])]
        rho = (
            ap.groupby("agent")["utility"]
            .mean()
            .rank()
            .corr(ns.groupby("strategy")["utility"].mean().rank())
        )
        discount = load_scenario(GENIUS / name).utilities[0].discount
        print(
            f"  {name:<26} {str(discount or '-'):>14}  {int(a['agreed'].sum()):>5} / "
            f"{int(d['agreement'].notna().sum()):<5} {a['rounds'].mean():>7.1f} / "
            f"{d['last_step'].mean():<6.1f} {ap['utility'].mean():>9.4f} / "
            f"{ns['utility'].mean():<8.4f} {rho:>8.3f}"
        )
    print(
        "  (NegMAS's cartesian_tournament scores the undiscounted utility of the agreement,"
        " Accord the discounted one:\n   utilities compare like for like only on the"
        " undiscounted scenarios)"
    )
    errors = int(details["has_error"].sum())
    failed = int(accord_sessions["failure_kind"].notna().sum())
    print(f"  failed sessions: accord {failed}, negmas (has_error) {errors}")
    a_mean = accord_parties.groupby("agent")["utility"].mean()
    n_mean = scores.groupby("strategy")["utility"].mean()
    a_agree = accord_parties.groupby("agent")["agreed"].mean()
    table = pd.DataFrame({"accord": a_mean, "negmas": n_mean, "accord_agree": a_agree})
    table["accord_rank"] = table["accord"].rank(ascending=False).astype(int)
    table["negmas_rank"] = table["negmas"].rank(ascending=False).astype(int)
    table["diff"] = table["accord"] - table["negmas"]
    table = table.sort_values("accord_rank")
    print("\nmean utility per agent over all scenarios, both sides (ranks by mean utility):")
    print(table.to_string(float_format=lambda v: f"{v:.4f}"))
    rho = table["accord"].rank().corr(table["negmas"].rank())
    print(
        f"Spearman rank correlation of the two sides' mean utilities: {rho:.3f}; "
        f"mean |difference| {table['diff'].abs().mean():.4f}, largest "
        f"{table['diff'].abs().max():.4f} ({table['diff'].abs().idxmax()})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--part", choices=["overhead", "tournament", "summarize", "all"], default="all"
    )
    parser.add_argument(
        "--scenarios", help="comma-separated GENIUS folder names instead of the example's five"
    )
    parser.add_argument(
        "--outdir",
        type=Path,
        default=REPO / "bench" / "runs" / "negmas-tournament",
        help="where the tournament's files go (a second run resumes the missing scenarios)",
    )
    parser.add_argument(
        "--config", type=Path, default=YAML, help="tournament YAML (default: the example)"
    )
    parser.add_argument(
        "--smoke", action="store_true", help="tiny: the overhead part, 50 rounds, once"
    )
    parser.add_argument("--negmas-side", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--out", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    warnings.filterwarnings("ignore")
    if args.negmas_side:
        negmas_side(args.negmas_side, args.out, args.config)
        return
    if args.smoke:
        overhead(rounds=50, repeat=1)
        return
    if args.part in ("overhead", "all"):
        overhead()
    if args.part in ("tournament", "all"):
        tournament(args.scenarios.split(",") if args.scenarios else None, args.outdir, args.config)
    if args.part == "summarize":
        summarize(args.outdir)


if __name__ == "__main__":
    main()
