"""Goods, units, recipes and flavourings of HUMAINE (section 3 of the spec).

>>> validate_bundle({"eggs": 2, "Milk": 1})
{'egg': 2, 'milk': 1}
>>> validate_bundle({"bread": 1})
Traceback (most recent call last):
...
accord.leagues.humaine.goods.InvalidBundle: unknown good 'bread'; expected one of egg, flour, sugar, milk, chocolate, vanilla, blueberry
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from accord.core.errors import AccordError

__all__ = [
    "FLAVOURS",
    "GOODS",
    "PLURALS",
    "PRODUCTS",
    "RECIPES",
    "UNITS",
    "InvalidBundle",
    "normalize_good",
    "validate_bundle",
]

GOODS: tuple[str, ...] = ("egg", "flour", "sugar", "milk", "chocolate", "vanilla", "blueberry")
"""The seven goods, in the order of Appendix C."""

UNITS: dict[str, str] = {
    "egg": "each",
    "flour": "cup",
    "sugar": "cup",
    "milk": "cup",
    "chocolate": "ounce",
    "vanilla": "teaspoon",
    "blueberry": "packet",
}

PRODUCTS: tuple[str, ...] = ("cake", "pancake")

RECIPES: dict[str, dict[str, int]] = {
    "cake": {"egg": 2, "flour": 2, "milk": 1, "sugar": 1},
    "pancake": {"egg": 1, "flour": 2, "milk": 2},
}
"""Base ingredients of one cake and of one batch of pancakes."""

FLAVOURS: dict[str, tuple[str, ...]] = {
    "cake": ("chocolate", "vanilla"),
    "pancake": ("chocolate", "blueberry"),
}
"""The optional additives of each product (one of them per item)."""

PLURALS: dict[str, str] = {
    "eggs": "egg",
    "blueberries": "blueberry",
    "chocolates": "chocolate",
    "vanillas": "vanilla",
    "flours": "flour",
    "sugars": "sugar",
    "milks": "milk",
}
"""Plural spellings accepted for the goods."""


class InvalidBundle(AccordError, ValueError):
    """A bundle names an unknown good or a quantity that is not a non-negative integer."""


def normalize_good(name: str) -> str:
    """The canonical name of a good (case-insensitive, plurals accepted)."""
    key = str(name).strip().lower()
    key = PLURALS.get(key, key)
    if key not in UNITS:
        raise InvalidBundle(f"unknown good {name!r}; expected one of {', '.join(GOODS)}")
    return key


def _as_count(good: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InvalidBundle(f"quantity of {good} must be a whole number, got {value!r}")
    if isinstance(value, float):
        if not value.is_integer():
            raise InvalidBundle(f"quantity of {good} must be a whole number, got {value!r}")
        value = int(value)
    if value < 0:
        raise InvalidBundle(f"quantity of {good} must be >= 0, got {value}")
    return int(value)


def validate_bundle(quantity: Mapping[str, Any]) -> dict[str, int]:
    """Canonical ``{good: count}``; raises :class:`InvalidBundle` with the reason."""
    if not isinstance(quantity, Mapping):
        raise InvalidBundle(f"a bundle must be an object of good -> count, got {quantity!r}")
    out: dict[str, int] = {}
    for name, value in quantity.items():
        good = normalize_good(name)
        out[good] = out.get(good, 0) + _as_count(good, value)
    return out
