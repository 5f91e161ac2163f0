"""Contract execution, breach processing and bankruptcy (spec sections 4.1-4.3).

Functions of a :class:`~accord.leagues.scml.state.WorldState`: they change its
:class:`~accord.leagues.scml.state.Ledger` and :class:`~accord.leagues.scml.state.ContractBook`.
Money and goods enter or leave the world only here and in production, and every such
flow is counted (``money_created``, ``money_destroyed``, ``goods_created``,
``goods_destroyed`` of the ledger) so the conservation invariant can be checked every day.
"""

from __future__ import annotations

import numpy as np

from accord.core.errors import StateError
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
from accord.leagues.scml.state import WorldState

__all__ = ["BankruptcyEvent", "execute_day"]

_SIGNED = ContractStatus.SIGNED
_EXECUTED = ContractStatus.EXECUTED
_NULLIFIED = ContractStatus.NULLIFIED


class BankruptcyEvent(dict):  # type: ignore[type-arg]
    """What happened at one bankruptcy (a plain dict, for reports)."""


def execute_day(w: WorldState, day: int) -> None:
    due = w.book.due[day] if day < len(w.book.due) else []
    i = 0
    while i < len(due):  # bankruptcies may replace entries of ``due`` while we run
        cid = due[i]
        i += 1
        if w.book.status[cid] is _SIGNED:
            _execute(w, w.book.contracts[cid])


def _party(w: WorldState, name: str) -> int:
    return w.roster.party(name)


def _breach(w: WorldState, agent: int, level: float, kind: BreachKind, cid: str) -> None:
    w.history.breach(agent, cid, level)
    w.history.breaches[w.day] += 1
    w.bb.publish_breach(BreachReport(w.roster.names[agent], level, kind, w.day))


def _execute(w: WorldState, c: Contract) -> None:
    p, q, u = c.product, c.quantity, c.unit_price
    s, b = _party(w, c.seller), _party(w, c.buyer)
    L, m = w.ledger, w.market
    bankrupt = L.bankrupt
    s_active = s >= 0 and not bankrupt[s]
    b_active = b >= 0 and not bankrupt[b]
    delivered = q
    broke = False  # a party went bankrupt on this contract
    from_stock = s_active  # products leave the seller's inventory (else they are created)
    if s_active:
        w.history.n_due[s] += 1
        stock = int(L.inventory[s, p])
        if stock < q:
            _breach(
                w,
                s,
                insufficient_products_breach_level(stock, q),
                BreachKind.INSUFFICIENT_PRODUCTS,
                c.id,
            )
            k = q - stock
            price = spot_buy_unit_price(
                float(m.tp.prices[p]), m.global_penalty, m.penalties.penalty(s, p, k)
            )
            cost = k * price
            if L.balance[s] >= cost:
                L.balance[s] -= cost
                L.money_destroyed += cost
                L.inventory[s, p] += k
                L.goods_created[p] += k
                m.penalties.bought_today[s, p] += k
                w.history.spot_bought[w.day, s] += k
            else:
                _breach(
                    w,
                    s,
                    insufficient_funds_breach_level(int(L.balance[s]), price, k),
                    BreachKind.INSUFFICIENT_FUNDS,
                    c.id,
                )
                delivered = _bankrupt(w, s, c, owed=cost)
                s_active = from_stock = False
                broke = True
    value = delivered * u
    if b_active:
        w.history.n_due[b] += 1
        if L.balance[b] < value:
            _breach(
                w,
                b,
                insufficient_funds_breach_level(int(L.balance[b]), u, delivered),
                BreachKind.INSUFFICIENT_FUNDS,
                c.id,
            )
            delivered = _bankrupt(w, b, c, owed=value, quantity=delivered)
            value = delivered * u
            b_active = False
            broke = True
            _pay_from_estate(w, b, c.id, value)
        else:
            L.balance[b] -= value
    elif b >= 0:
        _pay_from_estate(w, b, c.id, value)
    else:
        L.money_created += value  # the simulator buys
    # products
    if from_stock:
        L.inventory[s, p] -= delivered
    else:
        L.goods_created[p] += delivered
    if b_active:
        L.inventory[b, p] += delivered
    else:
        L.goods_destroyed[p] += delivered
    # money
    if s_active:
        L.balance[s] += value
    else:
        L.money_destroyed += value
    if broke and c.exogenous:  # nothing moved: the simulator does not trade with an estate
        _nullify(w, c.id)
        return
    w.book.close(c.id, _EXECUTED, w.day)
    w.book.executed_quantity[c.id] = delivered
    if delivered > 0:
        m.traded_quantity[p] += delivered
        m.traded_value[p] += value


