"""Random utility functions from the Appendix A ranges, and the original generator's
service (default port 7021): ``GET /generateUtility/{buyer|seller}``,
``POST /calculateUtility/{seller|buyer}``, ``POST /checkAllocation``, plus
``POST /optimizeAllocation`` (the buyer's best allocation).

Draws are uniform, rounded to cents, from a seeded ``numpy.random.Generator``:

>>> import numpy as np
>>> s = generate_seller_utility(np.random.default_rng(1))
>>> 0.25 <= s.costs["egg"] <= 0.5 and s.costs["egg"] == round(s.costs["egg"], 2)
True
>>> b = generate_buyer_utility(np.random.default_rng(1))
>>> b.cake.supplements["chocolate"].min_quantity, b.cake.supplements["chocolate"].max_quantity
(3, 6)
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from fastapi import APIRouter, FastAPI, Request
from pydantic import BaseModel, ConfigDict, Field

from accord.web.app import create_app
from accord.web.errors import WebError
from accord.web.requests import json_body, parse, read_json

from .goods import GOODS, InvalidBundle, validate_bundle
from .optimizer import best_allocation
from .scoring import Allocation, InvalidAllocation, buyer_value, check_allocation
from .utility import BuyerUtility, InvalidUtility, ProductValue, SellerUtility, Trapezoid

__all__ = [
    "BUYER_RANGES",
    "DEFAULT_PORT",
    "SELLER_COST_RANGES",
    "CalculateUtilityRequest",
    "CheckAllocationRequest",
    "OptimizeAllocationRequest",
    "UtilityGenerator",
    "create_utility_generator_app",
    "generate_buyer_utility",
    "generate_seller_utility",
]

DEFAULT_PORT = 7021

SELLER_COST_RANGES: dict[str, tuple[float, float]] = {
    "egg": (0.25, 0.50),
    "flour": (0.50, 1.00),
    "sugar": (0.50, 1.00),
    "milk": (0.20, 0.40),
    "chocolate": (0.20, 0.40),
    "vanilla": (0.20, 0.40),
    "blueberry": (0.25, 0.50),
}
"""Breakeven cost ranges per good (Appendix A)."""

BUYER_RANGES: dict[str, Any] = {
    "cake": {
        "value": (15.0, 30.0),
        "chocolate": {"quantity": (3, 6), "minValue": (2.0, 4.0), "maxValue": (4.0, 8.0)},
        "vanilla": {"quantity": (2, 4), "minValue": (2.0, 4.0), "maxValue": (4.0, 8.0)},
    },
    "pancake": {
        "value": (15.0, 30.0),
        "chocolate": {"quantity": (3, 6), "minValue": (2.0, 4.0), "maxValue": (4.0, 8.0)},
        "blueberry": {"quantity": (1, 3), "minValue": (2.0, 4.0), "maxValue": (4.0, 8.0)},
    },
}
"""Buyer parameter ranges (Appendix A's table, which is normative: cc = (3, 6))."""


def _cents(rng: np.random.Generator, lo: float, hi: float) -> float:
    return round(float(rng.uniform(lo, hi)), 2)


def generate_seller_utility(rng: np.random.Generator) -> SellerUtility:
    """Unit costs drawn uniformly from :data:`SELLER_COST_RANGES`, in cents."""
    return SellerUtility({g: _cents(rng, *SELLER_COST_RANGES[g]) for g in GOODS})


def generate_buyer_utility(rng: np.random.Generator) -> BuyerUtility:
    """Cake and pancake values and flavouring trapezoids from :data:`BUYER_RANGES`."""
    products = {}
    for prod in ("cake", "pancake"):
        spec = BUYER_RANGES[prod]
        value = _cents(rng, *spec["value"])
        sups = {}
        for flavour, p in spec.items():
            if flavour == "value":
                continue
            lo, hi = p["quantity"]
            sups[flavour] = Trapezoid(
                lo, hi, _cents(rng, *p["minValue"]), _cents(rng, *p["maxValue"])
            )
        products[prod] = ProductValue(value, sups)
    return BuyerUtility(products["cake"], products["pancake"])


class _Bad(WebError):
    """A request the generator refuses (the web layer's one error and body)."""


class _Body(BaseModel):
    model_config = ConfigDict(extra="allow")


class CalculateUtilityRequest(_Body):
    """``POST /calculateUtility/{role}``: a utility function and the bundle to value.

    A seller's bundle is ``{quantity: {good: n}, price}`` (price a number or
    ``{unit, value}``); a buyer's is ``{products: {cake: {...}, pancake: {...}}}``."""

    currencyUnit: str = "USD"
    utility: dict[str, Any]
    bundle: dict[str, Any]


class CheckAllocationRequest(_Body):
    """``POST /checkAllocation``: can these ingredients make this allocation?"""

    ingredients: dict[str, Any] = Field(default_factory=dict)
    allocation: dict[str, Any] = Field(default_factory=dict)


class OptimizeAllocationRequest(_Body):
    """``POST /optimizeAllocation``: the buyer's best allocation of ``ingredients``."""

    currencyUnit: str = "USD"
    utility: dict[str, Any]
    ingredients: dict[str, Any] = Field(default_factory=dict)


def _role(role: str) -> str:
    r = role.lower()
    if r in ("buyer", "human"):
        return "buyer"
    if r in ("seller", "agent"):
        return "seller"
    raise _Bad(404, f"unknown role {role!r}; expected buyer (or human) or seller (or agent)")


async def _json(request: Request) -> dict[str, Any]:
    body = await read_json(request)
    if not isinstance(body, dict):
        raise _Bad(422, f"expected a JSON object, got {type(body).__name__}")
    return body


def _need_bundle(body: dict[str, Any]) -> None:
    if not isinstance(body.get("bundle"), dict):
        raise _Bad(422, "bundle: required object is missing")


class UtilityGenerator:
    """The generator's routes; ``rng`` draws the utilities."""

    def __init__(self, rng: np.random.Generator) -> None:
        self.rng = rng

    def router(self) -> APIRouter:
        r = APIRouter()
        r.add_api_route("/generateUtility/{role}", self.generate, methods=["GET"])
        for path, endpoint, model in (
            ("/calculateUtility/{role}", self.calculate, CalculateUtilityRequest),
            ("/checkAllocation", self.check, CheckAllocationRequest),
            ("/optimizeAllocation", self.optimize, OptimizeAllocationRequest),
        ):
            r.add_api_route(path, endpoint, methods=["POST"], openapi_extra=json_body(model))
        return r

    async def generate(self, role: str, seed: int | None = None) -> dict[str, Any]:
        g = self.rng if seed is None else np.random.default_rng(seed)
        if _role(role) == "seller":
            return generate_seller_utility(g).to_wire()
        return generate_buyer_utility(g).to_wire()

    async def calculate(self, role: str, request: Request) -> dict[str, Any]:
        body = await _json(request)
        _need_bundle(body)
        req = parse(CalculateUtilityRequest, body, "/calculateUtility body")
        bundle = req.bundle
        try:
            if _role(role) == "seller":
                su = SellerUtility.from_wire(body)
                price = bundle.get("price")
                if isinstance(price, dict):
                    price = price.get("value")
                if isinstance(price, bool) or not isinstance(price, int | float):
                    raise _Bad(422, f"bundle.price must be a number, got {price!r}")
                if not math.isfinite(price):
                    raise _Bad(422, f"bundle.price must be finite, got {price!r}")
                value = su.value(validate_bundle(bundle.get("quantity") or {}), float(price))
                return {"currencyUnit": su.currency, "value": round(value, 2)}
            bu = BuyerUtility.from_wire(body)
            score = buyer_value(bu, Allocation.from_wire(bundle.get("products") or {}))
            return {
                "currencyUnit": bu.currency,
                "value": round(score.value, 2),
                "breakdown": score.breakdown,
            }
        except (InvalidUtility, InvalidBundle, InvalidAllocation) as e:
            raise _Bad(422, str(e)) from None

    async def check(self, request: Request) -> dict[str, Any]:
        body = await _json(request)
        try:
            allocation = Allocation.from_wire(body.get("allocation") or {})
            result = check_allocation(body.get("ingredients") or {}, allocation)
        except (InvalidBundle, InvalidAllocation) as e:
            raise _Bad(422, str(e)) from None
        return {
            "ingredients": body.get("ingredients") or {},
            "allocation": body.get("allocation") or {},
            "sufficient": result.sufficient,
            "rationale": result.rationale,
        }

    async def optimize(self, request: Request) -> dict[str, Any]:
        body = await _json(request)
        try:
            bu = BuyerUtility.from_wire(body)
            plan = best_allocation(bu, body.get("ingredients") or {})
        except (InvalidUtility, InvalidBundle) as e:
            raise _Bad(422, str(e)) from None
        return {
            "currencyUnit": bu.currency,
            "value": round(plan.value, 2),
            "allocation": {"products": plan.allocation.to_wire()},
        }


def create_utility_generator_app(seed: int | None = None) -> FastAPI:
    """The utility generator service; ``seed`` makes its draws reproducible."""
    return create_app(
        "Accord HUMAINE utility generator", UtilityGenerator(np.random.default_rng(seed))
    )
