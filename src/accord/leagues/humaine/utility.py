"""Seller and buyer utility functions of HUMAINE (Appendix A) and their wire form.

Seller: ``p - sum_g n_g c_g``.

>>> s = SellerUtility({"egg": 0.47, "flour": 0.96, "sugar": 0.96, "milk": 0.35})
>>> round(s.value({"egg": 2, "flour": 2, "milk": 1, "sugar": 1}, 8.21), 2)
4.04

Buyer flavouring bonus: a trapezoid, zero outside ``[min, max]``:

>>> t = Trapezoid(3, 6, 2.92, 6.22)
>>> t(2), t(3), round(t(4), 2), t(6), t(7)
(0.0, 2.92, 4.02, 6.22, 0.0)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from accord.core.errors import AccordError

from .goods import FLAVOURS, GOODS, PRODUCTS, UNITS, InvalidBundle, normalize_good, validate_bundle

__all__ = ["BuyerUtility", "InvalidUtility", "ProductValue", "SellerUtility", "Trapezoid"]


class InvalidUtility(AccordError, ValueError):
    """A utility function in wire form is missing a field or has an impossible value."""


def _number(where: str, value: Any) -> float:
    if isinstance(value, bool):
        raise InvalidUtility(f"{where} must be a number, got {value!r}")
    try:
        return float(value)
    except (TypeError, ValueError):
        raise InvalidUtility(f"{where} must be a number, got {value!r}") from None


def _get(where: str, obj: Any, key: str) -> Any:
    if not isinstance(obj, Mapping) or key not in obj:
        raise InvalidUtility(f"{where} needs a field {key!r}; got {obj!r}")
    return obj[key]


@dataclass(frozen=True)
class SellerUtility:
    """Unit costs ``c_g`` of a seller; missing goods cost 0."""

    costs: Mapping[str, float]
    currency: str = "USD"

    def __post_init__(self) -> None:
        clean = {normalize_good(g): float(c) for g, c in self.costs.items()}
        object.__setattr__(self, "costs", MappingProxyType(clean))

    def cost(self, quantity: Mapping[str, int]) -> float:
        """``sum_g n_g c_g`` of a bundle."""
        bundle = validate_bundle(quantity)
        return sum(n * self.costs.get(g, 0.0) for g, n in bundle.items())

    def value(self, quantity: Mapping[str, int], price: float) -> float:
        """Utility of selling ``quantity`` for ``price``: ``p - sum_g n_g c_g``."""
        return float(price) - self.cost(quantity)

    @classmethod
    def from_wire(cls, body: Mapping[str, Any]) -> SellerUtility:
        """From ``{currencyUnit, utility: {good: {type, unit, parameters: {unitcost}}}}``
        (the body of /setUtility) or from the inner ``utility`` object alone."""
        inner = body.get("utility", body) if isinstance(body, Mapping) else body
        if not isinstance(inner, Mapping) or not inner:
            raise InvalidUtility(f"a seller utility needs unit costs per good; got {body!r}")
        costs: dict[str, float] = {}
        for good, spec in inner.items():
            try:
                name = normalize_good(good)
            except InvalidBundle as e:
                raise InvalidUtility(str(e)) from None
            params = _get(f"utility.{good}", spec, "parameters")
            cost = _number(f"utility.{good}.parameters.unitcost", _get(good, params, "unitcost"))
            if cost < 0:
                raise InvalidUtility(f"utility.{good}.parameters.unitcost must be >= 0, got {cost}")
            costs[name] = cost
        currency = body.get("currencyUnit", "USD") if isinstance(body, Mapping) else "USD"
        return cls(costs, str(currency))

    def to_wire(self) -> dict[str, Any]:
        """The ``{currencyUnit, utility}`` object sent to an agent's /setUtility."""
        utility = {
            g: {"type": "unitcost", "unit": UNITS[g], "parameters": {"unitcost": self.costs[g]}}
            for g in GOODS
            if g in self.costs
        }
        return {"currencyUnit": self.currency, "utility": utility}


