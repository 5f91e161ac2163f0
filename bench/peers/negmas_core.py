"""Peer side of bench_core.py: runs inside bench/.venv-negmas (negmas 0.16.0).

Reads a JSON job on stdin, prints a JSON result on stdout. Never imported by accord.
"""

import json
import sys
import time

from negmas import BoulwareTBNegotiator, ConcederTBNegotiator, SAOMechanism, make_issue
from negmas.preferences import LinearAdditiveUtilityFunction
from negmas.preferences.ops import pareto_frontier


def build(domain):
    issues = [make_issue(values, name) for name, values in domain["issues"]]
    ufuns = []
    for profile in domain["profiles"]:
        values = [
            dict(zip(vals, evals, strict=False))
            for (name, vals), evals in zip(domain["issues"], profile["evaluations"], strict=False)
        ]
        ufuns.append(
            LinearAdditiveUtilityFunction(values, weights=profile["weights"], issues=issues)
        )
    return issues, ufuns


def sessions(job):
    issues, ufuns = build(job["domain"])
    n = job["sessions"]
    t0, c0 = time.perf_counter(), time.process_time()
    agreements = 0
    for _ in range(n):
        m = SAOMechanism(issues=issues, n_steps=job["rounds"])
        m.add(BoulwareTBNegotiator(), ufun=ufuns[0])
        m.add(ConcederTBNegotiator(), ufun=ufuns[1])
        m.run()
        agreements += m.agreement is not None
    dt, cpu = time.perf_counter() - t0, time.process_time() - c0
    return {"sessions_per_s": n / dt, "seconds": dt, "cpu": cpu, "agreements": agreements}


def pareto(job):
    issues, ufuns = build(job["domain"])
    t0, c0 = time.perf_counter(), time.process_time()
    front, _ = pareto_frontier(ufuns, issues=issues)
    return {
        "seconds": time.perf_counter() - t0,
        "cpu": time.process_time() - c0,
        "points": len(front),
    }


if __name__ == "__main__":
    job = json.load(sys.stdin)
    print(json.dumps({"sessions": sessions, "pareto": pareto}[job["kind"]](job)))
