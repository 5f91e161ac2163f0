"""SCML by size: Accord's world against scml 0.8.4's ``SCML2021World``, per simulated day,
at 10, 20 and 50 factories, interleaved run by run.

Ours runs with its default agent (``market``, as ``accord scml run``), the peer with its
default decentralizing agents (DecentralizingAgent, MarketAwareDecentralizingAgent,
IndDecentralizingAgent in turn) and its logs off (``no_logs=True, compact=True``, its
fastest setting). 10 factories are 2 levels of 5; larger worlds 4 levels of a quarter
each. Each run is a fresh interpreter; it times ``run()`` only (generation apart) by CPU
(``time.process_time``) and wall, the same way on both sides. Within a repetition the
sides take turns (who goes first alternates), and every ratio pairs the two runs of one
repetition. Ours also counts its negotiations, so the cost per negotiation shows whether
a day grows faster than the negotiations in it.

Target: ours >= 30x the peer per simulated day at every size.

    python bench/bench_scml_sizes.py             # 3 repetitions, 15-day worlds on both sides
    python bench/bench_scml_sizes.py --smoke     # 4 factories, 3 days, ours only
"""

from __future__ import annotations

import argparse
import json
import tempfile

from benchlib import PY, child, load, src_env, summary, versions
from peer_venv import peer_python

PEER_VENV, PEER = ".venv-scml", "scml==0.8.4"

OURS = r"""
import json, sys, time
from accord.leagues.scml import negotiation as N
from accord.leagues.scml.generate import generate_config
from accord.leagues.scml.world import World
job = json.loads(sys.argv[1])
count = [0]
start = N.NegotiationRunner.start
def counted(self, neg):
    count[0] += 1
    start(self, neg)
N.NegotiationRunner.start = counted
cfg = generate_config(n_steps=job["days"], factories_per_level=job["levels"], seed=job["seed"])
world = World(cfg, [job["agent"]] * cfg.n_factories, seed=job["seed"])
c0, w0 = time.process_time(), time.perf_counter()
world.run()
c1, w1 = time.process_time(), time.perf_counter()
print("RESULT" + json.dumps({"cpu": c1 - c0, "wall": w1 - w0, "days": job["days"],
                             "negotiations": count[0]}))
"""

PEER_SCRIPT = r"""
import json, sys, time
job = json.loads(sys.argv[1])
from scml.scml2020 import SCML2021World
from scml.scml2020.agents import (
    DecentralizingAgent, IndDecentralizingAgent, MarketAwareDecentralizingAgent)
types = [DecentralizingAgent, MarketAwareDecentralizingAgent, IndDecentralizingAgent]
levels = job["levels"]
procs = [i for i, c in enumerate(levels) for _ in range(c)]
agents = [types[i % len(types)] for i in range(len(procs))]
cfg = SCML2021World.generate(agent_types=agents, agent_processes=procs, n_steps=job["days"],
                             n_processes=len(levels), random_agent_types=False)
world = SCML2021World(**cfg, no_logs=True, compact=True)
c0, w0 = time.process_time(), time.perf_counter()
world.run()
c1, w1 = time.process_time(), time.perf_counter()
print("RESULT" + json.dumps({"cpu": c1 - c0, "wall": w1 - w0, "days": int(world.current_step)}))
"""


