"""Spec sections 2.1, 3, 6 and 7.2.1: timing within a day, exactly.

Production consumes inputs and adds outputs after execution (inputs and money received
today can be used today, outputs made today can be sold tomorrow); exogenous contracts
are revealed at signing; negotiations requested in ``step`` run the next day and end the
day they begin; signing delays; refusing to sign; the recorded signing and closing days.
"""

from __future__ import annotations

from scml_spec_helpers import Fixed, Scripted, bare_world, inject

from accord.leagues.scml.contracts import SIMULATOR_NAME, BreachKind, ContractStatus

A, B = 0, 1  # A: level 0 (input product 0, output 1); B: level 1 (input 1, output 2)
CATALOG = [10, 20, 40]


def _produce(n: int, day: int):
    def hook(agent: Scripted) -> None:
        agent.awi.set_production(n, day)

    return hook


def _snapshot(store: list):
    def hook(agent: Scripted) -> None:
        store.append((agent.awi.current_balance, agent.awi.current_inventory))

    return hook


def test_inputs_and_money_received_today_are_used_in_todays_production():
    seen_a: list = []
    seen_a_next: list = []
    a = Scripted({("init", 0): _produce(5, 1), ("step", 1): _snapshot(seen_a)})
    a.hooks[("before_step", 2)] = _snapshot(seen_a_next)
    b = Scripted({("init", 0): _produce(5, 1)})
    # A buys 5 raw units at 10 from the simulator for day 1 (revealed day 0)
    w = bare_world([a, b], [1, 1], [50, 1000], [2, 3], 4, [(A, 0, 5, 10, 1, 0, False)], CATALOG)
    w.ledger.inventory[A, 1] = 5
    w.ledger.goods_created[1] = 5
    sale = inject(w, A, B, 1, 5, 20, 1)  # A sells its 5 units of product 1 to B on day 1
    w.step()
    w.step()
    # in step() of day 1 (after execution, before production): 50 - 50 + 100, 5 raw units
    assert seen_a == [(100, (5, 0, 0))]
    # production of day 1 used the raw units and the money both received on day 1
    assert (int(w.ledger.balance[A]), tuple(w.ledger.inventory[A])) == (100 - 5 * 2, (0, 5, 0))
    assert (int(w.ledger.balance[B]), tuple(w.ledger.inventory[B])) == (
        1000 - 100 - 5 * 3,
        (0, 0, 5),
    )
    assert a.calls("on_failure") == [] and b.calls("on_failure") == []
    assert w.book.status[sale.id] is ContractStatus.EXECUTED and w.bb.breaches == ()
    w.step()
    assert seen_a_next == [(90, (0, 5, 0))]  # available at the beginning of the next day
    w.check_invariants()


def test_without_todays_sale_the_same_production_fails_for_lack_of_funds():
    a = Scripted({("init", 0): _produce(5, 1)})
    w = bare_world(
        [a, Scripted()], [1, 1], [50, 1000], [2, 3], 4, [(A, 0, 5, 10, 1, 0, False)], CATALOG
    )
    w.step()
    w.step()
    assert a.calls("on_failure") == [(1, (1, [0, 1, 2, 3, 4], "insufficient funds"))]
    assert (int(w.ledger.balance[A]), tuple(w.ledger.inventory[A])) == (0, (5, 0, 0))


def test_outputs_made_today_cannot_be_sold_today():
    # A holds 5 raw units, produces 5 units of product 1 on day 1 and must deliver 5 on day 1
    a = Scripted({("init", 0): _produce(5, 1)})
    w = bare_world([a, Scripted()], [1, 1], [1000, 1000], [2, 3], 4, (), CATALOG)
    w.ledger.inventory[A, 0] = 5
    w.ledger.goods_created[0] = 5
    inject(w, A, B, 1, 5, 20, 1)
    w.step()
    w.step()
    # the products are made after execution: a level-1.0 insufficient-products breach and
    # a spot purchase of 5 units at ceil(20 * 1.15 * (1 + 0.1 * 5)) = ceil(34.5) = 35
    assert [(r.agent, r.level, r.kind, r.day) for r in w.bb.breaches] == [
        (w.names[A], 1.0, BreachKind.INSUFFICIENT_PRODUCTS, 1)
    ]
    assert int(w.history.spot_bought[1, A]) == 5
    assert int(w.ledger.balance[A]) == 1000 - 5 * 35 + 5 * 20 - 5 * 2
    assert tuple(w.ledger.inventory[A]) == (0, 5, 0)  # today's output stays for tomorrow
    w.check_invariants()


