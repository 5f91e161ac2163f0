"""Where the time of one action goes: a session's and an SCML day's, by part.

Runs the work once plain (CPU by ``time.process_time``) and once under ``cProfile``;
the profile's own time of every function is grouped by the part it belongs to, and each
part's share is applied to the plain CPU time, so the figures are microseconds per
action (or milliseconds per day) without the profiler's overhead. Shares are
approximate (the profiler inflates cheap calls most).

The sessions are the default mode, guarded and cold per agent (new agents each session,
each runs its own set-up; a profile's sorted outcomes are built once and shared, as in
a tournament: see bench/bench_core.py); the line after the table gives what cold per
scenario (every session sorting its profiles again) adds. ``--before REF`` runs the same
in a child on the source of git revision REF first, so the two tables sit side by side
in time (load hits both alike).

    python bench/profile_actions.py            # 600 sessions on 3x7, a 15-day 10-factory world
    python bench/profile_actions.py --before f04f33b
    python bench/profile_actions.py --smoke
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from accord.agents.timebased import TimeDependent
from accord.core import Deadline, Session
from accord.core.generate import random_linear_scenario
from accord.core.inverse import clear_inverses
from accord.core.negotiator import Negotiator
from accord.tournament.guard import Guarded

ROOT = Path(__file__).resolve().parent.parent

# (part, substrings of "file:function"), first match wins
SESSION_PARTS = [
    ("guard (tournament/guard.py)", ("tournament/guard.py",)),
    ("offer check (OutcomeSpace.is_valid)", ("outcomes.py:is_valid", "outcomes.py:contains")),
    ("trace + offer log", ("tracelog.py", "negotiator.py:_append", "columns.py")),
    (
        "session set-up and result (checks, state, views, seats, result, end hooks)",
        (
            "offers.py:__init__",
            "offers.py:check_negotiation",
            "offers.py:negotiation_views",
            "offers.py:result",
            "offers.py:start",
            "offers.py:end",
            "alternating.py:__init__",
            "alternating.py:run",
            "driver.py:__init__",
            "driver.py:start",
            "driver.py:_finish",
            "setup.py",
            "result.py",
            "negotiator.py:__init__",
            "machine.py",
            "base.py",
        ),
    ),
    (
        "agent call (Boulware/Conceder, their lookups, utilities)",
        (
            "accord/agents/",
            "inverse.py",
            "utilities.py",
            "finder.py",
            "shared.py",
            "numpy",
            "outcomes.py",
            "negotiator.py:time",
        ),
    ),
    (
        "the step (turn, time, the view's update, apply)",
        ("core/protocols/", "negotiator.py:update"),
    ),
]
SCML_PARTS = [
    ("agents (scml/agents)", ("scml/agents/", "scml/awi.py")),
    (
        "negotiation engine (core/protocols, outcomes)",
        ("core/protocols/", "core/outcomes.py", "core/negotiator.py"),
    ),
    ("world: negotiations (scml/negotiation.py)", ("scml/negotiation.py",)),
    ("world: the rest (scml/world, execution, ...)", ("leagues/scml/",)),
]


def breakdown(
    run: Callable[[], int], parts: list[tuple[str, tuple[str, ...]]]
) -> tuple[float, int, dict[str, float]]:
    """(plain CPU seconds, actions, share of each part)."""
    c0 = time.process_time()
    actions = run()
    plain = time.process_time() - c0
    prof = cProfile.Profile()
    prof.enable()
    run()
    prof.disable()
    stats = pstats.Stats(prof).stats  # type: ignore[attr-defined]
    total = 0.0
    by: dict[str, float] = {name: 0.0 for name, _ in parts}
    by["other (interpreter, builtins, the benchmark loop)"] = 0.0
    for (file, _, func), (_, _, tt, _, _) in stats.items():
        key = f"{file}:{func}"
        total += tt
        for name, subs in parts:
            if any(s in key for s in subs):
                by[name] += tt
                break
        else:
            by["other (interpreter, builtins, the benchmark loop)"] += tt
    return plain, actions, {k: v / total for k, v in by.items()}


def sessions(n: int, guarded: bool, per_scenario: bool = False) -> Callable[[], int]:
    s = random_linear_scenario(3, 7, 2, seed=307)

    def run() -> int:
        steps = 0
        for seed in range(n):
            if per_scenario or seed == 0:  # cold per scenario; else only the first session
                clear_inverses()
            negs: list[Negotiator] = [
                TimeDependent(0.25, "Boulware"),
                TimeDependent(4.0, "Conceder"),
            ]
            if guarded:
                negs = [Guarded(g, k, 60.0) for k, g in enumerate(negs)]
            steps += (
                Session(s.space, negs, s.utilities, Deadline(rounds=100), seed=seed).run().steps
            )
        return steps

    return run


def scml_day(days: int, n: int) -> Callable[[], int]:
    from accord.leagues.scml.generate import generate_config
    from accord.leagues.scml.world import World

    levels = [n // 2, n - n // 2]

    def run() -> int:
        cfg = generate_config(n_steps=days, factories_per_level=levels, seed=1)
        world = World(cfg, ["market"] * cfg.n_factories, seed=1)
        world.run()
        return days

    return run


def before(ref: str, smoke: bool) -> None:
    """This script on git revision ``ref``'s source, in a child (printed as it is)."""
    with tempfile.TemporaryDirectory(prefix="profile-before-") as tmp:
        archive = subprocess.run(
            ["git", "archive", ref, "src"], cwd=ROOT, capture_output=True, check=True
        ).stdout
        subprocess.run(["tar", "-x", "-C", tmp], input=archive, check=True)
        env = {**os.environ, "PYTHONPATH": str(Path(tmp) / "src")}
        cmd = [sys.executable, __file__, *(["--smoke"] if smoke else [])]
        out = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True).stdout
    print(f"BEFORE (source of {ref})\n{out}\nAFTER (this tree)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--smoke", action="store_true")
    ap.add_argument("--before", default="", help="git revision to profile first, side by side")
    args = ap.parse_args()
    if args.before:
        before(args.before, args.smoke)
    n = 20 if args.smoke else 600
    sessions(20, True)()  # warm-up: imports
    plain, actions, share = breakdown(sessions(n, True), SESSION_PARTS)
    per = plain / actions * 1e6
    print(f"One session's actions: {n} guarded 100-round Boulware-Conceder sessions on 3x7,")
    print(
        f"cold per agent: {actions} actions, {per:.2f} us CPU per action, "
        f"{plain / n * 1e6:.1f} us per session (its fixed costs spread over its actions)"
    )
    for name, f in share.items():
        print(f"  {name:<74} {f * 100:5.1f}%  {f * per:6.2f} us")
    c0 = time.process_time()
    sessions(n, True, per_scenario=True)()
    strict = (time.process_time() - c0) / n * 1e6
    print(
        f"cold per scenario (each session sorts both profiles again): {strict:.1f} us per session"
    )
    days, size = (3, 4) if args.smoke else (15, 10)
    plain, _, share = breakdown(scml_day(days, size), SCML_PARTS)
    per = plain / days * 1e3
    print(
        f"\nOne SCML day: {size} factories (2 levels), market agents, {days} days: {per:.2f} ms CPU per day"
    )
    for name, f in share.items():
        print(f"  {name:<74} {f * 100:5.1f}%  {f * per:6.2f} ms")


if __name__ == "__main__":
    main()