@dataclass(frozen=True)
class Trapezoid:
    """Extra value of a flavouring: ``min_value`` at ``min_quantity``, linear up to
    ``max_value`` at ``max_quantity``, zero outside that range (Appendix A)."""

    min_quantity: int
    max_quantity: int
    min_value: float
    max_value: float

    def __post_init__(self) -> None:
        if self.min_quantity < 1 or self.max_quantity < self.min_quantity:
            raise InvalidUtility(
                "a trapezoid needs 1 <= minQuantity <= maxQuantity, got "
                f"({self.min_quantity}, {self.max_quantity})"
            )

    @property
    def slope(self) -> float:
        """Extra value per unit above ``min_quantity``."""
        span = self.max_quantity - self.min_quantity
        return 0.0 if span == 0 else (self.max_value - self.min_value) / span

    def __call__(self, quantity: float) -> float:
        if quantity < self.min_quantity or quantity > self.max_quantity:
            return 0.0
        return self.min_value + (quantity - self.min_quantity) * self.slope

    @classmethod
    def from_wire(cls, where: str, spec: Mapping[str, Any]) -> Trapezoid:
        p = _get(where, spec, "parameters")
        lo = _number(f"{where}.minQuantity", _get(where, p, "minQuantity"))
        hi = _number(f"{where}.maxQuantity", _get(where, p, "maxQuantity"))
        if not (lo.is_integer() and hi.is_integer()):
            raise InvalidUtility(f"{where}: quantities must be whole numbers, got {lo}, {hi}")
        return cls(
            int(lo),
            int(hi),
            _number(f"{where}.minValue", _get(where, p, "minValue")),
            _number(f"{where}.maxValue", _get(where, p, "maxValue")),
        )

    def to_wire(self, unit: str) -> dict[str, Any]:
        return {
            "type": "trapezoid",
            "unit": unit,
            "parameters": {
                "minQuantity": self.min_quantity,
                "maxQuantity": self.max_quantity,
                "minValue": self.min_value,
                "maxValue": self.max_value,
            },
        }


@dataclass(frozen=True)
class ProductValue:
    """Value of one plain item and the trapezoids of its flavourings."""

    unit_value: float
    supplements: Mapping[str, Trapezoid] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.unit_value < 0:
            raise InvalidUtility(f"unitvalue must be >= 0, got {self.unit_value}")
        object.__setattr__(self, "supplements", MappingProxyType(dict(self.supplements)))


@dataclass(frozen=True)
class BuyerUtility:
    """The human's utility: values of cakes and pancake batches plus flavourings."""

    cake: ProductValue
    pancake: ProductValue
    currency: str = "USD"

    def product(self, name: str) -> ProductValue:
        if name == "cake":
            return self.cake
        if name == "pancake":
            return self.pancake
        raise InvalidUtility(f"unknown product {name!r}; expected cake or pancake")

    @classmethod
    def from_wire(cls, body: Mapping[str, Any]) -> BuyerUtility:
        """From ``{currencyUnit, utility: {cake|pancake: {type, unit, parameters:
        {unitvalue, supplement: {flavour: trapezoid}}}}}`` or the inner ``utility``."""
        if not isinstance(body, Mapping):
            raise InvalidUtility(f"a buyer utility must be an object, got {body!r}")
        inner = body.get("utility", body)
        products: dict[str, ProductValue] = {}
        for prod in PRODUCTS:
            spec = _get("utility", inner, prod)
            params = _get(f"utility.{prod}", spec, "parameters")
            value = _number(f"utility.{prod}.parameters.unitvalue", _get(prod, params, "unitvalue"))
            sups: dict[str, Trapezoid] = {}
            for flavour, tspec in (params.get("supplement") or {}).items():
                if flavour not in FLAVOURS[prod]:
                    raise InvalidUtility(
                        f"{flavour!r} cannot flavour a {prod}; expected one of "
                        f"{', '.join(FLAVOURS[prod])}"
                    )
                sups[flavour] = Trapezoid.from_wire(f"utility.{prod}.supplement.{flavour}", tspec)
            products[prod] = ProductValue(value, sups)
        return cls(products["cake"], products["pancake"], str(body.get("currencyUnit", "USD")))

    def to_wire(self) -> dict[str, Any]:
        """The ``{currencyUnit, utility}`` object of the original wire format."""
        utility = {}
        for prod in PRODUCTS:
            pv = self.product(prod)
            utility[prod] = {
                "type": "unitvaluePlusSupplement",
                "unit": "each",
                "parameters": {
                    "unitvalue": pv.unit_value,
                    "supplement": {f: t.to_wire(UNITS[f]) for f, t in pv.supplements.items()},
                },
            }
        return {"currencyUnit": self.currency, "utility": utility}