def test_exogenous_contracts_are_revealed_h_days_ahead_in_sign_all_contracts():
    a, b = Scripted(), Scripted()
    w = bare_world([a, b], [1, 1], [1000, 1000], [2, 3], 6, [(A, 0, 3, 10, 4, 2, False)], CATALOG)
    for _ in range(5):
        w.step()
    signs = a.calls("sign_all_contracts")
    assert [d for d, _ in signs] == [2]
    ((c,),) = signs[0][1]
    assert (c.seller, c.buyer, c.product, c.unit_price, c.quantity, c.delivery, c.exogenous) == (
        SIMULATOR_NAME,
        w.names[A],
        0,
        10,
        3,
        4,
        True,
    )
    # before_step of the reveal day comes first ("after exogenous contracts are created")
    day2 = [n for d, _, n, _ in a.log if d == 2]
    assert day2.index("before_step") < day2.index("sign_all_contracts")
    assert (w.book.signed_on[c.id], w.book.closed_on[c.id], w.book.status[c.id]) == (
        2,
        4,
        ContractStatus.EXECUTED,
    )
    assert (int(w.ledger.balance[A]), int(w.ledger.inventory[A, 0])) == (1000 - 30, 3)
    assert b.calls("sign_all_contracts") == []  # exogenous contracts are private


def _request(when: str, day: int, accept: bool = True):
    def hook(agent: Scripted) -> None:
        agent.awi.request_negotiation(
            False, 1, 2, 20, 3, agent.awi.my_consumers[0], Fixed(None, accept=accept)
        )

    return {(when, day): hook}


def test_requests_in_before_step_run_today_and_in_step_run_tomorrow():
    for when, neg_day in (("before_step", 1), ("step", 2)):
        a = Scripted(_request(when, 1))
        b = Scripted()
        w = bare_world([a, b], [1, 1], [1000, 1000], [2, 3], 6, (), CATALOG)
        for _ in range(4):
            w.step()
        ((day, (c,)),) = a.calls("on_negotiation_success")
        assert day == neg_day and c.concluded_at == neg_day
        assert (c.unit_price, c.quantity, c.delivery) == (20, 2, 3)  # single-valued agenda
        assert w.book.signed_on[c.id] == neg_day  # signing delay 0: signed the same day
        assert [d for d, _ in b.calls("on_negotiation_success")] == [neg_day]


def test_negotiations_end_the_day_they_begin_with_the_table_2_settings():
    a = Scripted(_request("step", 0, accept=False))
    b = Scripted()
    b.respond_to_negotiation_request = lambda initiator, agenda: Fixed(None, accept=False)
    w = bare_world([a, b], [1, 1], [1000, 1000], [2, 3], 6, (), CATALOG)
    w.step()
    w.step()
    # 20 rounds (Table 2) within 21 rounds a day: it fails on day 1, the day it ran
    assert [(d, args[1]) for d, args in a.calls("on_negotiation_failure")] == [(1, "deadline")]
    assert w.negotiations.running == []


def test_agreements_are_signed_after_the_signing_delay():
    a = Scripted(_request("before_step", 1))
    b = Scripted()
    w = bare_world([a, b], [1, 1], [1000, 1000], [2, 3], 6, (), CATALOG, signing_delay=2)
    for _ in range(5):
        w.step()
    ((_, (c,)),) = a.calls("on_negotiation_success")
    assert c.concluded_at == 1
    assert [d for d, args in a.calls("sign_all_contracts") if args[0]] == [3]
    assert w.book.signed_on[c.id] == 3 and w.book.status[c.id] is ContractStatus.EXECUTED


def test_refusing_to_sign_cancels_without_penalty():
    a = Scripted(_request("before_step", 1))
    b = Scripted(sign=False)
    w = bare_world([a, b], [1, 1], [1000, 1000], [2, 3], 6, (), CATALOG)
    w.ledger.inventory[A, 1] = 2
    w.ledger.goods_created[1] = 2
    w.run()
    ((_, (c,)),) = a.calls("on_negotiation_success")
    assert w.book.status[c.id] is ContractStatus.CANCELLED and w.book.closed_on[c.id] == 1
    assert c.id not in w.book.signed_on
    ((day, (signed, cancelled, rejectors)),) = a.calls("on_contracts_finalized")
    assert (day, signed, [x.id for x in cancelled], rejectors) == (1, [], [c.id], [[w.names[B]]])
    assert w.bb.breaches == () and w.history.bankruptcies == []
    assert (int(w.ledger.balance[A]), int(w.ledger.balance[B])) == (1000, 1000)
    assert [x.id for x in a.awi.contracts()] == []  # never became a contract
