"""SCML per-world table: all-``market`` worlds, one row per seeded world, with its bounds.

For each seed s in ``[FIRST, LAST)``, runs ``generate_config(n_steps=DAYS, seed=s)`` with
every factory run by the agent type and prints a markdown row: factories, demand signed
(share of the final-product units the simulator offered), two upper bounds on it from
``scml_bounds.py`` (each holds for every strategy; docs/scml.md says why), the demand
signed as a share of the second, negotiated contracts signed a day, breaches and profit
(eq. 3 over all factories):

- ``flow``: the most demand any agents could sign and deliver without a breach (each
  factory's lines, the raw supply offered to each first-level factory, the demand
  offered to each last-level factory, a day a level, whole contracts, cash);
- ``paying``: the same counting only demand whose price covers the chain's cheapest
  cost (below it every chain loses money on the unit).

A world is *feasible* for issue 26's target (60 % of the demand) when its paying bound
is at least 60 %. The summary gives n, min and mean of each figure, the feasible worlds
at 60 %, the misses and, for each infeasible world, why: the loss-making share of its
demand, the share the chain cannot carry, and the best world profit with and without
serving 60 %. ``--wide`` adds supply signed, bankruptcies and the simpler lines and
cost bounds; ``--plan`` also runs each world with agents that follow the bound's plan
(``scml_plan.py``: they know every exogenous contract in advance) and says whether they
reach the flow bound, and with what profit.

    python bench/bench_scml_worlds.py 2000 2020 --workers 2   # 20 worlds of 50 days
    python bench/bench_scml_worlds.py 0 5 --days 30 --agent trader
"""

from __future__ import annotations

import argparse
import statistics
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

if str(Path(__file__).resolve().parent) not in sys.path:  # loaded by path (tests)
    sys.path.insert(0, str(Path(__file__).resolve().parent))

from accord.leagues.scml.generate import generate_config  # noqa: E402
from accord.leagues.scml.report import summary  # noqa: E402
from accord.leagues.scml.world import World  # noqa: E402
from scml_bounds import best_profit, chain, demand_bounds, flow_bound, paying  # noqa: E402
from scml_plan import run_plan  # noqa: E402

__all__ = ["chain", "demand_bounds", "flow_bound", "main", "one"]

TARGET = 0.6


def one(args: tuple[str, int, int, bool]) -> dict[str, Any]:
    """Run one world and compute its bounds (and, if infeasible, why)."""
    agent, seed, days, with_plan = args
    cfg = generate_config(n_steps=days, seed=seed)
    s = summary(World(cfg, [agent] * cfg.n_factories, seed=seed).run())
    (profit,) = s["profit"].values()
    lines, cost = demand_bounds(cfg)
    flow = flow_bound(cfg, paying=False)
    ex = cfg.exogenous
    pay = flow if (paying(cfg) == ex.is_sell).all() else flow_bound(cfg)
    row = {
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
        "flow": flow,
        "paying": pay,
        "of_bound": s["demand_met"] / max(pay, 1e-9),
    }
    if with_plan:  # agents that follow the bound's plan (they know the future)
        p = run_plan(cfg, seed=seed)
        row["plan"] = (p["demand_met"], p["breaches"], *p["profit"].values())
    if pay < TARGET and chain(cfg).total > 0:  # (flow is never under paying)
        row["why"] = why(cfg, flow, pay)
    return row


def why(cfg: Any, flow: float, pay: float) -> dict[str, Any]:
    """Why a world misses the target: where its demand is lost, and the best profits."""
    ex = cfg.exogenous
    ch = chain(cfg)
    total = max(ch.total, 1)
    loss = ex.is_sell & ~paying(cfg)
    early = ex.is_sell & (ex.delivery < ch.levels)  # no chain delivers before day L
    lines, _ = demand_bounds(cfg)
    floors = sorted({(int(a), ch.upstream + int(ch.cost[a])) for a in ex.agent[loss]})
    return {
        "early": float(ex.quantity[early].sum()) / total,
        "lines": lines,
        "loss": float(ex.quantity[loss].sum()) / total,
        "floors": floors,  # (factory, cheapest chain cost of its units)
        "price": int(cfg.catalog_prices[-1]),
        "best": best_profit(cfg),
        "at_target": best_profit(cfg, TARGET),
        "at_flow": best_profit(cfg, flow * (1 - 1e-9)) if flow > TARGET else None,
        "flow": flow,
        "pay": pay,
    }


def _stat(rows: list[dict[str, Any]], key: str, fmt: str = ".1%") -> str:
    v = [float(r[key]) for r in rows]
    if not v:
        return "n = 0"

    def f(x: float) -> str:
        return format(x, fmt)

    return f"min {f(min(v))}, mean {f(statistics.fmean(v))} (n = {len(v)})"


