"""A planning agent's day: run the lines on what it has, then ask its partners to trade.

Shared by the ``trader`` and ``market`` agents. Each decides *what* it wants (from its
own plan) and which negotiator conducts a session; the routine does the rest the same
way for both: production, the last-day stop, the partners, the product, the price
range and the negotiation quota.

Example:
    >>> price_range(10)
    (5, 15)
    >>> price_range(1)
    (1, 2)
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from accord.core import Negotiator
from accord.leagues.scml.awi import AWI

__all__ = ["Want", "price_range", "produce", "request_from_all", "run_day"]

#: what an agent asks for: the quantity range and the delivery days (first, last)
Want = tuple[tuple[int, int], tuple[int, int]]


def price_range(catalog_price: float) -> tuple[int, int]:
    """Unit prices a request spans: half to one and a half times the catalog price."""
    return max(1, int(catalog_price * 0.5)), max(2, int(np.ceil(catalog_price * 1.5)))


def produce(awi: AWI) -> int:
    """Run as many lines as the inputs in stock and the cash for the cost allow."""
    inv = awi.current_inventory
    make = min(awi.n_lines, inv[awi.my_input_product], awi.current_balance // max(1, awi.cost))
    awi.set_production(int(make))
    return int(make)


def request_from_all(
    awi: AWI,
    is_buy: bool,
    partners: tuple[str, ...],
    want: Want,
    negotiator: Callable[[bool], Negotiator],
) -> None:
    """Ask every partner in turn, while the quota lasts, with a fresh negotiator each."""
    quantity, days = want
    product = awi.my_input_product if is_buy else awi.my_output_product
    prices = price_range(awi.catalog_prices[product])
    for partner in partners:
        if awi.quota_left <= 0:
            break
        awi.request_negotiation(
            is_buy, product, quantity, prices, days, partner, negotiator(is_buy)
        )


def run_day(
    awi: AWI,
    want: Callable[[bool], Want | None],
    negotiator: Callable[[bool], Negotiator],
) -> None:
    """Produce, then (unless tomorrow is past the end) request purchases, then sales.

    ``want(is_buy)`` is asked only when there are partners on that side, after the
    purchases were requested for the sales; ``None`` requests nothing.
    """
    produce(awi)
    if awi.current_step + 1 >= awi.n_steps:
        return
    for is_buy in (True, False):
        partners = awi.my_suppliers if is_buy else awi.my_consumers
        if not partners:
            continue
        wanted = want(is_buy)
        if wanted is not None:
            request_from_all(awi, is_buy, partners, wanted, negotiator)
