"""Where the time of one action goes: a session's and an SCML day's, by part.

Runs the work once plain (CPU by ``time.process_time``) and once under ``cProfile``;
the profile's own time of every function is grouped by the part it belongs to, and each
part's share is applied to the plain CPU time, so the figures are microseconds per
action (or milliseconds per day) without the profiler's overhead. Shares are
approximate (the profiler inflates cheap calls most).

    python bench/profile_actions.py            # 600 sessions on 3x7, a 15-day 10-factory world
    python bench/profile_actions.py --smoke
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import time
from collections.abc import Callable

from accord.agents.timebased import TimeDependent
from accord.core import Deadline, Session
from accord.core.generate import random_linear_scenario
from accord.core.inverse import clear_inverses
from accord.core.negotiator import Negotiator
from accord.tournament.guard import Guarded

# (part, substrings of "file:function"), first match wins
SESSION_PARTS = [
    ("guard (tournament/guard.py)", ("tournament/guard.py",)),
    ("offer check (OutcomeSpace.is_valid)", ("outcomes.py:is_valid", "outcomes.py:contains")),
    ("trace + offer log", ("tracelog.py", "negotiator.py:_append", "columns.py")),
    (
        "agent call (Boulware/Conceder, their lookups, utilities)",
        ("accord/agents/", "inverse.py", "utilities.py", "finder.py", "numpy", "outcomes.py"),
    ),
    ("rules + driver (alternating, offers, driver)", ("core/protocols/",)),
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


def sessions(n: int, guarded: bool) -> Callable[[], int]:
    s = random_linear_scenario(3, 7, 2, seed=307)

    def run() -> int:
        steps = 0
        for seed in range(n):
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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--smoke", action="store_true")
    args = ap.parse_args()
    n = 20 if args.smoke else 600
    sessions(20, True)()  # warm-up: imports
    plain, actions, share = breakdown(sessions(n, True), SESSION_PARTS)
    per = plain / actions * 1e6
    print(f"One session's actions: {n} guarded 100-round Boulware-Conceder sessions on 3x7 (cold),")
    print(
        f"{actions} actions, {per:.2f} us CPU per action (whole session cost spread over its actions)"
    )
    for name, f in share.items():
        print(f"  {name:<58} {f * 100:5.1f}%  {f * per:6.2f} us")
    days, size = (3, 4) if args.smoke else (15, 10)
    plain, _, share = breakdown(scml_day(days, size), SCML_PARTS)
    per = plain / days * 1e3
    print(
        f"\nOne SCML day: {size} factories (2 levels), market agents, {days} days: {per:.2f} ms CPU per day"
    )
    for name, f in share.items():
        print(f"  {name:<58} {f * 100:5.1f}%  {f * per:6.2f} ms")


if __name__ == "__main__":
    main()