def levels_of(n: int) -> list[int]:
    """2 levels for up to 10 factories, else 4 (the larger levels first)."""
    k = 2 if n <= 10 else 4
    return [n // k + (1 if i < n % k else 0) for i in range(k)]


def parse(out: str) -> dict[str, float]:
    line = [ln for ln in out.splitlines() if ln.startswith("RESULT")][-1]
    return dict(json.loads(line[len("RESULT") :]))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--smoke", action="store_true", help="tiny world, ours only")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--reps-large", type=int, default=0, help="repetitions at 50+ (0: --reps)")
    ap.add_argument("--sizes", default="10,20,50")
    ap.add_argument("--days", type=int, default=15, help="our world's days")
    ap.add_argument("--peer-days", type=int, default=0, help="the peer's days (0: the same)")
    ap.add_argument("--agent", default="market", help="our agent type (default: market)")
    ap.add_argument("--first-seed", type=int, default=1, help="our worlds' seeds start here")
    args = ap.parse_args()
    sizes = [4] if args.smoke else [int(s) for s in args.sizes.split(",")]
    reps = 1 if args.smoke else args.reps
    days = 3 if args.smoke else args.days
    peer_days = args.peer_days or days
    py = None if args.smoke else peer_python(PEER_VENV, PEER)
    env = src_env()
    start_load = load()
    rows = []
    for n in sizes:
        lv = levels_of(n)
        ours: list[dict[str, float]] = []
        theirs: list[dict[str, float]] = []
        ratios: list[float] = []
        for r in range(args.reps_large or reps if n >= 50 and not args.smoke else reps):
            job = {"days": days, "levels": lv, "seed": r + args.first_seed, "agent": args.agent}
            pjob = {"days": peer_days, "levels": lv}
            sides = ["ours", "peer"] if r % 2 == 0 else ["peer", "ours"]
            got: dict[str, dict[str, float]] = {}
            for side in sides:
                if side == "ours":
                    got[side] = parse(child([PY, "-c", OURS, json.dumps(job)], env=env)[2])
                elif py is not None:
                    with tempfile.TemporaryDirectory() as home:
                        penv = {"HOME": home, "PATH": "/usr/bin:/bin", "PYTHONHASHSEED": "0"}
                        got[side] = parse(
                            child([str(py), "-c", PEER_SCRIPT, json.dumps(pjob)], env=penv)[2]
                        )
            ours.append(got["ours"])
            if "peer" in got:
                theirs.append(got["peer"])
                ratios.append(
                    (got["peer"]["cpu"] / got["peer"]["days"]) / (got["ours"]["cpu"] / days)
                )
        rows.append((n, lv, ours, theirs, ratios))
        print(
            f"[{n} factories done: ours {[round(o['cpu'] / days * 1e3, 1) for o in ours]} ms/day, "
            f"peer {[round(p['cpu'] / p['days'] * 1e3, 1) for p in theirs]} ms/day]",
            flush=True,
        )
    print(
        f"SCML per simulated day, ours ({args.agent} agents, {days} days) vs scml 0.8.4 "
        f"SCML2021World (decentralizing agents, {peer_days} days, no_logs), "
        f"interleaved repetitions (n per row)"
    )
    print(f"load before / after: {start_load} / {load()}; {versions(py, 'scml')}")
    print(
        f"{'factories':>9} {'n':>2} {'levels':>13} {'ours CPU ms/day':>22} {'peer CPU ms/day':>22} "
        f"{'ratio (min-max)':>20} {'ours wall':>9} {'peer wall':>9} {'negs/day':>8} "
        f"{'ms/neg':>6}"
    )
    for n, lv, ours, theirs, ratios in rows:
        oc = summary([o["cpu"] / days * 1e3 for o in ours])
        ow = summary([o["wall"] / days * 1e3 for o in ours])[0]
        negs = summary([o["negotiations"] / days for o in ours])[0]
        per_neg = summary([o["cpu"] / max(1, o["negotiations"]) * 1e3 for o in ours])[0]
        if theirs:
            pc = summary([p["cpu"] / p["days"] * 1e3 for p in theirs])
            pw = summary([p["wall"] / p["days"] * 1e3 for p in theirs])[0]
            rm = summary(ratios)
            peer_txt = f"{pc[0]:>8.1f} ({pc[1]:.0f}-{pc[2]:.0f})"
            ratio_txt = f"{rm[0]:>6.1f}x ({rm[1]:.1f}-{rm[2]:.1f})"
            pw_txt = f"{pw:>9.0f}"
        else:
            peer_txt, ratio_txt, pw_txt = "-", "-", "-"
        ours_txt = f"{oc[0]:>8.1f} ({oc[1]:.1f}-{oc[2]:.1f})"
        print(
            f"{n:>9} {len(ours):>2} {'+'.join(map(str, lv)):>13} {ours_txt:>22} {peer_txt:>22} "
            f"{ratio_txt:>20} {ow:>9.1f} {pw_txt:>9} {negs:>8.1f} {per_neg:>6.3f}"
        )
    if any(r[4] for r in rows):
        worst = min(summary(r[4])[0] for r in rows if r[4])
        print(
            f"target >= 30x at every size: {'met' if worst >= 30 else 'MISSED'} (worst median {worst:.1f}x)"
        )


if __name__ == "__main__":
    main()
