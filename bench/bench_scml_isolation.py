"""SCML competition mode: what running every agent in its own process costs per day.

Runs the same world (5 factories, 3 at the first process and 2 at the second, the
default ``market`` agents) in-process and isolated (each agent in a spawned process
behind its AWI, ``accord.leagues.scml.isolation``), and prints the start-up time (spawning
the processes and building the agents), the time per simulated day of each mode and
their ratio. The two runs must end with the same scores (isolation changes who runs the
code, not what happens).

    python bench/bench_scml_isolation.py             # 30 days
    python bench/bench_scml_isolation.py --days 50 --json
"""

from __future__ import annotations

import argparse
import json
import time

from accord.leagues.scml.generate import generate_config
from accord.leagues.scml.isolation import IsolatedAgent, Limits
from accord.leagues.scml.world import World


def timed(isolated: bool, days: int, agent: str) -> dict[str, float]:
    cfg = generate_config(n_steps=days, factories_per_level=[3, 2], seed=7)
    agents = [IsolatedAgent(agent, Limits()) if isolated else agent for _ in range(5)]
    t0 = time.perf_counter()
    w = World(cfg, agents, seed=7)  # init runs here: the isolated agents have started
    t1 = time.perf_counter()
    for _ in range(days):
        w.step()
    t2 = time.perf_counter()
    w.close()
    return {
        "startup_s": t1 - t0,
        "per_day_ms": 1000 * (t2 - t1) / days,
        "negotiations": float(w.history.negotiation_column("started").sum()),
        "scores": w.scores(),  # type: ignore[dict-item]
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--days", type=int, default=30)
    ap.add_argument("--agent", default="market")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    plain = timed(False, a.days, a.agent)
    iso = timed(True, a.days, a.agent)
    same = plain.pop("scores") == iso.pop("scores")
    res = {
        "in_process": plain,
        "isolated": iso,
        "ratio_per_day": iso["per_day_ms"] / plain["per_day_ms"],
        "same_scores": same,
    }
    if a.json:
        print(json.dumps(res, indent=2))
        return
    print(f"{a.days}-day world, 5 factories, {a.agent} agents")
    print(f"{'':14}{'start-up s':>12}{'ms / day':>12}{'negotiations':>14}")
    for k in ("in_process", "isolated"):
        r = res[k]
        print(f"{k:14}{r['startup_s']:12.2f}{r['per_day_ms']:12.1f}{r['negotiations']:14.0f}")
    print(f"isolated / in-process per day: {res['ratio_per_day']:.1f}x; same scores: {same}")


if __name__ == "__main__":
    main()
