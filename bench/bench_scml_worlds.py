"""SCML per-world table: all-``market`` worlds, one row per seeded world, with its bounds.

For each seed s in ``[FIRST, LAST)``, runs ``generate_config(n_steps=DAYS, seed=s)`` with
every factory run by the agent type, and prints a markdown row: factories, demand and
supply signed (shares of the units the simulator offered), negotiated contracts signed a
day, breaches, bankruptcies, profit (eq. 3 over all factories), and two upper bounds on
the demand share: ``lines`` (each last-level factory ships at most its lines a day, from
the day raw material can first reach it) and ``cost`` (the same, counting only demand
whose price covers the raw price plus the cheapest cost at every level before the
seller plus the seller's own cost: a unit under it loses money along any chain), and
``signed / bound``, the demand signed as a share of the smaller bound. A world is
*feasible* for issue 26's target when that bound is at least 60 %; the summary counts
the feasible worlds that reach 60 % and, for the others, how near the agent comes to
its bound. Then min / mean / max over the worlds.

    python bench/bench_scml_worlds.py 2000 2020          # 20 worlds of 50 days
    python bench/bench_scml_worlds.py 0 5 --days 30 --agent trader
"""

from __future__ import annotations

import argparse
import statistics
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import numpy as np

from accord.leagues.scml.generate import WorldConfig, generate_config
from accord.leagues.scml.report import summary
from accord.leagues.scml.world import World


def demand_bounds(cfg: WorldConfig) -> tuple[float, float]:
    """(lines bound, lines-and-cost bound) on the share of exogenous demand signed."""
    ex = cfg.exogenous
    levels, n, lines = cfg.n_levels, cfg.n_steps, cfg.n_lines
    level = np.asarray(cfg.factory_level)
    costs = np.asarray(cfg.costs)
    cost = costs.max(axis=1) if costs.ndim == 2 else costs
    supply = ~ex.is_sell
    raw = int(ex.unit_price[supply].min()) if supply.any() else int(cfg.catalog_prices[0])
    upstream = raw + sum(int(cost[level == k].min()) for k in range(levels - 1))
    total = int(ex.quantity[ex.is_sell].sum())
    shipped = [0, 0]
    for a in np.flatnonzero(level == levels - 1):
        mine = (ex.agent == a) & ex.is_sell
        for k, mask in enumerate((mine, mine & (ex.unit_price >= upstream + cost[a]))):
            per_day = np.bincount(ex.delivery[mask], weights=ex.quantity[mask], minlength=n)
            made = sold = 0
            for d in range(n):
                made += lines if d >= levels else 0
                sold += min(int(per_day[d]), made - sold)
            shipped[k] += sold
    return shipped[0] / max(total, 1), shipped[1] / max(total, 1)


def one(args: tuple[str, int, int]) -> dict[str, Any]:
    agent, seed, days = args
    cfg = generate_config(n_steps=days, seed=seed)
    s = summary(World(cfg, [agent] * cfg.n_factories, seed=seed).run())
    (profit,) = s["profit"].values()
    lines, cost = demand_bounds(cfg)
    return {
        "seed": seed,
        "factories": cfg.n_factories,
        "demand": s["demand_met"],
        "supply": s["supply_met"],
        "per_day": s["negotiated_per_day"],
        "breaches": s["breaches"],
        "bankrupt": s["bankruptcies"],
        "profit": profit,
        "lines": lines,
        "cost": cost,
        "of_bound": s["demand_met"] / max(min(lines, cost), 1e-9),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("first", type=int)
    ap.add_argument("last", type=int)
    ap.add_argument("--days", type=int, default=50)
    ap.add_argument("--agent", default="market")
    ap.add_argument("--workers", type=int, default=1)
    a = ap.parse_args()
    jobs = [(a.agent, s, a.days) for s in range(a.first, a.last)]
    with ProcessPoolExecutor(a.workers) as pool:
        rows = list(pool.map(one, jobs))
    print(
        "| seed | factories | demand signed | supply signed | contracts/day | breaches "
        "| bankruptcies | profit | bound: lines | bound: cost | signed / bound |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(
            f"| {r['seed']} | {r['factories']} | {r['demand']:.1%} | {r['supply']:.1%} "
            f"| {r['per_day']:.2f} | {r['breaches']} | {r['bankrupt']} | {r['profit']:+.2%} "
            f"| {r['lines']:.1%} | {r['cost']:.1%} | {r['of_bound']:.1%} |"
        )
    keys = ("demand", "supply", "per_day", "breaches", "profit", "lines", "cost", "of_bound")
    for k in keys:
        v = [float(r[k]) for r in rows]
        print(f"{k}: min {min(v):.4f} mean {statistics.fmean(v):.4f} max {max(v):.4f}")
    print("worlds under 60 % of the demand:", sum(r["demand"] < 0.6 for r in rows), "of", len(rows))
    feasible = [r for r in rows if min(r["lines"], r["cost"]) >= 0.6]
    print(
        "feasible worlds (bound >= 60 %) at 60 % or more:",
        sum(r["demand"] >= 0.6 for r in feasible),
        "of",
        len(feasible),
    )
    for r in rows:
        if r not in feasible:
            print(f"infeasible world {r['seed']}: signed {r['demand']:.1%} of its bound's ", end="")
            print(f"{min(r['lines'], r['cost']):.1%} ({r['of_bound']:.1%} of the bound)")


if __name__ == "__main__":
    main()