def table(rows: list[dict[str, Any]], wide: bool = False) -> list[str]:
    """The per-world markdown table (narrow: fits 80 columns)."""
    head = "| seed | fac | demand | flow | paying | of paying | c/day | breaches | profit |"
    if wide:
        head += " supply | bankrupt | lines | cost |"
    out = [head, "|" + "---|" * head.count(" | ") + "---|"]
    for r in rows:
        line = (
            f"| {r['seed']} | {r['factories']} | {r['demand']:.2%} | {r['flow']:.1%} "
            f"| {r['paying']:.1%} | {r['of_bound']:.1%} | {r['per_day']:.2f} "
            f"| {r['breaches']} | {r['profit']:+.2%} |"
        )
        if wide:
            line += f" {r['supply']:.1%} | {r['bankrupt']} | {r['lines']:.1%} | {r['cost']:.1%} |"
        out.append(line)
    return out


def report(rows: list[dict[str, Any]]) -> list[str]:
    """The summary under the table: n, min / mean, the target, misses, infeasible worlds."""
    feasible = [r for r in rows if r["paying"] >= TARGET]
    physical = [r for r in rows if r["flow"] >= TARGET]
    breaches = [int(r["breaches"]) for r in rows]
    out = [
        f"worlds: {len(rows)}; bankruptcies: {sum(int(r['bankrupt']) for r in rows)}",
        f"demand signed: {_stat(rows, 'demand')}",
        f"signed / paying bound: {_stat(rows, 'of_bound')}",
        f"contracts a day: {_stat(rows, 'per_day', '.2f')}",
        f"breaches: mean {statistics.fmean(breaches or [0]):.2f}, max {max(breaches or [0])},"
        f" none in {breaches.count(0)} of {len(rows)}",
        f"profit (eq. 3): {_stat(rows, 'profit', '+.2%')}",
    ]
    for name, group in (("paying", feasible), ("flow", physical)):
        hit = sum(r["demand"] >= TARGET for r in group)
        out.append(
            f"{name} bound >= {TARGET:.0%}: {len(group)} of {len(rows)} worlds;"
            f" {hit} of them at {TARGET:.0%} or more"
        )
    for r in feasible:
        if r["demand"] < TARGET:
            out.append(
                f"miss {r['seed']}: signed {r['demand']:.2%} of a paying bound of "
                f"{r['paying']:.2%} ({r['of_bound']:.1%})"
            )
    planned = [r for r in rows if "plan" in r]
    if planned:
        reach = sum(abs(r["plan"][0] - r["flow"]) < 1e-9 for r in planned)
        clean = sum(r["plan"][1] == 0 for r in planned)
        gains = [float(r["plan"][2]) for r in planned]
        out.append(
            f"plan-following agents: signed the flow bound in {reach} of {len(planned)},"
            f" no breach in {clean}"
        )
        out.append(
            f"  their profit: min {min(gains):+.2%}, mean {statistics.fmean(gains):+.2%}"
            f" (n = {len(gains)})"
        )
    for r in rows:
        if "why" in r:
            out += explain(r)
    return out


def explain(r: dict[str, Any]) -> list[str]:
    """Lines on one world whose flow or paying bound is under the target."""
    w = r["why"]
    floors = ", ".join(f"{c} at factory {a}" for a, c in w["floors"][:3]) or "none"
    out = [
        f"{'infeasible' if w['flow'] < TARGET else 'only at a loss'} {r['seed']}: signed"
        f" {r['demand']:.1%}; flow bound {w['flow']:.1%},"
        f" paying {w['pay']:.1%}",
        f"  lost to time {w['early']:.1%}, to last-level lines "
        f"{1 - w['lines'] - w['early']:.1%}, upstream {w['lines'] - w['flow']:.1%}",
        f"  loss-making {w['loss']:.1%} (price {w['price']}; cheapest chain cost {floors})",
    ]
    best, at = w["best"], w["at_target"]
    line = f"  best world profit {best[0]:+.2%} (serving {best[1]:.1%})"
    if at is None:
        line += f"; no strategy serves {TARGET:.0%}"
    else:
        line += f"; at {TARGET:.0%}: {at[0]:+.2%}"
    if w.get("at_flow") is not None:
        line += f"; at {w['flow']:.1%}: {w['at_flow'][0]:+.2%}"
    out.append(line)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("first", type=int)
    ap.add_argument("last", type=int)
    ap.add_argument("--days", type=int, default=50)
    ap.add_argument("--agent", default="market")
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--wide", action="store_true", help="add supply, bankruptcies, lines, cost")
    ap.add_argument("--plan", action="store_true", help="also run agents that follow the plan")
    a = ap.parse_args()
    seeds = range(a.first, a.last)
    # biggest worlds first, so that no worker is left alone with a big one at the end
    size = {s: generate_config(n_steps=a.days, seed=s).n_factories for s in seeds}
    jobs = [(a.agent, s, a.days, a.plan) for s in sorted(seeds, key=lambda s: -size[s])]
    with ProcessPoolExecutor(a.workers) as pool:
        rows = sorted(pool.map(one, jobs), key=lambda r: int(r["seed"]))
    print("\n".join(table(rows, a.wide)))
    print("flow: most demand any agents deliver without a breach; paying: the same for")
    print("demand priced at or above the cheapest chain cost; of paying: demand / paying")
    print("\n".join(report(rows)))


if __name__ == "__main__":
    main()
