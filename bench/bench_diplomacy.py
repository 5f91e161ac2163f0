"""Diplomacy benchmark: fast games per second with 7 negotiators, before and after.

Plays games to Winter ``--last-year`` (1905) with every power negotiating (alternately
the ``alliance`` and ``random-deals`` example negotiators, 3 ticks a round on the
virtual clock, 3 tactical candidates), one game per child process, and reports games
per second on one core (CPU time of the child, and wall time). With ``--before REF``
(default: the commit before issue 25's work) the same games run on that commit's code
too, interleaved run by run (the order alternates) so load hits both alike. It prints
the median, the spread (min..max) and n per side, the load average, the versions, and a
profile breakdown (share of one game's time) of each side. With ``--audit N`` it also
runs the order-by-order deal audit over N random-deal games (half the deals about the
next phase). There is no peer figure: BANDANA (Java) runs 30 s real rounds.

    python bench/bench_diplomacy.py                   # 5 runs a side to 1905
    python bench/bench_diplomacy.py --runs 3 --before none
    python bench/bench_diplomacy.py --audit 100
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BEFORE = "6ca7545"
"""main before issue 25's work on the league (the tactical module on engine copies)."""

_CHILD = r"""
import cProfile, json, pstats, sys, time
from accord.leagues.diplomacy.deals import POWERS
from accord.leagues.diplomacy.negotiator import AllianceNegotiator, RandomNegotiator
from accord.leagues.diplomacy.runner import play_game
seed, last_year, profile = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3] == "1"
def game():
    negs = {p: (AllianceNegotiator(seed * 7 + i) if i % 2 else RandomNegotiator(seed * 7 + i))
            for i, p in enumerate(POWERS)}
    return play_game(negs, seed=seed, clock="virtual", last_year=last_year, candidates=3)
from accord.leagues.diplomacy.engine import new_game
new_game()  # the engine's map loads once per process: not part of a game
if profile:
    prof = cProfile.Profile(); prof.enable(); game(); prof.disable()
    st = pstats.Stats(prof)
    total = max(v[3] for v in st.stats.values())
    def cum(file_part, name):
        return sum(v[3] for (f, _l, n), v in st.stats.items() if file_part in f and n == name)
    parts = {
        "tactical module (Tactics.plan)": cum("diplomacy/tactics.py", "plan"),
        "adjudication by the engine (Game.process)": cum("engine/game.py", "process"),
        "game state copies (deepcopy + set_state)": cum("copy.py", "deepcopy")
            + cum("engine/game.py", "set_state"),
        "get_all_possible_orders": cum("engine/game.py", "get_all_possible_orders"),
        "fast adjudicator (resolve_moves)": cum("diplomacy/adjudicate.py", "resolve_moves"),
        "negotiators (negotiate)": cum("diplomacy/negotiator.py", "negotiate"),
        "notary checks (board_check)": cum("diplomacy/runner.py", "check"),
    }
    print(json.dumps({"profile": {k: v / total for k, v in parts.items()}, "total": total}))
else:
    c0, w0 = time.process_time(), time.perf_counter()
    rec = game()
    print(json.dumps({"cpu": time.process_time() - c0, "wall": time.perf_counter() - w0,
                      "phases": len(rec.phases) - 1}))
"""


def _run(src: Path, seed: int, last_year: int, profile: bool = False) -> dict[str, object]:
    env = {**os.environ, "PYTHONPATH": str(src), "PYTHONHASHSEED": "0"}
    out = subprocess.run(
        [sys.executable, "-c", _CHILD, str(seed), str(last_year), "1" if profile else "0"],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    data: dict[str, object] = json.loads(out.stdout.strip().splitlines()[-1])
    return data


def _extract(ref: str, into: Path) -> Path:
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", ref, "src"], capture_output=True, check=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    return into / "src"


def _summary(name: str, runs: list[dict[str, object]]) -> dict[str, object]:
    cpu = [1.0 / float(str(r["cpu"])) for r in runs]
    wall = [1.0 / float(str(r["wall"])) for r in runs]
    row = {
        "side": name,
        "n": len(runs),
        "games_per_cpu_second_median": statistics.median(cpu),
        "games_per_cpu_second_min": min(cpu),
        "games_per_cpu_second_max": max(cpu),
        "games_per_wall_second_median": statistics.median(wall),
    }
    print(
        f"{name:>7}: {row['games_per_cpu_second_median']:.3f} games per CPU second "
        f"(median of {len(runs)}; {min(cpu):.3f}..{max(cpu):.3f}); "
        f"wall {row['games_per_wall_second_median']:.3f} games/s"
    )
    return row


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--runs", type=int, default=5, help="games (child processes) per side")
    ap.add_argument("--last-year", type=int, default=1905)
    ap.add_argument("--before", default=BEFORE, help="git ref to compare with, or 'none'")
    ap.add_argument("--audit", type=int, default=0, help="random-deal games to audit")
    ap.add_argument("--json", dest="as_json", action="store_true")
    args = ap.parse_args()
    now = ROOT / "src"
    sides = {"after": now}
    with tempfile.TemporaryDirectory() as tmp:
        if args.before != "none":
            sides = {"before": _extract(args.before, Path(tmp)), "after": now}
        runs: dict[str, list[dict[str, object]]] = {s: [] for s in sides}
        for i in range(args.runs):
            names = list(sides) if i % 2 == 0 else list(reversed(sides))
            for name in names:
                runs[name].append(_run(sides[name], i, args.last_year))
        from importlib.metadata import version

        print(
            f"{args.runs} games a side to W{args.last_year}, 7 negotiators, one core; "
            f"load {os.getloadavg()[0]:.2f}; Python {platform.python_version()}, "
            f"diplomacy {version('diplomacy')}"
        )
        rows = [_summary(name, runs[name]) for name in sides]
        profiles = {name: _run(src, 0, args.last_year, profile=True) for name, src in sides.items()}
    for name, prof in profiles.items():
        print(f"profile of one game, {name} (share of the game's time; nested parts overlap):")
        for part, share in prof["profile"].items():  # type: ignore[union-attr]
            if share > 0.005:
                print(f"  {share:6.1%}  {part}")
    result: dict[str, object] = {"rows": rows, "profiles": profiles}
    if args.audit:
        sys.path.insert(0, str(now))
        from accord.leagues.diplomacy.checks import random_deal_games

        audit = random_deal_games(args.audit, last_year=args.last_year, seed=7)
        print(
            f"deal audit over {audit.games} games: {audit.deals} confirmed deals "
            f"({audit.later_deals} about a later phase); {audit.checked} commitments and "
            f"DMZs checked order by order: {audit.kept} kept, {audit.broken} broken that "
            f"another legal order would have kept, {audit.impossible} impossible (unit "
            f"gone); later commitments: {audit.later_checked} checked, "
            f"{audit.made_impossible} put out of reach by the power's own orders"
        )
        result["audit"] = audit.__dict__
    if args.as_json:
        print(json.dumps(result))


if __name__ == "__main__":
    main()
