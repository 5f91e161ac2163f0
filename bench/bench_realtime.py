"""Real-time session benchmark: a ``Deadline(seconds=S)`` session of three fast agents.

ANAC 2017 gave each negotiation 3 minutes of wall time. Fast agents act tens of
thousands of times a second, so a 180 s session takes millions of steps; this measures
what such a session costs: wall time (it must end within 0.1 s of its deadline), steps,
peak resident memory (``ru_maxrss``, measured in a fresh child process per run, so the
figure is the session's own) and how much of the trace lives in memory.

Agents: Hardliner, Boulware and Hardliner on the built-in 3-party ``holiday`` scenario
(a Hardliner accepts only its own best outcome and the two bests differ, so the session
runs to its deadline; the Boulware agent keeps changing its offer).

    python bench/bench_realtime.py               # the full 180 s session
    python bench/bench_realtime.py --seconds 10  # quick
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time

CHILD = r"""
import json, resource, sys, time
from accord.agents.simple import Hardliner
from accord.agents.timebased import Boulware
from accord.core import Deadline, Session
from accord.formats import load_scenario

seconds = float(sys.argv[1])
sc = load_scenario("holiday")
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
session = Session(
    sc.space, [Hardliner(), Boulware(), Hardliner()], sc.utilities, Deadline(seconds=seconds)
)
t0 = time.perf_counter()
result = session.run()
wall = time.perf_counter() - t0
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
trace = result.trace
print(json.dumps({
    "seconds": seconds,
    "wall": wall,
    "steps": result.steps,
    "reason": result.reason.value,
    "offers": len(session.views[0].offers),
    "rss_before_kb": base,
    "rss_peak_kb": peak,
    "trace_in_memory_bytes": getattr(trace, "memory_nbytes", getattr(trace, "nbytes", -1)),
}))
"""


def run_once(seconds: float) -> dict[str, float]:
    out = subprocess.run(
        [sys.executable, "-c", CHILD, str(seconds)], capture_output=True, text=True, check=True
    )
    figures: dict[str, float] = json.loads(out.stdout.strip().splitlines()[-1])
    return figures


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=180.0, help="the session's deadline")
    args = ap.parse_args()
    load = " ".join(f"{x:.2f}" for x in __import__("os").getloadavg())
    print(f"load average before: {load}", flush=True)
    t0 = time.perf_counter()
    r = run_once(args.seconds)
    grew = (r["rss_peak_kb"] - r["rss_before_kb"]) * 1024
    print(
        f"Deadline(seconds={r['seconds']:g}), 3 fast agents: wall {r['wall']:.3f} s "
        f"(over the deadline by {r['wall'] - r['seconds']:+.3f} s), {r['steps']:,} steps "
        f"({r['steps'] / r['wall']:,.0f}/s), {r['offers']:,} offers, end: {r['reason']}"
    )
    print(
        f"peak RSS {r['rss_peak_kb'] / 1024:.1f} MB (before the session "
        f"{r['rss_before_kb'] / 1024:.1f} MB; grew {grew / 1e6:.1f} MB, "
        f"{grew / max(r['steps'], 1):.1f} bytes/step); trace in memory "
        f"{r['trace_in_memory_bytes'] / 1e6:.1f} MB"
    )
    print(
        f"(bench wall {time.perf_counter() - t0:.1f} s; this process "
        f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB)"
    )


if __name__ == "__main__":
    main()
