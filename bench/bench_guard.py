"""Pre-emption cost: tournament sessions with the in-process guard against without it.

In the default (in-process) mode every agent call runs under
:class:`accord.tournament.guard.Guarded`, which pre-empts a call past its time limit and
tells the worker's supervisor which agent is acting. This measures what that costs, two
ways: bare sessions (``Session.run``: Boulware, Conceder and Linear in every pairing on
the bundled ``job_offer`` scenario and on ``holiday`` with three parties, 200 rounds)
and the sessions of a small tournament of the same agents and scenarios as a worker
runs them (``run_session``: agents built from their specs, records and traces encoded;
"guard off" replaces ``Guarded`` by the bare agent). Guard off and guard on are
interleaved (alternating which goes first) in one process with a worker's beacon
installed, as in a tournament worker. Other users share the machine, so each
repetition times both sides back to back and the figures are medians.

    python bench/bench_guard.py                 # 7 repetitions
    python bench/bench_guard.py --reps 3        # quick
"""

from __future__ import annotations

import argparse
import itertools
import multiprocessing
import os
import statistics
import time
from collections.abc import Callable

from accord.agents.timebased import Boulware, Conceder, Linear
from accord.core import Deadline, Session
from accord.core.negotiator import Negotiator
from accord.formats import load_scenario
from accord.tournament import session as tsession
from accord.tournament import workers
from accord.tournament.config import TournamentConfig
from accord.tournament.guard import Guarded
from accord.tournament.scenarios import resolve_scenarios
from accord.tournament.schedule import schedule
from accord.tournament.session import RunContext, Task, run_session
from accord.tournament.workers import Beacon

AGENTS: list[Callable[[], Negotiator]] = [Boulware, Conceder, Linear]
ROUNDS = 200
LIMIT = 60.0  # seconds per call (the tournament default's order of magnitude)


def sessions(guard: bool) -> int:
    """Run every session once (bare :class:`Session`); return the number of agent calls."""
    calls = 0
    for name, n in (("job_offer", 2), ("holiday", 3)):
        sc = load_scenario(name)
        for combo in itertools.product(AGENTS, repeat=n):
            negs: list[Negotiator] = [make() for make in combo]
            if guard:
                negs = [Guarded(neg, k, LIMIT) for k, neg in enumerate(negs)]
            result = Session(sc.space, negs, sc.utilities, Deadline(rounds=ROUNDS), seed=1).run()
            calls += result.steps + 2 * n  # actions, on_start and on_end calls
    return calls


def _unguarded(neg: Negotiator, *_: object) -> Negotiator:
    return neg


class Tournament:
    """The sessions of a small default-mode tournament, run by ``run_session`` (as a
    worker runs them: agents built from their specs, the record and trace encoded)."""

    def __init__(self) -> None:
        cfg = TournamentConfig(
            agents=[f"accord.agents.timebased:{a.__name__}" for a in AGENTS],
            scenarios=["job_offer", "holiday"],
            reps=1,
            rounds=ROUNDS,
            seed=3,
        )
        scenarios = resolve_scenarios(cfg.scenarios, cfg.discretize)
        self.ctx = RunContext.from_config(cfg, scenarios)
        self.tasks = [Task(s) for s in schedule(cfg, scenarios)]

    def run(self, guard: bool) -> int:
        tsession.Guarded = Guarded if guard else _unguarded  # type: ignore[assignment,misc]
        try:
            records = [run_session(t, self.ctx) for t in self.tasks]
        finally:
            tsession.Guarded = Guarded  # type: ignore[misc]
        return sum(r.session[9] + 2 * len(r.parties) for r in records)  # steps + hooks


def measure(label: str, run: Callable[[bool], int], reps: int) -> None:
    run(False)
    run(True)  # warm-up: imports, utilities' caches
    off: list[float] = []
    on: list[float] = []
    ratios: list[float] = []
    calls = 0
    for rep in range(reps):
        times = {}
        for guard in (False, True) if rep % 2 == 0 else (True, False):
            t0 = time.perf_counter()
            calls = run(guard)
            times[guard] = time.perf_counter() - t0
        off.append(times[False])
        on.append(times[True])
        ratios.append(times[True] / times[False])
    m_off, m_on = statistics.median(off), statistics.median(on)
    print(f"{label}: {calls:,} agent calls per run, {reps} interleaved repetitions")
    print(f"  guard off: median {m_off:.3f} s ({m_off / calls * 1e6:.2f} us per call)")
    print(f"  guard on:  median {m_on:.3f} s ({m_on / calls * 1e6:.2f} us per call)")
    print(
        f"  guarded/unguarded: median ratio {statistics.median(ratios):.3f} "
        f"(per repetition: {', '.join(f'{r:.3f}' for r in ratios)}); "
        f"guard cost {(m_on - m_off) / calls * 1e6:.2f} us per call"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reps", type=int, default=7, help="timing repetitions")
    args = ap.parse_args()
    workers._BEACON = Beacon(multiprocessing.get_context())  # as in a tournament worker
    print("load average before:", " ".join(f"{x:.2f}" for x in os.getloadavg()))
    n = len(AGENTS) ** 2 + len(AGENTS) ** 3
    measure(f"{n} sessions (Session.run)", sessions, args.reps)
    t = Tournament()
    measure(f"{len(t.tasks)} tournament sessions (run_session)", t.run, args.reps)
    print("load average after:", " ".join(f"{x:.2f}" for x in os.getloadavg()))


if __name__ == "__main__":
    main()
