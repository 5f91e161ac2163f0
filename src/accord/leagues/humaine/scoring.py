"""The buyer's allocation of purchased goods into cakes and pancakes, and its value.

An allocation makes ``quantity`` items of each product; each item may carry one
flavouring (cake: chocolate or vanilla; pancakes: chocolate or blueberry), given as a
list of per-item supplement blocks as on the original wire. Money left over is worth
nothing, so the buyer's utility is the value of what the allocation bakes.

>>> from accord.leagues.humaine.utility import BuyerUtility, ProductValue, Trapezoid
>>> u = BuyerUtility(ProductValue(23.81, {"chocolate": Trapezoid(3, 6, 2.92, 6.22)}),
...                  ProductValue(27.43))
>>> a = Allocation.from_wire({"cake": {"quantity": 2, "supplement": [{"chocolate": {"quantity": 6}}]}})
>>> round(buyer_value(u, a).value, 2)
53.84
>>> check_allocation({"egg": 4, "flour": 4, "milk": 2, "sugar": 2, "chocolate": 5}, a).sufficient
False
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from accord.core.errors import AccordError

from .goods import FLAVOURS, GOODS, PRODUCTS, RECIPES, UNITS, InvalidBundle, validate_bundle
from .utility import BuyerUtility

__all__ = [
    "Allocation",
    "AllocationCheck",
    "BuyerScore",
    "InvalidAllocation",
    "ProductAllocation",
    "buyer_value",
    "check_allocation",
]


class InvalidAllocation(AccordError, ValueError):
    """An allocation is malformed (unknown product or flavour, bad counts)."""


@dataclass(frozen=True)
class ProductAllocation:
    """``quantity`` items of one product; ``supplements[i]`` flavours item ``i``
    (``{flavour: amount}``); items beyond the list are plain."""

    quantity: int = 0
    supplements: tuple[Mapping[str, int], ...] = ()

    def __post_init__(self) -> None:
        if isinstance(self.quantity, bool) or not isinstance(self.quantity, int):
            raise InvalidAllocation(f"quantity must be a whole number, got {self.quantity!r}")
        if self.quantity < 0:
            raise InvalidAllocation(f"quantity must be >= 0, got {self.quantity}")
        if len(self.supplements) > self.quantity:
            raise InvalidAllocation(
                f"{len(self.supplements)} supplement blocks for {self.quantity} items; "
                "give at most one block per item"
            )


@dataclass(frozen=True)
class Allocation:
    """How many cakes and pancake batches to make, with their flavourings."""

    cake: ProductAllocation = field(default_factory=ProductAllocation)
    pancake: ProductAllocation = field(default_factory=ProductAllocation)

    def product(self, name: str) -> ProductAllocation:
        return self.cake if name == "cake" else self.pancake

    def required(self) -> dict[str, int]:
        """Goods the allocation consumes (recipes plus every supplement named)."""
        need = dict.fromkeys(GOODS, 0)
        for prod in PRODUCTS:
            pa = self.product(prod)
            for good, n in RECIPES[prod].items():
                need[good] += n * pa.quantity
            for block in pa.supplements:
                for flavour, amount in block.items():
                    need[flavour] += amount
        return need

    @classmethod
    def from_wire(cls, products: Mapping[str, Any]) -> Allocation:
        """From ``{cake: {unit, quantity, supplement: [{chocolate: {unit, quantity}}, ...]},
        pancake: {...}}`` (also accepts ``{products: {...}}``)."""
        if not isinstance(products, Mapping):
            raise InvalidAllocation(f"an allocation must be an object, got {products!r}")
        if "products" in products and isinstance(products["products"], Mapping):
            products = products["products"]
        parts: dict[str, ProductAllocation] = {}
        for name, spec in products.items():
            if name not in PRODUCTS:
                raise InvalidAllocation(f"unknown product {name!r}; expected cake or pancake")
            if not isinstance(spec, Mapping) or "quantity" not in spec:
                raise InvalidAllocation(f"{name} needs a 'quantity'; got {spec!r}")
            qty = spec["quantity"]
            if isinstance(qty, float) and qty.is_integer():
                qty = int(qty)
            blocks = []
            for block in spec.get("supplement") or []:
                if not isinstance(block, Mapping):
                    raise InvalidAllocation(f"{name}: a supplement block must be an object")
                clean: dict[str, int] = {}
                for flavour, amount in block.items():
                    if flavour not in FLAVOURS[name]:
                        raise InvalidAllocation(
                            f"{flavour!r} cannot flavour a {name}; expected one of "
                            f"{', '.join(FLAVOURS[name])}"
                        )
                    raw = amount.get("quantity") if isinstance(amount, Mapping) else amount
                    try:
                        clean[flavour] = validate_bundle({flavour: raw})[flavour]
                    except InvalidBundle as e:
                        raise InvalidAllocation(f"{name} supplement: {e}") from None
                blocks.append(clean)
            parts[name] = ProductAllocation(qty, tuple(blocks))
        return cls(**parts)

    def to_wire(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for prod in PRODUCTS:
            pa = self.product(prod)
            out[prod] = {
                "unit": "each",
                "quantity": pa.quantity,
                "supplement": [
                    {f: {"unit": UNITS[f], "quantity": q} for f, q in block.items()}
                    for block in pa.supplements
                ],
            }
        return out


@dataclass(frozen=True)
class AllocationCheck:
    """Whether the goods suffice; ``rationale[good] = {need, have}`` for every good."""

    sufficient: bool
    rationale: dict[str, dict[str, int]]

    def deficits(self) -> dict[str, int]:
        return {
            g: r["need"] - r["have"] for g, r in self.rationale.items() if r["need"] > r["have"]
        }


def check_allocation(ingredients: Mapping[str, int], allocation: Allocation) -> AllocationCheck:
    """Check an allocation against the goods actually held."""
    have = validate_bundle(ingredients)
    need = allocation.required()
    rationale = {g: {"need": need[g], "have": have.get(g, 0)} for g in GOODS}
    return AllocationCheck(all(r["need"] <= r["have"] for r in rationale.values()), rationale)


@dataclass(frozen=True)
class BuyerScore:
    """Value of an allocation with the original's breakdown shape."""

    value: float
    breakdown: dict[str, Any]


def buyer_value(utility: BuyerUtility, allocation: Allocation) -> BuyerScore:
    """Value of the baked goods. An item earns one flavouring bonus (the spec's recipes
    say "chocolate or vanilla"); if a block names several, the best one counts."""
    total = 0.0
    breakdown: dict[str, Any] = {}
    for prod in PRODUCTS:
        pa = allocation.product(prod)
        if pa.quantity == 0:
            continue
        pv = utility.product(prod)
        base = pv.unit_value * pa.quantity
        sups: list[dict[str, Any]] = []
        for block in pa.supplements:
            best: tuple[float, str, int] | None = None
            for flavour, amount in block.items():
                trap = pv.supplements.get(flavour)
                bonus = trap(amount) if trap is not None else 0.0
                if best is None or bonus > best[0]:
                    best = (bonus, flavour, amount)
            if best is not None:
                sups.append({"good": best[1], "quantity": best[2], "utility": best[0]})
        extra = sum(s["utility"] for s in sups)
        total += base + extra
        breakdown[prod] = {"quantity": pa.quantity, "utility": base, "supplement": sups}
    return BuyerScore(total, breakdown)
