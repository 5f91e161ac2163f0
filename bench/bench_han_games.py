"""HAN agent-vs-agent games per second on the agent driver, interleaved with another tree.

Each run plays 32 games (4 built-in agents x 4 participants x the 2017 example games 1
and 2, seeds 0..reps-1) in a fresh process, and reports wall and CPU milliseconds per
game and a fingerprint of the results (outcome, end time, points, history length per
game): equal fingerprints mean the two trees played identical games. With ``--peer
SRC`` (the ``src`` folder of another checkout, e.g. a ``git worktree`` of an older
commit) the runs alternate: peer, ours, peer, ours, ... so load hits both alike; the
summary gives the median and the range of each, and the load average.

    PYTHONPATH=src python bench/bench_han_games.py --runs 6 --peer /tmp/old/src
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

_ONE = r"""
import hashlib, json, sys, time
try:
    from accord.leagues.han.play import play
except ImportError:  # trees before han.play (the league's own runner)
    from accord.leagues.han.match import play
from accord.leagues.han.agents import FairSplitter, ToughCompetitor, FavorLedgerTrader, LyingAgent
from accord.leagues.han.participants import Cooperative, Greedy, Emotional, Impatient
from accord.leagues.han.domain import EXAMPLE_1, EXAMPLE_2
pairs = [(a, p) for a in (FairSplitter, ToughCompetitor, FavorLedgerTrader, LyingAgent)
         for p in (Cooperative, Greedy, Emotional, Impatient)]
reps = int(sys.argv[1])
play(EXAMPLE_1, FairSplitter, Cooperative, seed=0)  # warm
fp, n = [], 0
t, c = time.perf_counter(), time.process_time()
for r in range(reps):
    for spec in (EXAMPLE_1, EXAMPLE_2):
        for a, p in pairs:
            res = play(spec, a, p, seed=r).result
            out = str(res.outcome).split(".")[-1].lower()
            fp.append((out, res.end_time, dict(res.points)))
            n += 1
wall, cpu = time.perf_counter() - t, time.process_time() - c
print(json.dumps({"wall": 1000 * wall / n, "cpu": 1000 * cpu / n,
                  "fp": hashlib.sha1(repr(fp).encode()).hexdigest()[:10]}))
"""


def _run(src: str, reps: int) -> dict[str, float | str]:
    env = {**os.environ, "PYTHONPATH": src}
    out = subprocess.run(
        [sys.executable, "-c", _ONE, str(reps)], env=env, check=True, capture_output=True,
        text=True,
    ).stdout  # fmt: skip
    got: dict[str, float | str] = json.loads(out.strip().splitlines()[-1])
    return got


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=6, help="runs per side (interleaved)")
    ap.add_argument("--reps", type=int, default=1, help="seeds per run (32 games each)")
    ap.add_argument("--peer", default="", help="the src folder of the tree to compare with")
    args = ap.parse_args()
    ours = str(Path(__file__).resolve().parent.parent / "src")
    sides = {"peer": args.peer, "ours": ours} if args.peer else {"ours": ours}
    seen: dict[str, list[dict[str, float | str]]] = {k: [] for k in sides}
    loads = []
    for _ in range(args.runs):
        for name, src in sides.items():
            seen[name].append(_run(src, args.reps))
            loads.append(os.getloadavg()[0])
    for name, runs in seen.items():
        fps = sorted({str(r["fp"]) for r in runs})
        for key in ("cpu", "wall"):
            xs = [float(r[key]) for r in runs]
            print(f"{name:5} {key:4} ms/game: median {statistics.median(xs):6.2f}  "
                  f"range {min(xs):6.2f}-{max(xs):6.2f}  (n={len(xs)} runs of "
                  f"{32 * args.reps} games)  fingerprint {','.join(fps)}")  # fmt: skip
    print(f"load average during the runs: {min(loads):.2f}-{max(loads):.2f}; "
          f"python {sys.version.split()[0]}; {time.strftime('%Y-%m-%d %H:%M')}")  # fmt: skip


if __name__ == "__main__":
    main()
