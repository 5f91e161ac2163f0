"""Contract execution, breach processing and bankruptcy (spec sections 4.1-4.3).

A mixin of :class:`~accord.leagues.scml.world.World`: it works on the world's arrays.
Money and goods enter or leave the world only here and in production, and every such
flow is counted (``money_created``, ``money_destroyed``, ``goods_created``,
``goods_destroyed``) so the conservation invariant can be checked every day.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from accord.leagues.scml.bankruptcy import FutureContract, plan_bankruptcy
from accord.leagues.scml.contracts import (
    BreachKind,
    BreachReport,
    Contract,
    ContractStatus,
)
from accord.leagues.scml.formulas import (
    insufficient_funds_breach_level,
    insufficient_products_breach_level,
    liquidation_proceeds,
    spot_buy_unit_price,
)

if TYPE_CHECKING:
    from accord.leagues.scml.world import World

__all__ = ["ExecutionMixin", "BankruptcyEvent"]

_SIGNED = ContractStatus.SIGNED
_EXECUTED = ContractStatus.EXECUTED
_NULLIFIED = ContractStatus.NULLIFIED


class BankruptcyEvent(dict):  # type: ignore[type-arg]
    """What happened at one bankruptcy (a plain dict, for reports)."""


class ExecutionMixin:
    """Step 3 of the simulation day."""

    def _execute_day(self: World, day: int) -> None:
        due = self._due[day] if day < len(self._due) else []
        i = 0
        while i < len(due):  # bankruptcies may replace entries of ``due`` while we run
            cid = due[i]
            i += 1
            if self.status[cid] is _SIGNED:
                self._execute(self.contracts[cid])

    def _party(self: World, name: str) -> int:
        return self.index.get(name, -1)

    def _breach(self: World, agent: int, level: float, kind: BreachKind, cid: str) -> None:
        if (agent, cid) not in self._breached:  # count contracts, not breach reports
            self._breached.add((agent, cid))
            self.n_breaches[agent] += 1
        self.breach_level_sum[agent] += level
        self.bb._publish_breach(BreachReport(self.names[agent], level, kind, self.day))

    def _execute(self: World, c: Contract) -> None:
        p, q, u = c.product, c.quantity, c.unit_price
        s, b = self._party(c.seller), self._party(c.buyer)
        bankrupt = self.bankrupt
        s_active = s >= 0 and not bankrupt[s]
        b_active = b >= 0 and not bankrupt[b]
        delivered = q
        from_stock = s_active  # products leave the seller's inventory (else they are created)
        if s_active:
            self.n_due[s] += 1
            stock = int(self.inventory[s, p])
            if stock < q:
                self._breach(
                    s,
                    insufficient_products_breach_level(stock, q),
                    BreachKind.INSUFFICIENT_PRODUCTS,
                    c.id,
                )
                k = q - stock
                price = spot_buy_unit_price(
                    float(self.tp.prices[p]), self.gp, self.penalties.penalty(s, p, k)
                )
                cost = k * price
                if self.balance[s] >= cost:
                    self.balance[s] -= cost
                    self.money_destroyed += cost
                    self.inventory[s, p] += k
                    self.goods_created[p] += k
                    self.penalties.bought_today[s, p] += k
                    self.spot_bought[self.day, s] += k
                else:
                    self._breach(
                        s,
                        insufficient_funds_breach_level(int(self.balance[s]), price, k),
                        BreachKind.INSUFFICIENT_FUNDS,
                        c.id,
                    )
                    delivered = self._bankrupt(s, c, owed=cost)
                    s_active = from_stock = False
        value = delivered * u
        if b_active:
            self.n_due[b] += 1
            if self.balance[b] < value:
                self._breach(
                    b,
                    insufficient_funds_breach_level(int(self.balance[b]), u, delivered),
                    BreachKind.INSUFFICIENT_FUNDS,
                    c.id,
                )
                delivered = self._bankrupt(b, c, owed=value, quantity=delivered)
                value = delivered * u
                b_active = False
                self._pay_from_estate(b, c.id, value)
            else:
                self.balance[b] -= value
        elif b >= 0:
            self._pay_from_estate(b, c.id, value)
        else:
            self.money_created += value  # the simulator buys
        # products
        if from_stock:
            self.inventory[s, p] -= delivered
        else:
            self.goods_created[p] += delivered
        if b_active:
            self.inventory[b, p] += delivered
        else:
            self.goods_destroyed[p] += delivered
        # money
        if s_active:
            self.balance[s] += value
        else:
            self.money_destroyed += value
        self.status[c.id] = _EXECUTED
        self.executed_quantity[c.id] = delivered
        if delivered > 0:
            self.traded_quantity[p] += delivered
            self.traded_value[p] += value

    def _pay_from_estate(self: World, agent: int, cid: str, value: int) -> None:
        reserved = self._reserved.pop(cid, 0)
        if reserved < value:
            raise RuntimeError(
                f"estate of agent {agent} reserved {reserved} for {cid}, owes {value}"
            )
        self.estate_cash[agent] -= reserved
        self.money_destroyed += reserved - value  # unused reserve leaves the world

    # -- bankruptcy ---------------------------------------------------------------------
    def _nullify(self: World, cid: str) -> None:
        self.status[cid] = _NULLIFIED
        reserved = self._reserved.pop(cid, 0)
        if reserved:
            c = self.contracts[cid]
            b = self._party(c.buyer)
            self.estate_cash[b] -= reserved
            self.money_destroyed += reserved

    def _bankrupt(
        self: World, a: int, causing: Contract, owed: int, quantity: int | None = None
    ) -> int:
        """Declare ``a`` bankrupt while executing ``causing``; return its executed quantity."""
        day = self.day
        name = self.names[a]
        cash = int(self.balance[a])
        self.reported_balance[a] = cash - owed
        self.bankrupt[a] = True
        self.bankrupt_on[a] = day
        self.balance[a] = 0
        tps = self.tp.prices
        ips = np.array([self.penalties.penalty(a, p) for p in range(self.n_products)])
        proceeds = liquidation_proceeds(self.inventory[a], tps, self.gp, ips)
        self.money_created += proceeds
        self.goods_destroyed += self.inventory[a]
        self.inventory[a] = 0
        self.commands[a, day:, :] = -1

        def unit_cost(c: Contract) -> int:
            if c.seller == name:
                return spot_buy_unit_price(float(tps[c.product]), self.gp, float(ips[c.product]))
            return c.unit_price

        def future_contract(c: Contract, q: int) -> FutureContract:
            return FutureContract(
                c.id, c.seller == name, q, unit_cost(c), c.delivery, self.signing_order[c.id]
            )

        future: list[Contract] = []
        for cid in self.agent_contracts[a]:
            c = self.contracts[cid]
            if self.status[cid] is not _SIGNED or cid == causing.id:
                continue
            other = self._party(c.partner_of(name))
            if c.exogenous or (other >= 0 and self.bankrupt[other]):
                self._nullify(cid)  # the simulator does not pay itself; estates do not trade
            else:
                future.append(c)
        q_causing = causing.quantity if quantity is None else quantity
        plan = plan_bankruptcy(
            cash,
            proceeds,
            future_contract(causing, q_causing),
            [future_contract(c, c.quantity) for c in future],
            rng=self.rng,
        )
        spent_causing = plan.causing_quantity * unit_cost(causing)
        if causing.seller == name:
            self.money_destroyed += spent_causing  # products bought on the spot market
        else:
            self._reserved[causing.id] = spent_causing
            self.estate_cash[a] += spent_causing
        nullified: dict[int, list[Contract]] = {}
        reduced: dict[int, list[Contract]] = {}
        for c in future:
            q = plan.quantities[c.id]
            other = self._party(c.partner_of(name))
            target = c
            if q < c.quantity:
                self._nullify(c.id)
                nullified.setdefault(other, []).append(c)
                if q == 0:
                    continue
                target = self._replace(c, q)
                reduced.setdefault(other, []).append(target)
            cost = q * unit_cost(c)
            if c.seller == name:
                self.money_destroyed += cost
            else:
                self._reserved[target.id] = cost
                self.estate_cash[a] += cost
        self.money_destroyed += plan.remaining
        self.bankruptcies.append(
            BankruptcyEvent(
                agent=name,
                day=day,
                causing=causing.id,
                liquidation=proceeds,
                cash=cash,
                final_balance=cash - owed,
                plan=plan,
            )
        )
        self._drop_negotiations_of(a)
        self._publish_report(a)
        for other in self._agent_order():
            if other != a:
                self._call(
                    other,
                    "on_agent_bankrupt",
                    name,
                    nullified.get(other, []),
                    reduced.get(other, []),
                )
        return plan.causing_quantity

    def _replace(self: World, c: Contract, quantity: int) -> Contract:
        new = Contract(
            id=self._new_id("c"),
            seller=c.seller,
            buyer=c.buyer,
            product=c.product,
            unit_price=c.unit_price,
            quantity=quantity,
            delivery=c.delivery,
            concluded_at=c.concluded_at,
            exogenous=c.exogenous,
            replaces=c.id,
        )
        self.contracts[new.id] = new
        self.status[new.id] = _SIGNED
        self.signing_order[new.id] = self.signing_order[c.id]
        due = self._due[c.delivery]
        due[due.index(c.id)] = new.id
        for party in (c.seller, c.buyer):
            k = self._party(party)
            if k >= 0:
                self.agent_contracts[k].append(new.id)
        return new
