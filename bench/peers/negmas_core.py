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


def one_session(issues, ufuns, rounds):
    m = SAOMechanism(issues=issues, n_steps=rounds)
    m.add(BoulwareTBNegotiator(), ufun=ufuns[0])
    m.add(ConcederTBNegotiator(), ufun=ufuns[1])
    m.run()
    return m.agreement is not None


def sessions(job):
    issues, ufuns = build(job["domain"])
    n = job["sessions"]
    # One untimed session first, as on our side: negmas imports about 90 modules (its
    # GENIUS bridge, plotly) on the first session of a process, about 50 ms of CPU that
    # is no session's own work (it made a 40-session batch look 1.6x slower on 3x5).
    if job.get("warm", True):
        one_session(issues, ufuns, job["rounds"])
    t0, c0 = time.perf_counter(), time.process_time()
    agreements = 0
    for _ in range(n):
        agreements += one_session(issues, ufuns, job["rounds"])
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
