"""SCML market figures: how much of the market all-same-agent worlds make, over seeded worlds.

For each agent type (default: the old default ``trader`` and the new default
``market``), runs the same N seeded worlds (``generate_config(n_steps=DAYS, seed=s)``,
s = 0..N-1: 2 to 5 processes, 2 to 4 factories each) with every factory run by that type,
and prints per type the means over worlds of:

- exogenous demand met: share of the final-product units the simulator offered to buy
  that were signed;
- raw supply bought: the same for the raw material offered;
- negotiated contracts signed per day;
- agreements signed: negotiated contracts signed / agreements reached;
- profit: eq. 3 consolidated over all factories (the type's score), and the share of
  worlds with a positive profit; bankruptcies per world.

    python bench/bench_scml_market.py                  # 20 worlds of 50 days
    python bench/bench_scml_market.py --worlds 5 --days 30 --agents market --json
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from accord.leagues.scml.generate import generate_config
from accord.leagues.scml.report import summary
from accord.leagues.scml.world import World

FIGURES = (
    ("demand_met", "exogenous demand met", "{:.1%}"),
    ("supply_met", "raw supply bought", "{:.1%}"),
    ("negotiated_per_day", "negotiated contracts signed / day", "{:.2f}"),
    ("agreements_signed", "agreements signed", "{:.1%}"),
    ("profit", "profit (eq. 3, all factories)", "{:+.2%}"),
    ("profitable", "worlds with profit > 0", "{:.0%}"),
    ("bankruptcies", "bankruptcies per world", "{:.2f}"),
    ("factories", "factories per world", "{:.1f}"),
)


def one_world(args: tuple[str, int, int]) -> dict[str, Any]:
    """The figures of one all-``agent`` world of seed ``seed``."""
    agent, seed, days = args
    cfg = generate_config(n_steps=days, seed=seed)
    t0 = time.perf_counter()
    w = World(cfg, [agent] * cfg.n_factories, seed=seed).run()
    s = summary(w)
    (profit,) = s["profit"].values()
    return {
        **{k: s[k] for k in ("demand_met", "supply_met", "negotiated_per_day")},
        "agreements_signed": s["agreements_signed"],
        "profit": profit,
        "profitable": float(profit > 0),
        "bankruptcies": s["bankruptcies"],
        "factories": cfg.n_factories,
        "seconds": time.perf_counter() - t0,
    }


def run(agents: list[str], worlds: int, days: int, workers: int) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    with ProcessPoolExecutor(workers) as pool:
        for agent in agents:
            rows = list(pool.map(one_world, [(agent, s, days) for s in range(worlds)]))
            out[agent] = {k: statistics.fmean(r[k] for r in rows if r[k] == r[k]) for k in rows[0]}
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--agents", default="trader,market", help="agent types, comma separated")
    ap.add_argument("--worlds", type=int, default=20, help="seeded worlds per type (seeds 0..N-1)")
    ap.add_argument("--days", type=int, default=50, help="days per world")
    ap.add_argument("--workers", type=int, default=1, help="worker processes")
    ap.add_argument("--json", action="store_true", help="print the means as JSON")
    a = ap.parse_args()
    agents = [x.strip() for x in a.agents.split(",") if x.strip()]
    res = run(agents, a.worlds, a.days, a.workers)
    if a.json:
        print(json.dumps(res, indent=2))
        return
    print(f"means over {a.worlds} seeded worlds of {a.days} days (every factory one type)")
    print(f"{'':36}" + "".join(f"{t:>12}" for t in agents))
    for key, label, fmt in FIGURES:
        print(f"{label:36}" + "".join(f"{fmt.format(res[t][key]):>12}" for t in agents))


if __name__ == "__main__":
    main()
