"""Upper bounds on the exogenous demand an SCML world lets agents sign (issue 26).

Every bound reads only the configuration (never an agent), so it holds for every
strategy the rules allow; each constraint below says which rule of the simulator
(``accord.leagues.scml``: ``world.py``, ``signing.py``, ``execution.py``, ``awi.py``)
makes it valid. Shares are of the final-product units the simulator offers to buy.

- :func:`demand_bounds`: *lines* (each last-level factory ships at most its lines a
  day, from day L on) and *cost* (the same for the demand whose price covers the
  chain's cheapest cost, :func:`paying`).
- :func:`flow_bound`: a linear program over the days (:func:`solve`): per-factory
  raw supply, lines and costs, a day a level, whole exogenous contracts, the first
  day a negotiated input can arrive, and cash. ``paying=False`` is the physical
  bound: no strategy signs more demand and delivers it without a breach.
- :func:`best_profit`: the largest world profit (eq. 3 without the inventory term)
  the same program allows, optionally with a floor on the demand share served.

Example:
    >>> from accord.leagues.scml.generate import generate_config
    >>> cfg = generate_config(n_steps=20, factories_per_level=[2, 2], seed=0)
    >>> 0 < flow_bound(cfg) <= flow_bound(cfg, paying=False) <= 1
    True
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
from scipy.optimize import Bounds, LinearConstraint, milp
from scipy.sparse import coo_matrix, csr_matrix, eye, identity

from accord.leagues.scml.generate import WorldConfig

__all__ = [
    "Chain",
    "Solution",
    "best_profit",
    "chain",
    "demand_bounds",
    "flow_bound",
    "paying",
    "plan",
    "solve",
]

#: A MILP (whole contracts) that is not solved in this many seconds reports HiGHS'
#: dual bound, still an upper bound.
TIME_LIMIT = 20.0


class Chain(NamedTuple):
    """What the bounds read from a configuration."""

    levels: int
    n: int
    lines: int
    level: np.ndarray  # each factory's level
    cost: np.ndarray  # each factory's (highest) production cost
    supply: np.ndarray  # which exogenous contracts are raw supply
    upstream: int  # the raw price plus the cheapest cost at every level but the last
    total: int  # final-product units offered


def chain(cfg: WorldConfig) -> Chain:
    """The facts of ``cfg`` the bounds share (one place for all)."""
    ex = cfg.exogenous
    levels = cfg.n_levels
    level = np.asarray(cfg.factory_level)
    costs = np.asarray(cfg.costs)
    cost = costs.max(axis=1) if costs.ndim == 2 else costs
    supply = ~ex.is_sell
    raw = int(ex.unit_price[supply].min()) if supply.any() else int(cfg.catalog_prices[0])
    upstream = raw + sum(int(cost[level == k].min()) for k in range(levels - 1))
    total = int(ex.quantity[ex.is_sell].sum())
    return Chain(levels, cfg.n_steps, cfg.n_lines, level, cost, supply, upstream, total)


def paying(cfg: WorldConfig) -> np.ndarray:
    """Which exogenous contracts are demand whose price covers the cheapest chain.

    A final unit sold by factory g costs the world at least the raw price, the
    cheapest production cost at every level before g's, and g's own cost; a unit
    priced below that loses money along every chain that can make it.
    """
    ex = cfg.exogenous
    ch = chain(cfg)
    return ex.is_sell & (ex.unit_price >= ch.upstream + ch.cost[ex.agent])


def demand_bounds(cfg: WorldConfig) -> tuple[float, float]:
    """(lines bound, lines-and-cost bound) on the share of exogenous demand signed."""
    ex = cfg.exogenous
    ch = chain(cfg)
    pay = paying(cfg)
    shipped = [0, 0]
    for a in np.flatnonzero(ch.level == ch.levels - 1):
        mine = (ex.agent == a) & ex.is_sell
        for k, mask in enumerate((mine, mine & pay)):
            per_day = np.bincount(ex.delivery[mask], weights=ex.quantity[mask], minlength=ch.n)
            made = sold = 0
            for d in range(ch.n):
                made += ch.lines if d >= ch.levels else 0
                sold += min(int(per_day[d]), made - sold)
            shipped[k] += sold
    return shipped[0] / max(ch.total, 1), shipped[1] / max(ch.total, 1)


class Solution(NamedTuple):
    """What :func:`solve` found: demand units shipped, world profit (money), exact?"""

    units: float
    profit: float
    optimal: bool  # False: a time limit hit; ``units`` is then the solver's upper bound
    plan: dict[str, Any] | None = None  # with ``integral``: what each factory does


def solve(
    cfg: WorldConfig,
    *,
    paying_only: bool = True,
    whole: bool = True,
    cash: bool = True,
    profit: bool = False,
    min_units: float | None = None,
    integral: bool = False,
) -> Solution | None:
    """The program behind the bounds (None if ``min_units`` cannot be met).

    Variables, each a row of days: ``buy[f]`` raw units each first-level factory takes
    from the raw supply offered to it; ``make[a]`` each factory's production; ``x[k]``
    the part of exogenous demand contract k signed (0 or 1 if ``whole``). Constraints,
    for every day d (sums are cumulative, "by d"):

    - ``make[a, d] <= lines`` (each factory's own lines);
    - first level: made by f by d <= raw taken by f by d (inputs delivered on day d
      are produced on day d: execution is step 3, production step 6); raw taken on a
      day <= the raw supply offered to f for that day (supply goes to one factory);
    - level k >= 1: made by level k by d <= made by level k - 1 by d - 1 (an output is
      in stock after production, so it is delivered the next day at the earliest; any
      factory may buy from any of the level before, so a level's inputs are one pool);
      nothing is made before ``signing_delay`` (a negotiated contract is signed that
      many days after the negotiation, which runs on day 0 at the earliest, and is
      cancelled if its delivery day has passed);
    - last level: demand shipped by g by d <= made by g by d - 1; only demand offered
      to g counts (``paying_only``: only :func:`paying` demand);
    - cash (``cash``): money enters a downstream-closed set of factories only from the
      simulator's final purchases (unit prices are >= 1 and money moves from buyer to
      seller), and in a run without a breach no factory's cash is ever negative; so at
      the end of every day, for the world (raw at its price), for each level k >= 1 with
      every level after it, and for each last-level factory alone: initial balances +
      revenue - production costs - inputs (at >= 1 a unit) >= 0.

    The objective is the demand units shipped, or with ``profit`` the world's money
    (revenue - raw - production costs); ``min_units`` asks for at least that many units.
    ``integral`` makes every variable an integer and returns the plan (:func:`plan`).
    """
    ex = cfg.exogenous
    ch = chain(cfg)
    n, level = ch.n, ch.level
    allf = list(range(len(level)))
    firsts = [a for a in allf if level[a] == 0]
    lasts = [a for a in allf if level[a] == ch.levels - 1]
    sold = np.flatnonzero(paying(cfg) if paying_only else ex.is_sell)
    qty = ex.quantity[sold].astype(float)
    price = ex.unit_price[sold].astype(float)
    raw_price = float(ex.unit_price[ch.supply].min()) if ch.supply.any() else 0.0
    b0 = np.asarray(cfg.initial_balances, dtype=float)
    nk, nb = len(sold), len(firsts)
    # decision columns: buy[f] (n each), make[a] (n each), x (one per contract)
    col = {("buy", f): i * n for i, f in enumerate(firsts)}
    col.update({("make", a): (nb + a) * n for a in allf})
    o_x = (nb + len(allf)) * n
    nd = o_x + nk
    same = identity(n, format="csr")  # what happens on day d
    night = eye(n, k=-1, format="csr")  # what happened on day d - 1

    def ship(g: int, weights: np.ndarray) -> csr_matrix:
        """n x nk: the units (or money) of each contract of g on its delivery day."""
        cols = np.flatnonzero(ex.agent[sold] == g)
        days = ex.delivery[sold][cols]
        return coo_matrix((weights[cols], (days, cols)), shape=(n, nk)).tocsr()

    def terms(parts: dict[tuple[str, int], csr_matrix], contracts: csr_matrix | None) -> Any:
        """n x nd: a balance's change on each day."""
        blocks = [(col[key], m.tocoo()) for key, m in parts.items()]
        if contracts is not None:
            blocks.append((o_x, contracts.tocoo()))
        data = np.concatenate([m.data for _, m in blocks])
        rows = np.concatenate([m.row for _, m in blocks])
        cols = np.concatenate([m.col + c0 for c0, m in blocks])
        return coo_matrix((data, (rows, cols)), shape=(n, nd)).tocsr()

    # balances: stock(d) = start + the change by day d >= 0, for every day d
    goods: list[tuple[Any, float]] = []
    for f in firsts:  # raw taken on day d is made on day d at the earliest
        goods.append((terms({("buy", f): same, ("make", f): -same}, None), 0.0))
    for k in range(1, ch.levels):  # made by level k - 1 on day d - 1, by level k on day d
        parts = {("make", a): -same for a in allf if level[a] == k}
        parts.update({("make", b): night for b in allf if level[b] == k - 1})
        goods.append((terms(parts, None), 0.0))
    for g in lasts:  # made on day d - 1, shipped on day d
        goods.append((terms({("make", g): night}, -ship(g, qty)), 0.0))
    money: list[tuple[Any, float]] = []
    if cash:
        revenue = sum((ship(g, qty * price) for g in lasts), csr_matrix((n, nk)))
        world = {("make", a): -float(ch.cost[a]) * same for a in allf}
        world.update({("buy", f): -raw_price * same for f in firsts})
        money.append((terms(world, revenue), float(b0.sum())))
        for k in range(1, ch.levels):
            down = [a for a in allf if level[a] >= k]
            parts = {("make", a): -(float(ch.cost[a]) + (level[a] == k)) * same for a in down}
            money.append((terms(parts, revenue), float(b0[down].sum())))
        for g in lasts:
            parts = {("make", g): -(float(ch.cost[g]) + 1) * same}
            money.append((terms(parts, ship(g, qty * price)), float(b0[g])))
    ub = np.zeros(nd)
    for f in firsts:
        mine = (ex.agent == f) & ch.supply
        offered = np.bincount(ex.delivery[mine], weights=ex.quantity[mine], minlength=n)
        ub[col["buy", f] : col["buy", f] + n] = offered[:n]
    delay = min(cfg.params.signing_delay, n)
    for a in allf:
        ub[col["make", a] : col["make", a] + n] = ch.lines
        if level[a] > 0:
            ub[col["make", a] : col["make", a] + delay] = 0
    ub[o_x:] = 1.0
    units = np.zeros(nd)
    units[o_x:] = qty
    spend = np.zeros(nd)  # money the world pays: raw material and production
    for f in firsts:
        spend[col["buy", f] : col["buy", f] + n] = raw_price
    for a in allf:
        spend[col["make", a] : col["make", a] + n] = float(ch.cost[a])
    c = spend - np.concatenate([np.zeros(o_x), qty * price]) if profit else -units
    if integral:  # no idle purchases or production; worth less than a unit in all
        waste = 0.5 / max(1.0, float(ub[:o_x].sum()))
        c = c + np.concatenate([np.full(o_x, waste), np.zeros(nk)])
    # the goods balances alone first: if their optimum also keeps every cash balance
    # >= 0, it is the optimum of all (cash only takes solutions away)
    integer_from = 0 if integral else o_x if whole else None
    res = _run(c, goods, [], ub, units, min_units, integer_from)
    x = None if res.x is None else res.x[:nd]
    exact = x is not None and all((np.cumsum(m @ x) + start >= -1e-6).all() for m, start in money)
    if x is not None and not exact:
        res = _run(c, goods, money, ub, units, min_units, integer_from)
        x = None if res.x is None else res.x[:nd]
    if x is None:
        if res.status == 2:  # infeasible: min_units cannot be met
            return None
        raise RuntimeError(f"the bound's program failed: {res.message}")
    got_units = float(units @ x)
    dual = getattr(res, "mip_dual_bound", None)
    if whole and not profit and dual is not None and np.isfinite(dual):
        got_units = max(got_units, float(-dual))  # a MILP stops within a small gap
    money_left = float((qty * price) @ x[o_x:] - spend @ x)
    if not integral:
        return Solution(got_units, money_left, res.status == 0)
    xi = np.rint(x).astype(np.int64)
    made = np.array([xi[col["make", a] : col["make", a] + n] for a in allf])
    bought = {f: xi[col["buy", f] : col["buy", f] + n] for f in firsts}
    signed = sold[xi[o_x:] == 1]
    return Solution(
        float(units @ xi),
        money_left,
        res.status == 0,
        {"make": made, "buy": bought, "sell": signed},
    )


def _run(
    c: np.ndarray,
    goods: list[tuple[Any, float]],
    money: list[tuple[Any, float]],
    ub: np.ndarray,
    units: np.ndarray,
    min_units: float | None,
    integer_from: int | None,
) -> Any:
    """Solve with one stock variable a day per balance: change(d) - stock(d) +
    stock(d - 1) = 0, stock(-1) = start, stock >= 0 (sparse, unlike cumulative sums)."""
    balances = goods + money
    nd = len(c)
    n = balances[0][0].shape[0]
    nv = nd + len(balances) * n
    step = (identity(n, format="csr") - eye(n, k=-1, format="csr")).tocoo()
    data, rows, cols = [], [], []
    rhs = np.zeros(len(balances) * n)
    for i, (m, start) in enumerate(balances):
        m = m.tocoo()
        data += [m.data, -step.data]
        rows += [m.row + i * n, step.row + i * n]
        cols += [m.col, step.col + nd + i * n]
        rhs[i * n] = -start  # change(0) - stock(0) = -start
    a = coo_matrix(
        (np.concatenate(data), (np.concatenate(rows), np.concatenate(cols))),
        shape=(len(rhs), nv),
    ).tocsr()
    constraints = [LinearConstraint(a, rhs, rhs)]
    if min_units is not None:
        constraints.append(
            LinearConstraint(csr_matrix(np.concatenate([units, np.zeros(nv - nd)])), min_units)
        )
    integrality = np.zeros(nv)
    if integer_from is not None:
        integrality[integer_from:nd] = 1
    return milp(
        np.concatenate([c, np.zeros(nv - nd)]),
        constraints=constraints,
        bounds=Bounds(np.zeros(nv), np.concatenate([ub, np.full(nv - nd, np.inf)])),
        integrality=integrality,
        options={"time_limit": TIME_LIMIT},
    )


def flow_bound(
    cfg: WorldConfig, *, paying: bool = True, whole: bool = True, cash: bool = True
) -> float:
    """The share of demand :func:`solve` allows (see there for every constraint).

    ``paying=False`` counts all demand: then no strategy signs more and delivers it
    without a breach. With ``paying`` (the default) only demand priced at or above the
    chain's cheapest cost counts. ``whole=False`` and ``cash=False`` drop those
    constraints (a weaker bound: the linear relaxation the earlier bench used).
    """
    ch = chain(cfg)
    if ch.total == 0:
        return 0.0
    sol = solve(cfg, paying_only=paying, whole=whole, cash=cash)
    assert sol is not None
    return sol.units / ch.total


def best_profit(cfg: WorldConfig, share: float | None = None) -> tuple[float, float] | None:
    """(the most eq. 3 profit the world allows, the demand share it serves then); None
    if ``share`` of the demand cannot be served at all.

    Profit is the world's money (final revenue - raw material - production costs) over
    its initial balances, without eq. 3's inventory term; every unit goes through the
    chain the program finds cheapest within the lines. With ``share``, at least that
    share of the demand is served: comparing with ``best_profit(cfg)`` says what
    serving it costs the world.
    """
    ch = chain(cfg)
    need = None if share is None else share * ch.total
    sol = solve(cfg, paying_only=False, whole=False, cash=True, profit=True, min_units=need)
    if sol is None:
        return None
    b0 = float(np.asarray(cfg.initial_balances).sum())
    return sol.profit / b0, sol.units / max(ch.total, 1)


def plan(cfg: WorldConfig, *, paying_only: bool = False) -> dict[str, Any]:
    """A whole-unit plan that reaches the bound: each factory's production a day
    (``make``, factories x days), the raw units each first-level factory takes a day
    (``buy``) and the exogenous demand contracts to sign (``sell``, indices into
    ``cfg.exogenous``). Agents that follow it (tests/bench/test_scml_bounds.py) sign
    exactly the bound's demand: the bound is attained, not only an upper bound.
    """
    sol = solve(cfg, paying_only=paying_only, integral=True)
    assert sol is not None and sol.plan is not None
    return sol.plan
