"""The buyer's best allocation of goods and a shopping plan for a budget.

Values come from the server's exact optimiser (every item carries at most one
flavouring), cached per inventory because simulated buyers ask for them often.

>>> from accord.leagues.humaine.utility import BuyerUtility, ProductValue, Trapezoid
>>> u = BuyerUtility(ProductValue(20.0, {"chocolate": Trapezoid(3, 6, 2.0, 5.0)}),
...                  ProductValue(10.0))
>>> v = Valuer(u)
>>> v.value({"egg": 2, "flour": 2, "milk": 1, "sugar": 1, "chocolate": 4})
23.0
>>> v.best({"egg": 3, "flour": 4, "milk": 3, "sugar": 1}).to_wire()["pancake"]["quantity"]
1
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from ..goods import GOODS, RECIPES
from ..optimizer import Plan as OptimalPlan
from ..optimizer import best_allocation
from ..scoring import Allocation
from ..utility import BuyerUtility


class Valuer:
    """Cached best-allocation values for one buyer utility (the server's exact optimiser,
    :func:`accord.leagues.humaine.optimizer.best_allocation`)."""

    def __init__(self, utility: BuyerUtility) -> None:
        self.utility = utility
        self._best = lru_cache(maxsize=65536)(self._best_uncached)

    def value(self, inventory: Mapping[str, int]) -> float:
        """Value of the best allocation of ``inventory``."""
        return self._best(_key(inventory)).value

    def best(self, inventory: Mapping[str, int]) -> Allocation:
        """The best allocation of ``inventory``."""
        return self._best(_key(inventory)).allocation

    def gain(self, inventory: Mapping[str, int], bundle: Mapping[str, int]) -> float:
        """Extra value ``bundle`` adds to ``inventory``."""
        merged = dict(inventory)
        for g, n in bundle.items():
            merged[g] = merged.get(g, 0) + n
        return self.value(merged) - self.value(inventory)

    def _best_uncached(self, inv: tuple[int, ...]) -> OptimalPlan:
        return best_allocation(self.utility, dict(zip(GOODS, inv, strict=True)))


def _key(inventory: Mapping[str, int]) -> tuple[int, ...]:
    return tuple(int(inventory.get(g, 0)) for g in GOODS)


@dataclass(frozen=True)
class Plan:
    """What to buy: products to make and the goods they take, with expected spend."""

    cakes: int
    pancakes: int
    goods: dict[str, int]
    expected_cost: float
    expected_value: float
    cake_unit: dict[str, int] = field(default_factory=dict)
    pancake_unit: dict[str, int] = field(default_factory=dict)

    def units(self) -> list[dict[str, int]]:
        """One bundle per product to make, cakes first.

        >>> Plan(1, 1, {}, 0.0, 0.0, {"egg": 2}, {"egg": 1}).units()
        [{'egg': 2}, {'egg': 1}]
        """
        return [dict(self.cake_unit)] * self.cakes + [dict(self.pancake_unit)] * self.pancakes


def shopping_plan(utility: BuyerUtility, budget: float, unit_prices: Mapping[str, float]) -> Plan:
    """The most valuable homogeneous product mix whose goods cost at most ``budget``
    at ``unit_prices`` (each product type uses one flavouring option for all items).

    >>> from accord.leagues.humaine.utility import BuyerUtility, ProductValue
    >>> u = BuyerUtility(ProductValue(20.0), ProductValue(15.0))
    >>> p = shopping_plan(u, 10.0, dict.fromkeys(GOODS, 1.0))
    >>> (p.cakes, p.pancakes, p.expected_cost)
    (0, 2, 10.0)
    """
    price = np.array([float(unit_prices.get(g, 0.0)) for g in GOODS])
    options = {prod: _flavour_options(utility, prod) for prod in ("cake", "pancake")}
    best: Plan | None = None
    for _c_name, c_val, c_goods in options["cake"]:
        c_unit = _recipe_vec("cake") + c_goods
        c_cost = float(c_unit @ price)
        for _p_name, p_val, p_goods in options["pancake"]:
            p_unit = _recipe_vec("pancake") + p_goods
            p_cost = float(p_unit @ price)
            max_c = int(budget // c_cost) if c_cost > 0 else 50
            max_p = int(budget // p_cost) if p_cost > 0 else 50
            nc = np.arange(min(max_c, 50) + 1)[:, None]
            npn = np.arange(min(max_p, 50) + 1)[None, :]
            cost = nc * c_cost + npn * p_cost
            value = nc * (utility.cake.unit_value + c_val) + npn * (
                utility.pancake.unit_value + p_val
            )
            value = np.where(cost <= budget + 1e-9, value, -1.0)
            i, j = np.unravel_index(int(np.argmax(value)), value.shape)
            if best is None or value[i, j] > best.expected_value + 1e-9:
                goods_vec = int(i) * c_unit + int(j) * p_unit
                goods = {g: int(goods_vec[k]) for k, g in enumerate(GOODS) if goods_vec[k]}
                best = Plan(
                    int(i),
                    int(j),
                    goods,
                    float(cost[i, j]),
                    float(value[i, j]),
                    _as_bundle(c_unit),
                    _as_bundle(p_unit),
                )
    assert best is not None
    return best


def _as_bundle(vec: np.ndarray) -> dict[str, int]:
    return {g: int(vec[k]) for k, g in enumerate(GOODS) if vec[k]}


def _recipe_vec(product: str) -> np.ndarray:
    return np.array([RECIPES[product].get(g, 0) for g in GOODS])


def _flavour_options(utility: BuyerUtility, product: str) -> list[tuple[str, float, np.ndarray]]:
    opts: list[tuple[str, float, np.ndarray]] = [("plain", 0.0, np.zeros(len(GOODS), dtype=int))]
    for flavour, trap in utility.product(product).supplements.items():
        for q in range(trap.min_quantity, trap.max_quantity + 1):
            vec = np.zeros(len(GOODS), dtype=int)
            vec[GOODS.index(flavour)] = q
            opts.append((flavour, trap(q), vec))
    return opts
