"""The buyer's best allocation of purchased goods (exact).

Structure of the problem: item values are non-negative, so for a given number of cakes
the best plan makes as many pancake batches as the rest allows; each flavouring bonus
is linear between its minimum and maximum amount, so for a given number of flavoured
items the best split of the flavouring is a greedy fill (a fractional knapsack with
integer capacities). What remains is a small search over the number of cakes and the
number of chocolate cakes and pancakes, done on numpy grids.

>>> from accord.leagues.humaine.utility import BuyerUtility, ProductValue, Trapezoid
>>> u = BuyerUtility(ProductValue(20.0, {"vanilla": Trapezoid(2, 4, 2.0, 7.0)}),
...                  ProductValue(18.0, {"blueberry": Trapezoid(1, 3, 3.0, 4.0)}))
>>> plan = best_allocation(u, {"egg": 3, "flour": 4, "milk": 3, "sugar": 1,
...                            "vanilla": 4, "blueberry": 2})
>>> plan.value, plan.allocation.cake.quantity, plan.allocation.pancake.quantity
(48.5, 1, 1)
>>> plan.allocation.cake.supplements, plan.allocation.pancake.supplements
(({'vanilla': 4},), ({'blueberry': 2},))
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from .goods import InvalidBundle, validate_bundle
from .scoring import Allocation, ProductAllocation
from .utility import BuyerUtility, Trapezoid

__all__ = ["MAX_ITEMS", "Plan", "best_allocation"]

MAX_ITEMS = 1000
"""Most cakes plus pancake batches the goods may allow (far beyond any real round; the
search grows with the cube of it)."""


@dataclass(frozen=True)
class Plan:
    """The best allocation found and its value."""

    value: float
    allocation: Allocation


def _single(trap: Trapezoid | None, supply: int, max_items: int) -> tuple[np.ndarray, np.ndarray]:
    """For m = 0..max_items free items: best bonus using one flavouring of ``supply``
    units on at most m of them, and the number of items that achieves it."""
    best = np.zeros(max_items + 1)
    arg = np.zeros(max_items + 1, dtype=np.int64)
    if trap is None or max_items == 0:
        return best, arg
    k = np.arange(max_items + 1)
    lo, span, slope = trap.min_quantity, trap.max_quantity - trap.min_quantity, trap.slope
    left = supply - k * lo
    extra = np.minimum(left, k * span) * max(slope, 0.0)
    value = np.where(left >= 0, k * trap.min_value + extra, -np.inf)
    value[0] = 0.0
    # prefix maximum with its argmax
    for m in range(1, max_items + 1):
        if value[m] > best[m - 1]:
            best[m], arg[m] = value[m], m
        else:
            best[m], arg[m] = best[m - 1], arg[m - 1]
    return best, arg


def _shared(
    t1: Trapezoid | None, t2: Trapezoid | None, supply: int, k1_max: int, k2_max: int
) -> np.ndarray:
    """Bonus grid [k1, k2]: k1 cakes and k2 pancakes flavoured from one shared supply."""
    k1 = np.arange(k1_max + 1)[:, None] if t1 else np.zeros((1, 1), dtype=np.int64)
    k2 = np.arange(k2_max + 1)[None, :] if t2 else np.zeros((1, 1), dtype=np.int64)
    lo1, a1, s1, w1 = (
        (t1.min_quantity, t1.min_value, t1.slope, t1.max_quantity - t1.min_quantity)
        if t1
        else (0, 0.0, 0.0, 0)
    )
    lo2, a2, s2, w2 = (
        (t2.min_quantity, t2.min_value, t2.slope, t2.max_quantity - t2.min_quantity)
        if t2
        else (0, 0.0, 0.0, 0)
    )
    left = supply - k1 * lo1 - k2 * lo2
    cap1 = k1 * w1 if s1 > 0 else k1 * 0
    cap2 = k2 * w2 if s2 > 0 else k2 * 0
    r = np.maximum(left, 0)
    if s1 >= s2:
        x1 = np.minimum(r, cap1)
        x2 = np.minimum(r - x1, cap2)
    else:
        x2 = np.minimum(r, cap2)
        x1 = np.minimum(r - x2, cap1)
    value = k1 * a1 + k2 * a2 + x1 * max(s1, 0.0) + x2 * max(s2, 0.0)
    grid = np.where(left >= 0, value, -np.inf)
    out = np.full((k1_max + 1, k2_max + 1), -np.inf)
    out[: grid.shape[0], : grid.shape[1]] = grid
    return out


def _fill(count: int, lo: int, hi: int, extra: int) -> list[int]:
    """Amounts for ``count`` items: ``lo`` each plus ``extra`` spread up to ``hi``."""
    amounts = [lo] * count
    for i in range(count):
        add = min(extra, hi - lo)
        amounts[i] += add
        extra -= add
    return amounts


def _amounts(trap: Trapezoid, count: int, supply: int) -> list[int]:
    left = supply - count * trap.min_quantity
    span = trap.max_quantity - trap.min_quantity
    extra = min(left, count * span) if trap.slope > 0 else 0
    return _fill(count, trap.min_quantity, trap.max_quantity, extra)


def best_allocation(utility: BuyerUtility, ingredients: Mapping[str, int]) -> Plan:
    """The allocation of ``ingredients`` with the highest value under ``utility``.

    Raises :class:`~accord.leagues.humaine.goods.InvalidBundle` for a bad bundle or
    one that allows more than :data:`MAX_ITEMS` items."""
    have = validate_bundle(ingredients)
    egg, flour, milk, sugar = (have.get(g, 0) for g in ("egg", "flour", "milk", "sugar"))
    choc, van, blue = (have.get(g, 0) for g in ("chocolate", "vanilla", "blueberry"))
    cake_v, pan_v = utility.cake, utility.pancake
    tcc = cake_v.supplements.get("chocolate")
    tcv = cake_v.supplements.get("vanilla")
    tpc = pan_v.supplements.get("chocolate")
    tpb = pan_v.supplements.get("blueberry")

    nc_max = max(0, min(egg // 2, flour // 2, milk, sugar))
    items = nc_max + max(0, min(egg, flour // 2, milk // 2))
    if items > MAX_ITEMS:
        raise InvalidBundle(
            f"these goods make up to {items} cakes and pancake batches; the optimiser "
            f"handles at most {MAX_ITEMS}"
        )
    # no item takes more of a flavouring than the largest maximum: the rest is useless
    traps = [t for t in (tcc, tcv, tpc, tpb) if t is not None]
    useful = items * max((t.max_quantity for t in traps), default=0)
    choc, van, blue = min(choc, useful), min(van, useful), min(blue, useful)
    nc = np.arange(nc_max + 1)
    np_for = np.maximum(
        0, np.minimum.reduce([egg - 2 * nc, (flour - 2 * nc) // 2, (milk - nc) // 2])
    )
    np_max = int(np_for.max()) if len(np_for) else 0

    bestv, argv = _single(tcv, van, nc_max)
    bestb, argb = _single(tpb, blue, np_max)
    k1_max = min(nc_max, choc // tcc.min_quantity) if tcc else 0
    k2_max = min(np_max, choc // tpc.min_quantity) if tpc else 0
    shared = _shared(tcc, tpc, choc, k1_max, k2_max)

    best_value, best_key = -np.inf, (0, 0, 0, 0)
    for n_c in range(nc_max + 1):
        n_p = int(np_for[n_c])
        a1, a2 = min(k1_max, n_c), min(k2_max, n_p)
        grid = (
            shared[: a1 + 1, : a2 + 1]
            + bestv[n_c - np.arange(a1 + 1)][:, None]
            + bestb[n_p - np.arange(a2 + 1)][None, :]
        )
        idx = int(np.argmax(grid))
        k1, k2 = divmod(idx, a2 + 1)
        value = cake_v.unit_value * n_c + pan_v.unit_value * n_p + float(grid[k1, k2])
        if value > best_value + 1e-12:
            best_value, best_key = value, (n_c, n_p, k1, k2)

    n_c, n_p, k1, k2 = best_key
    kv = int(argv[n_c - k1])
    kb = int(argb[n_p - k2])
    cake_blocks: list[dict[str, int]] = []
    pan_blocks: list[dict[str, int]] = []
    if k1 or k2:
        lo1 = tcc.min_quantity if tcc else 0
        lo2 = tpc.min_quantity if tpc else 0
        left = choc - k1 * lo1 - k2 * lo2
        s1 = tcc.slope if tcc else -1.0
        s2 = tpc.slope if tpc else -1.0
        cap1 = k1 * (tcc.max_quantity - lo1) if tcc and s1 > 0 else 0
        cap2 = k2 * (tpc.max_quantity - lo2) if tpc and s2 > 0 else 0
        if s1 >= s2:
            x1 = min(left, cap1)
            x2 = min(left - x1, cap2)
        else:
            x2 = min(left, cap2)
            x1 = min(left - x2, cap1)
        if tcc:
            cake_blocks += [{"chocolate": q} for q in _fill(k1, lo1, tcc.max_quantity, x1)]
        if tpc:
            pan_blocks += [{"chocolate": q} for q in _fill(k2, lo2, tpc.max_quantity, x2)]
    if kv and tcv:
        cake_blocks += [{"vanilla": q} for q in _amounts(tcv, kv, van)]
    if kb and tpb:
        pan_blocks += [{"blueberry": q} for q in _amounts(tpb, kb, blue)]
    allocation = Allocation(
        ProductAllocation(n_c, tuple(cake_blocks)), ProductAllocation(n_p, tuple(pan_blocks))
    )
    return Plan(float(best_value), allocation)
