"""The worked examples of section 4.4, executed by the world itself."""

from __future__ import annotations

import numpy as np
import pytest
from scml_helpers import example_world, inject, rebase

from accord.leagues.scml import execution
from accord.leagues.scml.contracts import BreachKind, ContractStatus
from accord.leagues.scml.formulas import spot_buy_unit_price
from accord.leagues.scml.world import Phase

A, D, B, C = 0, 1, 2, 3
P, P2 = 1, 2  # "p" (B's input) and "p'" (B's output)


def test_breach_example_spot_price_10_levels_04_058_final_balance_minus_29():
    # lambda = 0.025 makes A's penalty for buying the missing 4 units exactly 0.1
    w = example_world(global_penalty=0.2, spot_lambda=0.025)
    w.market.tp.prices = np.array([10.0, 7.0, 20.0, 40.0])
    w.ledger.inventory[A, P] = 6
    rebase(w)
    inject(w, A, B, P, 10, 5, 4)
    w.phase = Phase.EXECUTION
    execution.execute_day(w.state, 4)
    w.check_invariants()
    assert [(b.agent, b.level, b.kind) for b in w.bb.breaches] == [
        (w.names[A], 0.4, BreachKind.INSUFFICIENT_PRODUCTS),
        (w.names[B], 0.58, BreachKind.INSUFFICIENT_FUNDS),
    ]
    assert w.history.spot_bought[4, A] == 4
    assert w.market.penalties.bought_today[A, P] == 4
    # A paid 4 x 10 on the spot market
    spent = 1000 - 4 * 10
    assert w.ledger.bankrupt[B] and w.ledger.reported_balance[B] == 21 - 50 == -29
    assert w.current_balances()[B] == -29
    # B's estate has only its 21 dollars (empty inventory): floor(21 / 5) = 4 units paid
    ev = w.history.bankruptcies[0]
    assert (ev["liquidation"], ev["plan"].causing_quantity) == (0, 4)
    assert w.ledger.balance[A] == spent + 4 * 5
    assert w.ledger.inventory[A, P] == 10 - 4
    assert w.bb.latest_reports()[w.names[B]].balance == -29


