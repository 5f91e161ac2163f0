"""Contract execution, breach processing and bankruptcy (spec sections 4.1-4.3).

Functions of the :class:`~accord.leagues.scml.world.World`: they work on its arrays.
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
from accord.leagues.scml.signing import drop_negotiations_of

if TYPE_CHECKING:
    from accord.leagues.scml.world import World

__all__ = ["execute_day", "BankruptcyEvent"]

_SIGNED = ContractStatus.SIGNED
_EXECUTED = ContractStatus.EXECUTED
_NULLIFIED = ContractStatus.NULLIFIED


class BankruptcyEvent(dict):  # type: ignore[type-arg]
    """What happened at one bankruptcy (a plain dict, for reports)."""


def execute_day(w: World, day: int) -> None:
    due = w._due[day] if day < len(w._due) else []
    i = 0
    while i < len(due):  # bankruptcies may replace entries of ``due`` while we run
        cid = due[i]
        i += 1
        if w.status[cid] is _SIGNED:
            _execute(w, w.contracts[cid])


def _party(w: World, name: str) -> int:
    return w.index.get(name, -1)


def _breach(w: World, agent: int, level: float, kind: BreachKind, cid: str) -> None:
    if (agent, cid) not in w._breached:  # count contracts, not breach reports
        w._breached.add((agent, cid))
        w.n_breaches[agent] += 1
    w.breach_level_sum[agent] += level
    w.bb._publish_breach(BreachReport(w.names[agent], level, kind, w.day))


def _execute(w: World, c: Contract) -> None:
    p, q, u = c.product, c.quantity, c.unit_price
    s, b = _party(w, c.seller), _party(w, c.buyer)
    bankrupt = w.bankrupt
    s_active = s >= 0 and not bankrupt[s]
    b_active = b >= 0 and not bankrupt[b]
    delivered = q
    broke = False  # a party went bankrupt on this contract
    from_stock = s_active  # products leave the seller's inventory (else they are created)
    if s_active:
        w.n_due[s] += 1
        stock = int(w.inventory[s, p])
        if stock < q:
            _breach(
                w,
                s,
                insufficient_products_breach_level(stock, q),
                BreachKind.INSUFFICIENT_PRODUCTS,
                c.id,
            )
            k = q - stock
            price = spot_buy_unit_price(float(w.tp.prices[p]), w.gp, w.penalties.penalty(s, p, k))
            cost = k * price
            if w.balance[s] >= cost:
                w.balance[s] -= cost
                w.money_destroyed += cost
                w.inventory[s, p] += k
                w.goods_created[p] += k
                w.penalties.bought_today[s, p] += k
                w.spot_bought[w.day, s] += k
            else:
                _breach(
                    w,
                    s,
                    insufficient_funds_breach_level(int(w.balance[s]), price, k),
                    BreachKind.INSUFFICIENT_FUNDS,
                    c.id,
                )
                delivered = _bankrupt(w, s, c, owed=cost)
                s_active = from_stock = False
                broke = True
    value = delivered * u
    if b_active:
        w.n_due[b] += 1
        if w.balance[b] < value:
            _breach(
                w,
                b,
                insufficient_funds_breach_level(int(w.balance[b]), u, delivered),
                BreachKind.INSUFFICIENT_FUNDS,
                c.id,
            )
            delivered = _bankrupt(w, b, c, owed=value, quantity=delivered)
            value = delivered * u
            b_active = False
            broke = True
            _pay_from_estate(w, b, c.id, value)
        else:
            w.balance[b] -= value
    elif b >= 0:
        _pay_from_estate(w, b, c.id, value)
    else:
        w.money_created += value  # the simulator buys
    # products
    if from_stock:
        w.inventory[s, p] -= delivered
    else:
        w.goods_created[p] += delivered
    if b_active:
        w.inventory[b, p] += delivered
    else:
        w.goods_destroyed[p] += delivered
    # money
    if s_active:
        w.balance[s] += value
    else:
        w.money_destroyed += value
    if broke and c.exogenous:  # nothing moved: the simulator does not trade with an estate
        _nullify(w, c.id)
        return
    w.status[c.id] = _EXECUTED
    w.closed_on[c.id] = w.day
    w.executed_quantity[c.id] = delivered
    if delivered > 0:
        w.traded_quantity[p] += delivered
        w.traded_value[p] += value


def _pay_from_estate(w: World, agent: int, cid: str, value: int) -> None:
    reserved = w._reserved.pop(cid, 0)
    if reserved < value:
        raise RuntimeError(f"estate of agent {agent} reserved {reserved} for {cid}, owes {value}")
    w.estate_cash[agent] -= reserved
    w.money_destroyed += reserved - value  # unused reserve leaves the world


# -- bankruptcy ---------------------------------------------------------------------
def _nullify(w: World, cid: str) -> None:
    w.status[cid] = _NULLIFIED
    w.closed_on[cid] = w.day
    reserved = w._reserved.pop(cid, 0)
    if reserved:
        c = w.contracts[cid]
        b = _party(w, c.buyer)
        w.estate_cash[b] -= reserved
        w.money_destroyed += reserved


def _bankrupt(w: World, a: int, causing: Contract, owed: int, quantity: int | None = None) -> int:
    """Declare ``a`` bankrupt while executing ``causing``; return its executed quantity."""
    day = w.day
    name = w.names[a]
    cash = int(w.balance[a])
    w.reported_balance[a] = cash - owed
    w.bankrupt[a] = True
    w.bankrupt_on[a] = day
    w.balance[a] = 0
    tps = w.tp.prices
    ips = np.array([w.penalties.penalty(a, p) for p in range(w.n_products)])
    proceeds = liquidation_proceeds(w.inventory[a], tps, w.gp, ips)
    w.money_created += proceeds
    w.goods_destroyed += w.inventory[a]
    w.inventory[a] = 0
    w.commands[a, day:, :] = -1

    def unit_cost(c: Contract) -> int:
        if c.seller == name:
            return spot_buy_unit_price(float(tps[c.product]), w.gp, float(ips[c.product]))
        return c.unit_price

    def future_contract(c: Contract, q: int) -> FutureContract:
        return FutureContract(
            c.id, c.seller == name, q, unit_cost(c), c.delivery, w.signing_order[c.id]
        )

    future: list[Contract] = []
    for cid in w.agent_contracts[a]:
        c = w.contracts[cid]
        if w.status[cid] is not _SIGNED or cid == causing.id:
            continue
        other = _party(w, c.partner_of(name))
        if c.exogenous or (other >= 0 and w.bankrupt[other]):
            _nullify(w, cid)  # the simulator does not pay itself; estates do not trade
        else:
            future.append(c)
    q_causing = causing.quantity if quantity is None else quantity
    plan = plan_bankruptcy(
        cash,
        proceeds,
        None if causing.exogenous else future_contract(causing, q_causing),
        [future_contract(c, c.quantity) for c in future],
        rng=w.rng,
    )
    spent_causing = plan.causing_quantity * unit_cost(causing)
    if causing.seller == name:
        w.money_destroyed += spent_causing  # products bought on the spot market
    else:
        w._reserved[causing.id] = spent_causing
        w.estate_cash[a] += spent_causing
    nullified: dict[int, list[Contract]] = {}
    reduced: dict[int, list[Contract]] = {}
    for c in future:
        q = plan.quantities[c.id]
        other = _party(w, c.partner_of(name))
        target = c
        if q < c.quantity:
            _nullify(w, c.id)
            nullified.setdefault(other, []).append(c)
            if q == 0:
                continue
            target = _replace(w, c, q)
            reduced.setdefault(other, []).append(target)
        cost = q * unit_cost(c)
        if c.seller == name:
            w.money_destroyed += cost
        else:
            w._reserved[target.id] = cost
            w.estate_cash[a] += cost
    w.money_destroyed += plan.remaining
    w.bankruptcies.append(
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
    drop_negotiations_of(w, a)
    w._publish_report(a)
    for other in w._agent_order():
        if other != a:
            w._call(
                other,
                "on_agent_bankrupt",
                name,
                nullified.get(other, []),
                reduced.get(other, []),
            )
    return plan.causing_quantity


def _replace(w: World, c: Contract, quantity: int) -> Contract:
    new = Contract(
        id=w._new_id("c"),
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
    w.contracts[new.id] = new
    w.status[new.id] = _SIGNED
    w.signed_on[new.id] = w.signed_on.get(c.id, w.day)
    w.signing_order[new.id] = w.signing_order[c.id]
    due = w._due[c.delivery]
    due[due.index(c.id)] = new.id
    for party in (c.seller, c.buyer):
        k = _party(w, party)
        if k >= 0:
            w.agent_contracts[k].append(new.id)
    return new
