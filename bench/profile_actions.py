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
in fresh interpreters on the source of git revision REF too, the two sides interleaved
run by run (the side that goes first alternating, so load hits both alike); each figure
is the median (and range) over ``--runs`` runs a side. The fused session loop inlines the
trace and offer-log appends, so the profiler counts them in "the step"; their cost per
offer is given apart, by ``timeit`` of the same statements.

    python bench/profile_actions.py            # 600 sessions on 3x7, a 15-day 10-factory world
    python bench/profile_actions.py --before f04f33b --runs 5
    python bench/profile_actions.py --smoke
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import platform
import pstats
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

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


def inlined_trace_us() -> float:
    """Microseconds per offer of the trace and offer-log appends the fused step inlines
    (two tuple appends and two length checks; the profiler counts them in "the step"),
    by ``timeit`` of the same statements."""
    import timeit

    items: list[tuple[int, tuple[int, ...]]] = []
    pending: list[tuple[int, int, int, tuple[int, ...], float]] = []
    offer = (1, 2, 3)

    def appends() -> None:
        items.append((0, offer))
        if len(items) >= 4096:
            items.clear()
        pending.append((5, 0, 1, offer, 0.5))
        if len(pending) >= 4096:
            pending.clear()

    best = min(timeit.repeat(appends, number=20_000, repeat=5))
    return best / 20_000 * 1e6


def measure(smoke: bool) -> dict[str, object]:
    """One run of everything: per-action and per-day figures and shares."""
    n = 20 if smoke else 600
    sessions(20, True)()  # warm-up: imports
    plain, actions, share = breakdown(sessions(n, True), SESSION_PARTS)
    c0 = time.process_time()
    sessions(n, True, per_scenario=True)()
    scenario = (time.process_time() - c0) / n * 1e6
    days, size = (3, 4) if smoke else (15, 10)
    day_plain, _, day_share = breakdown(scml_day(days, size), SCML_PARTS)
    return {
        "n": n,
        "actions": actions,
        "per_action_us": plain / actions * 1e6,
        "per_session_us": plain / n * 1e6,
        "shares": share,
        "scenario_us": scenario,
        "trace_us": inlined_trace_us(),
        "days": days,
        "size": size,
        "per_day_ms": day_plain / days * 1e3,
        "day_shares": day_share,
    }


def child_run(src: Path, smoke: bool) -> dict[str, Any]:
    """:func:`measure` in a fresh interpreter on the source tree ``src``."""
    env = {**os.environ, "PYTHONPATH": str(src)}
    cmd = [sys.executable, __file__, "--json", *(["--smoke"] if smoke else [])]
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True).stdout
    return dict(json.loads(out.strip().splitlines()[-1]))


def med(xs: list[float], digits: int = 2) -> str:
    m = statistics.median(xs)
    if len(xs) == 1:
        return f"{m:.{digits}f}"
    return f"{m:.{digits}f} ({min(xs):.{digits}f}-{max(xs):.{digits}f})"


def report(label: str, runs: list[dict[str, Any]]) -> None:
    """The median (and range) over runs of each figure, and each part's time."""
    r0 = runs[0]
    per = [r["per_action_us"] for r in runs]
    print(f"{label}, {len(runs)} run(s), median (min-max)")
    print(
        f"One session's actions: {r0['n']} guarded 100-round Boulware-Conceder sessions on "
        f"3x7, cold per agent: {r0['actions']} actions;"
    )
    print(
        f"  {med(per)} us CPU per action, {med([r['per_session_us'] for r in runs], 1)} us "
        "per session (its fixed costs spread over its actions)"
    )
    for name in r0["shares"]:
        us = [r["shares"][name] * r["per_action_us"] for r in runs]
        share = statistics.median(r["shares"][name] for r in runs)
        print(f"  {name:<74} {share * 100:5.1f}%  {med(us):>18} us")
    print(
        "  (of the step: the trace and offer-log appends the fused loop inlines, "
        f"{med([r['trace_us'] for r in runs], 3)} us per offer by timeit)"
    )
    print(
        "cold per scenario (each session sorts both profiles again): "
        f"{med([r['scenario_us'] for r in runs], 1)} us per session"
    )
    print(
        f"\nOne SCML day: {r0['size']} factories (2 levels), market agents, {r0['days']} days: "
        f"{med([r['per_day_ms'] for r in runs])} ms CPU per day"
    )
    for name in r0["day_shares"]:
        ms = [r["day_shares"][name] * r["per_day_ms"] for r in runs]
        share = statistics.median(r["day_shares"][name] for r in runs)
        print(f"  {name:<74} {share * 100:5.1f}%  {med(ms):>18} ms")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--smoke", action="store_true")
    ap.add_argument("--before", default="", help="git revision to profile too, interleaved")
    ap.add_argument("--runs", type=int, default=0, help="runs a side (default 5; smoke 1)")
    ap.add_argument("--json", action="store_true", help="one run in this process, as JSON")
    args = ap.parse_args()
    if args.json:
        print(json.dumps(measure(args.smoke)))
        return
    runs = args.runs or (1 if args.smoke else 5)
    here = ROOT / "src"
    start_load = os.getloadavg()[0]
    got: dict[str, list[dict[str, Any]]] = {"before": [], "after": []}
    with tempfile.TemporaryDirectory(prefix="profile-before-") as tmp:
        if args.before:
            archive = subprocess.run(
                ["git", "archive", args.before, "src"], cwd=ROOT, capture_output=True, check=True
            ).stdout
            subprocess.run(["tar", "-x", "-C", tmp], input=archive, check=True)
        for r in range(runs):
            sides = ["before", "after"] if r % 2 == 0 else ["after", "before"]
            for side in sides:
                if side == "before" and not args.before:
                    continue
                src = Path(tmp) / "src" if side == "before" else here
                got[side].append(child_run(src, args.smoke))
    print(
        f"each run a fresh interpreter; {'before and after interleaved run by run; ' if args.before else ''}"
        f"load {start_load:.1f} / {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores "
        f"(before / after); python {platform.python_version()}"
    )
    if args.before:
        report(f"\nBEFORE (source of {args.before})", got["before"])
    report("\nAFTER (this tree)" if args.before else "\nThis tree", got["after"])


if __name__ == "__main__":
    main()
