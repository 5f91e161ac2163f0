"""Core engine benchmark: Accord against negmas 0.16.0, side by side in one run.

Measures sessions/second for 100-round bilateral Boulware-vs-Conceder sessions on
3x5, 3x7, 3x10, 5x10 and 6x10 issue-by-value domains, the start-up time of a
10^6-outcome session, and the Pareto-frontier time at 10^5 and 10^6 outcomes.

The peer runs in its own virtualenv (bench/.venv-negmas, created on first use; negmas is
never a dependency of accord). Both sides get the same domains and profiles, and the
same concession curves: the peer's Boulware/Conceder aspiration is ``1 - t**4`` and
``1 - t**0.25``; ours is ``1 - t**(1/e)`` with e = 0.25 and 4.

    python bench/bench_core.py            # full run (about two minutes)
    python bench/bench_core.py --quick    # fewer repetitions
"""

from __future__ import annotations

import argparse
import json
import subprocess
import time
from pathlib import Path

import numpy as np

from accord.agents.timebased import TimeDependent
from accord.core import Deadline, Scenario, Session
from accord.core.generate import random_linear_scenario
from accord.core.inverse import clear_inverses
from peer_venv import peer_python

HERE = Path(__file__).resolve().parent
PEER_VENV, PEER = ".venv-negmas", "negmas==0.16.0"
PEER_PY = HERE / PEER_VENV / "bin" / "python"
DOMAINS = [(3, 5), (3, 7), (3, 10), (5, 10), (6, 10)]


def domain_json(s: Scenario) -> dict[str, object]:
    """The scenario as plain data for the peer (values, weights, normalised evaluations)."""
    issues = [[i.name, list(i.values())] for i in s.space.issues]
    profiles = []
    for u in s.utilities:
        evals = [
            [u.evaluation(k, v) for v in issue.values()]  # type: ignore[attr-defined]
            for k, issue in enumerate(s.space.issues)
        ]
        profiles.append({"weights": u.weights.tolist(), "evaluations": evals})  # type: ignore[attr-defined]
    return {"issues": issues, "profiles": profiles}


def peer(job: dict[str, object]) -> dict[str, float]:
    out = subprocess.run(
        [str(PEER_PY), str(HERE / "peers" / "negmas_core.py")],
        input=json.dumps(job),
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def ours_sessions(s: Scenario, n: int, rounds: int = 100, cold: bool = True) -> tuple[float, int]:
    """Sessions/s; ``cold`` drops the shared per-profile caches before every session, so
    each session pays its agents' full start-up, as the peer's do."""
    t0 = time.perf_counter()
    agreements = 0
    for seed in range(n):
        if cold:
            clear_inverses()
        negotiators = [TimeDependent(0.25, "Boulware"), TimeDependent(4.0, "Conceder")]
        r = Session(s.space, negotiators, s.utilities, Deadline(rounds=rounds), seed=seed).run()
        agreements += r.agreement is not None
    return n / (time.perf_counter() - t0), agreements


def ours_start(s: Scenario) -> float:
    """Seconds from building a session to its first offer (both agents initialised, cold)."""
    clear_inverses()
    t0 = time.perf_counter()
    session = Session(
        s.space,
        [TimeDependent(0.25, "Boulware"), TimeDependent(4.0, "Conceder")],
        s.utilities,
        Deadline(rounds=100),
    )
    session.step()
    return time.perf_counter() - t0


def ours_pareto(s: Scenario) -> float:
    from accord.core.analysis import pareto_frontier

    t0 = time.perf_counter()
    pareto_frontier(np.column_stack([u.all() for u in s.utilities]))
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="fewer repetitions")
    args = ap.parse_args()
    peer_python(PEER_VENV, PEER)
    scale = 0.3 if args.quick else 1.0

    print("\nSessions/second, 100-round Boulware vs Conceder (higher is better)")
    print("cold: every session builds its agents' lookups from scratch (as the peer does);")
    print("warm: sessions on the same profiles share them (as in a tournament)")
    print(
        f"{'domain':>8} {'outcomes':>9} {'cold':>10} {'warm':>10} {'negmas':>9} "
        f"{'cold ratio':>11} {'warm ratio':>11}"
    )
    for ni, nv in DOMAINS:
        s = random_linear_scenario(ni, nv, 2, seed=ni * 100 + nv)
        size = int(s.space.cardinality)
        n_ours = max(3, int((2000 if size < 10**4 else 60 if size < 10**6 else 10) * scale))
        n_peer = max(1, int((100 if size < 10**4 else 3 if size < 10**6 else 1) * scale))
        cold, _ = ours_sessions(s, n_ours, cold=True)
        warm, _ = ours_sessions(s, n_ours, cold=False)
        theirs = peer(
            {"kind": "sessions", "domain": domain_json(s), "sessions": n_peer, "rounds": 100}
        )["sessions_per_s"]
        print(
            f"{ni}x{nv:<6} {size:>9} {cold:>10.1f} {warm:>10.1f} {theirs:>9.2f} "
            f"{cold / theirs:>10.1f}x {warm / theirs:>10.1f}x",
            flush=True,
        )

    big = random_linear_scenario(6, 10, 2, seed=7)
    starts = sorted(ours_start(big) for _ in range(5))
    print(
        f"\n10^6-outcome session start (build + both agents ready + first offer): "
        f"{starts[2] * 1000:.1f} ms (median of 5; target < 100 ms)"
    )

    print("\nPareto frontier (seconds, lower is better)")
    print(f"{'outcomes':>9} {'accord':>10} {'negmas':>9} {'ratio':>8}")
    for ni in (5, 6):
        s = random_linear_scenario(ni, 10, 2, seed=ni)
        ours = min(ours_pareto(s) for _ in range(3))
        theirs = peer({"kind": "pareto", "domain": domain_json(s)})["seconds"]
        print(f"{10**ni:>9} {ours:>10.4f} {theirs:>9.3f} {theirs / ours:>7.1f}x", flush=True)


if __name__ == "__main__":
    main()