def test_bankruptcy_example_1580_1601_1551_3214_251_then_9_units_17_dollars():
    w = example_world(global_penalty=0.2, spot_lambda=0.025)
    w.market.tp.prices = np.array([10.0, 8.4, 14.4, 40.0])
    # B's penalty for p' is 0.5 (lambda * alpha * history), for p it is 0
    w.market.penalties.history[B, P2] = 0.5 / (0.025 * 0.9)
    w.ledger.inventory[A, P] = 6
    w.ledger.inventory[B, P] = 100
    w.ledger.inventory[B, P2] = 110
    rebase(w)
    c1 = inject(w, B, C, P2, 50, 10, 4)
    c3 = inject(w, B, C, P2, 50, 10, 5)  # c3 was signed before c2
    c2 = inject(w, D, B, P, 70, 5, 5)
    c4 = inject(w, D, B, P, 10, 20, 6)
    c5 = inject(w, D, B, P, 16, 4, 7)
    c0 = inject(w, A, B, P, 10, 5, 4, first=True)  # the contract that causes the bankruptcy
    w.phase = Phase.EXECUTION
    execution.execute_day(w.state, 4)
    w.check_invariants()
    ev = w.history.bankruptcies[0]
    plan = ev["plan"]
    assert ev["agent"] == w.names[B] and ev["causing"] == c0.id
    assert ev["liquidation"] == 1580
    assert plan.start_cash == 1601
    assert plan.causing_quantity == 10  # 50 dollars to A
    assert plan.available == 1551
    assert plan.future_value == 3214
    assert plan.cash_after[c1.id] == 251
    assert plan.quantities[c3.id] == 9 and plan.cash_after[c3.id] == 17
    # The spec's prose then divides the 9 units; the procedure divides the 17 dollars:
    # c2 gets floor(17 / 5) = 3 units, 2 dollars remain, c4 and c5 are nullified.
    assert plan.quantities[c2.id] == 3 and plan.remaining == 2
    assert plan.quantities[c4.id] == 0 and plan.quantities[c5.id] == 0
    # A received 50 dollars; A had 6 units and bought 4 on the spot market
    assert w.ledger.inventory[A, P] == 0
    # c1 executed normally on day 4: C got 50 units of p' and paid 500
    assert w.book.status[c1.id] is ContractStatus.EXECUTED
    assert w.ledger.inventory[C, P2] == 50 and w.ledger.balance[C] == 500
    # c2, c3 replaced by reduced contracts; c4, c5 nullified
    for c in (c2, c3, c4, c5):
        assert w.book.status[c.id] is ContractStatus.NULLIFIED
    reduced = {
        w.book.contracts[k].replaces: w.book.contracts[k]
        for k in w.book.contracts
        if w.book.contracts[k].replaces
    }
    assert reduced[c3.id].quantity == 9 and reduced[c2.id].quantity == 3
    assert set(reduced) == {c2.id, c3.id}
    # partners are told at once which of their contracts were nullified / reduced
    agents = w.agents
    (name, args) = [x for x in agents[C].calls if x[0] == "on_agent_bankrupt"][0]
    assert args[0] == w.names[B]
    assert [c.id for c in args[1]] == [c3.id] and [c.quantity for c in args[2]] == [9]
    (_, args) = [x for x in agents[D].calls if x[0] == "on_agent_bankrupt"][0]
    assert sorted(c.id for c in args[1]) == sorted([c2.id, c4.id, c5.id])
    assert [c.quantity for c in args[2]] == [3]
    (_, args) = [x for x in agents[A].calls if x[0] == "on_agent_bankrupt"][0]
    assert args[1:] == ([], [])
    assert [x for x in agents[B].calls if x[0] == "on_agent_bankrupt"] == []
    # day 5: the reduced contracts execute: D delivers 3 units for 15, C gets 9 units for 90
    w.ledger.inventory[D, P] += 3
    w.ledger.goods_created[P] += 3
    d_bal, c_bal = int(w.ledger.balance[D]), int(w.ledger.balance[C])
    w.day = 5
    execution.execute_day(w.state, 5)
    w.check_invariants()
    assert w.ledger.balance[D] == d_bal + 15 and w.ledger.inventory[D, P] == 0
    assert w.ledger.balance[C] == c_bal - 90 and w.ledger.inventory[C, P2] == 59
    assert w.ledger.estate_cash[B] == 0
    # money: B's 21 + 1580 proceeds went to A (50), spot purchases (1300 + 234), D (15), 2 destroyed
    assert int(w.bb.latest_reports()[w.names[B]].balance) == -29


@pytest.mark.parametrize("gp", [0.0, 0.15])
def test_seller_that_cannot_afford_the_spot_market_goes_bankrupt(gp):
    w = example_world(global_penalty=gp, spot_lambda=0.1)
    w.market.tp.prices = np.array([10.0, 20.0, 30.0, 40.0])
    w.ledger.balance[A] = 30  # cannot buy 10 units at >= 20
    w.ledger.balance[B] = 1000
    rebase(w)
    c = inject(w, A, B, P, 10, 25, 4)
    w.phase = Phase.EXECUTION
    execution.execute_day(w.state, 4)
    w.check_invariants()
    kinds = [(b.agent, b.kind) for b in w.bb.breaches]
    assert kinds == [
        (w.names[A], BreachKind.INSUFFICIENT_PRODUCTS),
        (w.names[A], BreachKind.INSUFFICIENT_FUNDS),
    ]
    assert w.ledger.bankrupt[A] and not w.ledger.bankrupt[B]
    # A's estate (30 dollars, nothing to liquidate) buys floor(30 / spot price) units for B
    price = spot_buy_unit_price(20.0, gp, 0.0)
    plan = w.history.bankruptcies[0]["plan"]
    assert plan.causing_quantity == 30 // price == w.book.executed_quantity[c.id]
    assert w.ledger.inventory[B, P] == plan.causing_quantity
    assert w.ledger.balance[B] == 1000 - 25 * plan.causing_quantity  # B pays for those units only
    assert w.ledger.reported_balance[A] == 30 - 10 * spot_buy_unit_price(20.0, gp, 0.1 * 10)
