"""The bankruptcy procedure of section 4.2, as a pure function.

Steps: liquidate the inventory at spot *sell* prices (floor of the proceeds), add the
agent's cash, execute the contract that caused the bankruptcy first, then honour the
future contracts in order of delivery day, then signing time (ties broken at random),
each to the extent possible: a contract gets ``min(q, floor(cash / unit_cost))`` units,
where the unit cost of a *sell* contract is the agent's spot *buy* price (the simulator
buys the products on the spot market) and that of a *buy* contract is its unit price.
Contracts that get zero units are nullified; the others are replaced by contracts with
the reduced quantities.

Example (section 4.4, with the normative procedure; see ``docs/scml.md``):
    >>> plan = plan_bankruptcy(
    ...     cash=21, liquidation=1580, causing=FutureContract("c0", False, 10, 5, 4, 3),
    ...     future=[FutureContract("c1", True, 50, 26, 4, 0),
    ...             FutureContract("c2", False, 70, 5, 5, 2),
    ...             FutureContract("c3", True, 50, 26, 5, 1),
    ...             FutureContract("c4", False, 10, 20, 6, 3),
    ...             FutureContract("c5", False, 16, 4, 7, 4)])
    >>> plan.available, plan.future_value, plan.quantities, plan.remaining
    (1551, 3214, {'c1': 50, 'c3': 9, 'c2': 3, 'c4': 0, 'c5': 0}, 2)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

from accord.core.errors import InvalidValue

__all__ = ["BankruptcyPlan", "FutureContract", "plan_bankruptcy"]


class FutureContract(NamedTuple):
    """One outstanding contract of the bankrupt agent, from the agent's side.

    ``unit_cost`` is what one unit costs the simulator: the agent's spot buy price for
    a sell contract, the contract's unit price for a buy contract.
    """

    id: str
    is_sell: bool
    quantity: int
    unit_cost: int
    delivery: int
    signed_at: float


@dataclass
class BankruptcyPlan:
    """The outcome of the procedure: executed quantities and the cash left at each stage."""

    liquidation: int
    start_cash: int
    causing_quantity: int
    available: int
    future_value: int
    quantities: dict[str, int] = field(default_factory=dict)
    order: list[str] = field(default_factory=list)
    cash_after: dict[str, int] = field(default_factory=dict)
    remaining: int = 0

    @property
    def nullified(self) -> list[str]:
        """Ids of future contracts that get no units at all."""
        return [cid for cid in self.order if self.quantities[cid] == 0]


def plan_bankruptcy(
    cash: int,
    liquidation: int,
    causing: FutureContract | None,
    future: list[FutureContract],
    rng: np.random.Generator | None = None,
) -> BankruptcyPlan:
    """Run the procedure on ``cash`` (the agent's balance, >= 0) plus ``liquidation``.

    ``causing`` is the contract whose breach caused the bankruptcy (or None) and is
    honoured first; ``future`` are all other outstanding contracts. ``rng`` breaks ties
    between contracts with equal delivery day and signing time.
    """
    if cash < 0 or liquidation < 0:
        raise InvalidValue(
            f"cash and liquidation must be >= 0, got cash={cash} liquidation={liquidation}"
        )
    total = int(cash) + int(liquidation)
    causing_q = 0
    if causing is not None:
        causing_q = _units(total, causing)
        total -= causing_q * causing.unit_cost
    plan = BankruptcyPlan(
        liquidation=int(liquidation),
        start_cash=int(cash) + int(liquidation),
        causing_quantity=causing_q,
        available=total,
        future_value=int(sum(c.quantity * c.unit_cost for c in future)),
    )
    ties = (rng or np.random.default_rng(0)).random(len(future))
    order = sorted(
        range(len(future)), key=lambda i: (future[i].delivery, future[i].signed_at, ties[i])
    )
    for i in order:
        c = future[i]
        q = _units(total, c)
        total -= q * c.unit_cost
        plan.quantities[c.id] = q
        plan.order.append(c.id)
        plan.cash_after[c.id] = total
    plan.remaining = total
    return plan


def _units(cash: int, c: FutureContract) -> int:
    if c.unit_cost <= 0:
        return int(c.quantity)
    return int(min(c.quantity, cash // c.unit_cost))
