"""Agendas, offers, contracts and the public reports of the SCM world (spec 3.2, 4.1, 5.2).

An offer is the triple ``(unit_price, quantity, time)`` of section 3.2, in that order.

Example:
    >>> a = Agenda(is_buy=True, requester="00Rnd@1", partner="01Rnd@0", product=1,
    ...            unit_price=(5, 12), quantity=(1, 10), time=(3, 6))
    >>> a.buyer, a.seller, a.n_outcomes
    ('00Rnd@1', '01Rnd@0', 320)
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import NamedTuple

__all__ = [
    "QUANTITY",
    "SIMULATOR_NAME",
    "TIME",
    "UNIT_PRICE",
    "Agenda",
    "BreachKind",
    "BreachReport",
    "Contract",
    "ContractStatus",
    "FinancialReport",
    "Offer",
]

#: Positions of the issues in an offer tuple.
UNIT_PRICE, QUANTITY, TIME = 0, 1, 2
#: The name under which the simulator appears as a party of exogenous contracts.
SIMULATOR_NAME = "SIMULATOR"


class Offer(NamedTuple):
    """One offer: a value for every issue (no ranges)."""

    unit_price: int
    quantity: int
    time: int


@dataclass(frozen=True)
class Agenda:
    """A negotiation agenda (section 3.2): kind, requester, product and issue ranges.

    ``is_buy`` is from the requester's side. Each range is inclusive; a single value
    (``lo == hi``) makes the issue non-negotiable.
    """

    is_buy: bool
    requester: str
    partner: str
    product: int
    unit_price: tuple[int, int]
    quantity: tuple[int, int]
    time: tuple[int, int]

    @property
    def buyer(self) -> str:
        return self.requester if self.is_buy else self.partner

    @property
    def seller(self) -> str:
        return self.partner if self.is_buy else self.requester

    @property
    def n_outcomes(self) -> int:
        n = 1
        for lo, hi in (self.unit_price, self.quantity, self.time):
            n *= hi - lo + 1
        return n

    def contains(self, offer: tuple[int, int, int]) -> bool:
        """True if every value of ``offer`` lies in its range."""
        return all(
            lo <= v <= hi
            for v, (lo, hi) in zip(offer, (self.unit_price, self.quantity, self.time), strict=True)
        )


class ContractStatus(StrEnum):
    """Life cycle of a contract (section 3.2)."""

    AGREED = "agreed"  # negotiated (or revealed exogenous), not yet signed
    SIGNED = "signed"
    CANCELLED = "cancelled"  # a party did not sign
    NULLIFIED = "nullified"  # a party went bankrupt before execution
    EXECUTED = "executed"


@dataclass(frozen=True)
class Contract:
    """A contract ``(seller, buyer, product, offer)`` plus bookkeeping (section 3.2).

    Contracts are immutable; the world keeps their status. A contract reduced by a
    bankruptcy is replaced by a new one whose ``replaces`` names the old id.
    """

    id: str
    seller: str
    buyer: str
    product: int
    unit_price: int
    quantity: int
    delivery: int
    concluded_at: int
    exogenous: bool = False
    replaces: str | None = None

    @property
    def offer(self) -> Offer:
        return Offer(self.unit_price, self.quantity, self.delivery)

    @property
    def value(self) -> int:
        return self.unit_price * self.quantity

    def partner_of(self, name: str) -> str:
        """The other party from ``name``'s side."""
        return self.buyer if name == self.seller else self.seller


class BreachKind(StrEnum):
    INSUFFICIENT_FUNDS = "insufficient funds"
    INSUFFICIENT_PRODUCTS = "insufficient products"


class BreachReport(NamedTuple):
    """A breach as published on the bulletin board: agent, level, kind (and the day)."""

    agent: str
    level: float
    kind: BreachKind
    day: int


class FinancialReport(NamedTuple):
    """Periodic (and on-bankruptcy) financial report of one agent (section 5.2)."""

    agent: str
    day: int
    balance: int
    inventory_value: int
    breach_probability: float
    breach_level: float
    bankrupt: bool
