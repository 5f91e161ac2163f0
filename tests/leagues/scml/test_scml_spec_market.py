"""Spec sections 4.1-4.3, 5.2 and 8 in a running world, with hand-computed values.

Equation 1 from executed (even partially executed) contracts, day by day; equation 2
across days (the alpha-discounted history plus the units about to be bought); the
financial reports' breach probability and level; equation 3 for a bankrupt agent and
consolidated over factories; an exogenous contract whose execution bankrupts its agent.
"""

from __future__ import annotations

import pytest
from scml_spec_helpers import Fixed, Scripted, bare_world, inject

from accord.leagues.scml.contracts import BreachKind, ContractStatus

CATALOG = [10, 20, 40]
A, B, C = 0, 1, 2  # A at level 0; B and C at level 1


def _three(balances, rows=(), **params):
    agents = [Scripted() for _ in range(3)]
    return bare_world(agents, [1, 2], balances, [2, 3, 3], 6, rows, CATALOG, **params)


def test_trading_prices_follow_equation_1_with_partial_execution_and_idle_days():
    w = _three([1000, 21, 1000])
    w.ledger.inventory[A, 1] = 12
    w.ledger.goods_created[1] = 12
    inject(w, A, B, 1, 10, 5, 0)  # B can pay for 4 units only (21 dollars): bankrupt
    inject(w, A, C, 1, 6, 30, 1)
    w.step()
    # day 0: 4 units at 5 traded (the quantity actually exchanged)
    assert w.book.executed_quantity == {"c1": 4}
    # the 4 units the simulator received for B's estate are destroyed, not kept
    assert int(w.ledger.inventory[B].sum()) == 0 and int(w.ledger.goods_destroyed[1]) == 4
    tp0 = (0.9 * 50 * 20 + 4 * 5) / (0.9 * 50 + 4)
    assert w.market.tp.prices[1] == pytest.approx(tp0, rel=1e-12)
    assert w.bb.market[0].trading_prices == pytest.approx((10.0, tp0, 40.0), rel=1e-12)
    w.step()
    tp1 = (0.9**2 * 50 * 20 + 0.9 * 4 * 5 + 6 * 30) / (0.9**2 * 50 + 0.9 * 4 + 6)
    assert w.market.tp.prices[1] == pytest.approx(tp1, rel=1e-12)
    w.step()  # no trade: the past is still discounted (calendar days)
    tp2 = (0.9**3 * 50 * 20 + 0.9**2 * 4 * 5 + 0.9 * 6 * 30) / (0.9**3 * 50 + 0.9**2 * 4 + 0.9 * 6)
    assert tp2 == pytest.approx(tp1, rel=1e-12)  # one trade-free day scales both sums alike
    assert w.market.tp.prices[1] == pytest.approx(tp2, rel=1e-12)
    assert tuple(w.market.tp.prices[[0, 2]]) == (10.0, 40.0)
    # equation 3: A keeps 2 units (12 - 4 - 6) valued at half the trading price
    assert int(w.ledger.balance[A]) == 1000 + 4 * 5 + 6 * 30
    scores = w.scores()
    assert scores[w.names[A]] == pytest.approx((1200 + 0.5 * 2 * tp2 - 1000) / 1000, rel=1e-12)
    # B: final balance 21 - 50 = -29, inventory liquidated (I_N = 0)
    assert scores[w.names[B]] == pytest.approx((-29 - 21) / 21, rel=1e-12)
    assert scores[w.names[C]] == pytest.approx((1000 - 180 + 0.5 * 6 * tp2 - 1000) / 1000)
    w.check_invariants()


def test_spot_penalty_grows_with_the_discounted_history_and_reports_count_breaches():
    # reporting every 2 days; A owes C 5 units on day 0 (has 2) and 2 units on day 1 (has 0)
    w = _three([1000, 1000, 1000], [(A, 0, 3, 10, 0, 0, False)], reporting_period=2)
    w.ledger.inventory[A, 1] = 2
    w.ledger.goods_created[1] = 2
    inject(w, A, C, 1, 5, 5, 0)
    inject(w, A, C, 1, 2, 5, 1)
    w.step()
    # day 0: ip = 0.1 * 3 (the 3 units about to be bought); ceil(20 * 1.15 * 1.3) = 30
    assert int(w.ledger.balance[A]) == 1000 - 3 * 10 - 3 * 30 + 5 * 5
    assert w.market.penalties.history[A, 1] == 3
    w.step()
    # day 1: ip = 0.1 * (0.9 * 3 + 2) = 0.47; tp = (45 * 20 + 25) / 50 = 18.5;
    # ceil(18.5 * 1.15 * 1.47) = ceil(31.274) = 32
    assert int(w.ledger.balance[A]) == 1000 - 30 - 90 + 25 - 2 * 32 + 2 * 5 == 851
    assert w.market.penalties.history[A, 1] == pytest.approx(0.9 * 3 + 2)
    assert [(r.agent, r.level, r.kind, r.day) for r in w.bb.breaches] == [
        (w.names[A], 0.6, BreachKind.INSUFFICIENT_PRODUCTS, 0),
        (w.names[A], 1.0, BreachKind.INSUFFICIENT_PRODUCTS, 1),
    ]
    reports = w.bb.financial_reports
    assert [r.day for r in reports] == [1, 1, 1]  # end of day 1 = (reporting period) - 1
    ra = w.bb.latest_reports()[w.names[A]]
    # 3 contracts came due (the exogenous one too), 2 breached, levels 0.6 and 1.0
    assert (ra.balance, ra.inventory_value, ra.bankrupt) == (851, 3 * 10, False)
    assert ra.breach_probability == pytest.approx(2 / 3)
    assert ra.breach_level == pytest.approx((0.6 + 1.0) / 3)
    rc = w.bb.latest_reports()[w.names[C]]
    assert (rc.balance, rc.breach_probability, rc.breach_level) == (1000 - 25 - 10, 0.0, 0.0)
    w.check_invariants()


