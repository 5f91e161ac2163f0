"""The words people use for the HUMAINE goods, and checks of agents' bundles.

The goods, units and recipes themselves live in :mod:`accord.leagues.humaine.goods`;
they are re-exported here for the agents.

>>> GOODS[0], UNITS["milk"]
('egg', 'cup')
>>> GOOD_WORDS["blueberries"]
'blueberry'
"""

from __future__ import annotations

from collections.abc import Mapping

from accord.core.errors import InvalidValue

from ..goods import GOODS, PLURALS, RECIPES, UNITS

__all__ = [
    "CAKE",
    "GOODS",
    "GOOD_WORDS",
    "PANCAKE",
    "PRODUCT_WORDS",
    "UNITS",
    "UNIT_WORDS",
    "bundle_cost",
    "check_bundle",
    "check_good",
    "unit_phrase",
]

CAKE: dict[str, int] = RECIPES["cake"]
"""Ingredients of one cake (section 3)."""
PANCAKE: dict[str, int] = RECIPES["pancake"]
"""Ingredients of one batch of pancakes (section 3)."""

GOOD_WORDS: dict[str, str] = {
    **{good: good for good in GOODS},
    **PLURALS,
    "choc": "chocolate",
    "choco": "chocolate",
    "cocoa": "chocolate",
    "blueberrys": "blueberry",
    "berries": "blueberry",
}
"""Every spelling the language layer maps onto a good."""

PRODUCT_WORDS: dict[str, str] = {
    "cake": "cake",
    "cakes": "cake",
    "pancake": "pancake",
    "pancakes": "pancake",
}
"""Words for the baked products (used for "ingredients for 2 cakes")."""

UNIT_WORDS: frozenset[str] = frozenset(
    str.split(
        """each cup cups ounce ounces oz teaspoon teaspoons tsp tsps tablespoon tablespoons tbsp
    packet packets pack packs pkt pkts package packages bag bags box boxes carton cartons bottle
    bottles bar bars unit units piece pieces pint pints batch batches extract chips"""
    )
)
"""Unit and container words that may sit between a quantity and a good."""


def unit_phrase(good: str, quantity: int) -> str:
    """English for ``quantity`` of ``good`` with its unit.

    >>> unit_phrase("egg", 2), unit_phrase("milk", 1), unit_phrase("blueberry", 3)
    ('2 eggs', '1 cup of milk', '3 packets of blueberries')
    """
    check_good(good)
    unit = UNITS[good]
    if unit == "each":
        return f"{quantity} {good}" + ("" if quantity == 1 else "s")
    noun = "blueberries" if good == "blueberry" else good
    unit_word = unit if quantity == 1 else unit + "s"
    return f"{quantity} {unit_word} of {noun}"


def check_good(good: str) -> str:
    """Return ``good`` if it is one of the seven goods, else raise ``InvalidValue`` (a ``ValueError``).

    >>> check_good("sugar")
    'sugar'
    """
    if good not in UNITS:
        raise InvalidValue(f"unknown good {good!r}; expected one of {', '.join(GOODS)}")
    return good


def check_bundle(bundle: Mapping[str, int]) -> dict[str, int]:
    """Validate a bundle ``{good: quantity}`` (known goods, non-negative integers).

    >>> check_bundle({"egg": 2, "milk": 0})
    {'egg': 2}
    """
    out: dict[str, int] = {}
    for good, qty in bundle.items():
        check_good(good)
        if isinstance(qty, bool) or not isinstance(qty, int) or qty < 0:
            raise InvalidValue(f"quantity of {good} must be a non-negative integer, got {qty!r}")
        if qty:
            out[good] = qty
    return out


def bundle_cost(bundle: Mapping[str, int], unit_costs: Mapping[str, float]) -> float:
    """Seller cost ``sum_g n_g c_g`` of a bundle.

    >>> round(bundle_cost({"egg": 5}, {"egg": 0.32}), 2)
    1.6
    """
    return float(sum(qty * unit_costs[good] for good, qty in bundle.items()))