def _pay_from_estate(w: WorldState, agent: int, cid: str, value: int) -> None:
    L = w.ledger
    reserved = L.reserved.pop(cid, 0)
    if reserved < value:
        raise StateError(f"estate of agent {agent} reserved {reserved} for {cid}, owes {value}")
    L.estate_cash[agent] -= reserved
    L.money_destroyed += reserved - value  # unused reserve leaves the world


# -- bankruptcy ---------------------------------------------------------------------
def _nullify(w: WorldState, cid: str) -> None:
    L = w.ledger
    w.book.close(cid, _NULLIFIED, w.day)
    reserved = L.reserved.pop(cid, 0)
    if reserved:
        c = w.book.contracts[cid]
        b = _party(w, c.buyer)
        L.estate_cash[b] -= reserved
        L.money_destroyed += reserved


def _bankrupt(
    w: WorldState, a: int, causing: Contract, owed: int, quantity: int | None = None
) -> int:
    """Declare ``a`` bankrupt while executing ``causing``; return its executed quantity."""
    day = w.day
    L, m, book = w.ledger, w.market, w.book
    name = w.roster.names[a]
    cash = int(L.balance[a])
    L.reported_balance[a] = cash - owed
    L.bankrupt[a] = True
    L.bankrupt_on[a] = day
    L.balance[a] = 0
    tps, gp = m.tp.prices, m.global_penalty
    ips = np.array([m.penalties.penalty(a, p) for p in range(w.config.n_products)])
    proceeds = liquidation_proceeds(L.inventory[a], tps, gp, ips)
    L.money_created += proceeds
    L.goods_destroyed += L.inventory[a]
    L.inventory[a] = 0
    L.commands[a, day:, :] = -1

    def unit_cost(c: Contract) -> int:
        if c.seller == name:
            return spot_buy_unit_price(float(tps[c.product]), gp, float(ips[c.product]))
        return c.unit_price

    def future_contract(c: Contract, q: int) -> FutureContract:
        return FutureContract(
            c.id, c.seller == name, q, unit_cost(c), c.delivery, book.signing_order[c.id]
        )

    future: list[Contract] = []
    for cid in book.of_agent[a]:
        c = book.contracts[cid]
        if book.status[cid] is not _SIGNED or cid == causing.id:
            continue
        other = _party(w, c.partner_of(name))
        if c.exogenous or (other >= 0 and L.bankrupt[other]):
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
        L.money_destroyed += spent_causing  # products bought on the spot market
    else:
        L.reserved[causing.id] = spent_causing
        L.estate_cash[a] += spent_causing
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
            L.money_destroyed += cost
        else:
            L.reserved[target.id] = cost
            L.estate_cash[a] += cost
    L.money_destroyed += plan.remaining
    w.history.bankruptcies.append(
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
    w.negotiations.drop_party(a)
    w.publish_report(a)
    for other in w.clock.agent_order():
        if other != a:
            w.calls.call(
                other,
                "on_agent_bankrupt",
                name,
                nullified.get(other, []),
                reduced.get(other, []),
            )
    return plan.causing_quantity


def _replace(w: WorldState, c: Contract, quantity: int) -> Contract:
    new = Contract(
        id=w.book.new_id("c"),
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
    parties = [k for k in (_party(w, c.seller), _party(w, c.buyer)) if k >= 0]
    w.book.replace(c, new, parties, w.day)
    return new