def b_asks(w) -> bool:
    return w.agents[B].awi.request_negotiation(True, 1, 1, 20, 3, w.names[A], Fixed(None))


def test_an_exogenous_contract_that_bankrupts_its_agent_is_nullified():
    w = _three([50, 1000, 1000], [(A, 0, 10, 10, 0, 0, False)])
    w.step()
    (cid,) = [k for k, c in w.book.contracts.items() if c.exogenous]
    assert w.book.status[cid] is ContractStatus.NULLIFIED and w.book.closed_on[cid] == 0
    assert [(r.agent, r.level, r.kind) for r in w.bb.breaches] == [
        (w.names[A], 0.5, BreachKind.INSUFFICIENT_FUNDS)  # (100 - 50) / 100
    ]
    assert w.ledger.bankrupt[A] and int(w.ledger.reported_balance[A]) == 50 - 100
    assert int(w.ledger.inventory[A].sum()) == 0 and w.market.traded_quantity.sum() == 0
    report = w.bb.latest_reports()[w.names[A]]
    assert (report.day, report.balance, report.bankrupt) == (0, -50, True)
    assert w.bb.is_bankrupt(w.names[A])
    # no further negotiations with or by the bankrupt agent
    assert b_asks(w) is False
    assert w.agents[A].awi.request_negotiation(False, 1, 1, 20, 3, w.names[B], Fixed(None)) is False
    assert w.negotiations.pending == []
    w.check_invariants()


def test_equation_3_consolidates_the_factories_of_one_type():
    w = _three([1000, 400, 600])
    w.step()
    w.ledger.balance[:] = [900, 500, 800]
    w.ledger.inventory[B] = [0, 4, 2]
    w.ledger.inventory[C] = [0, 0, 1]
    tp = w.market.tp.prices  # the catalog prices: nothing traded
    assert tuple(tp) == (10.0, 20.0, 40.0)
    eps = w.config.inventory_valuation
    assert eps == 0.5  # footnote 10
    together = w.type_scores({"x": [B, C], "y": [A]})
    inv = 4 * 20 + 2 * 40 + 1 * 40
    assert together["x"] == pytest.approx((500 + 800 + eps * inv - 400 - 600) / 1000, rel=1e-12)
    assert together["y"] == pytest.approx(-0.1, rel=1e-12)
    alone = w.scores()
    assert alone[w.names[B]] == pytest.approx((500 + 0.5 * 160 - 400) / 400)
    assert alone[w.names[C]] == pytest.approx((800 + 0.5 * 40 - 600) / 600)
    # the default grouping is by agent type: all three are Scripted
    (only,) = w.type_scores().values()
    assert only == pytest.approx((2200 + 0.5 * 200 - 2000) / 2000)


def test_a_seller_that_cannot_pay_the_spot_market_breaches_twice_and_goes_bankrupt():
    # A owes C 10 units of product 1 at 25 and holds none, with 30 dollars
    w = _three([30, 1000, 1000])
    c = inject(w, A, C, 1, 10, 25, 0)
    w.step()
    # spot price with the 10 units about to be bought: ceil(20 x 1.15 x (1 + 0.1 x 10)) = 46;
    # the insufficient-funds level is taken on that purchase: (460 - 30) / 460
    assert [(r.agent, r.level, r.kind) for r in w.bb.breaches] == [
        (w.names[A], 1.0, BreachKind.INSUFFICIENT_PRODUCTS),
        (w.names[A], pytest.approx((460 - 30) / 460), BreachKind.INSUFFICIENT_FUNDS),
    ]
    assert w.ledger.bankrupt[A] and int(w.ledger.reported_balance[A]) == 30 - 460
    # the estate (30 dollars) buys floor(30 / ceil(20 x 1.15)) = 1 unit for C at the
    # bankruptcy's penalty (nothing bought yet: ip = 0)
    assert w.book.executed_quantity[c.id] == 1 and w.book.status[c.id] is ContractStatus.EXECUTED
    assert (int(w.ledger.inventory[C, 1]), int(w.ledger.balance[C])) == (1, 1000 - 25)
    assert w.scores()[w.names[A]] == pytest.approx((30 - 460 - 30) / 30)
    w.check_invariants()
