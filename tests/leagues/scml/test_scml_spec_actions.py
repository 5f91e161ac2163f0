"""Spec section 7.2: the agent's callbacks and actions, with exact schedules.

Schedule production (a day range, any or a given line, the latest or the earliest
day), cancel production, set production, available-for-production slots, requesting
negotiations with negotiators, and the init/before_step/step callbacks.
"""

from __future__ import annotations

import numpy as np
import pytest
from scml_spec_helpers import Fixed, Scripted, bare_world

from accord.leagues.scml.world import Phase

CATALOG = [10, 20, 40]


def _world(n_steps: int = 6):
    a, b = Scripted(), Scripted()
    w = bare_world([a, b], [1, 1], [1000, 1000], [2, 3], n_steps, (), CATALOG)
    return w, a, b


def _pairs(days, lines) -> list[tuple[int, int]]:
    return list(zip(days.tolist(), lines.tolist(), strict=True))


def test_schedule_production_latest_and_earliest_within_a_day_range():
    w, a, _ = _world()
    awi = a.awi
    assert _pairs(*awi.schedule_production(0, 3, step=(2, 4), method="latest")) == [
        (4, 0),
        (4, 1),
        (4, 2),
    ]
    assert _pairs(*awi.schedule_production(0, 2, step=(2, 4), method="earliest")) == [
        (2, 0),
        (2, 1),
    ]
    # a given line: the latest free day on that line only
    assert _pairs(*awi.schedule_production(0, 2, step=(2, 4), line=7)) == [(4, 7), (3, 7)]
    expected = np.full((6, 10), -1)
    expected[4, [0, 1, 2, 7]] = 0
    expected[2, [0, 1]] = 0
    expected[3, 7] = 0
    assert (w.ledger.commands[0] == expected).all()
    # not enough free slots and partial_ok=False: nothing is scheduled
    days, _ = awi.schedule_production(0, 31, step=(2, 4), partial_ok=False)
    assert len(days) == 0 and (w.ledger.commands[0] == expected).all()
    # free slots: 3 days x 10 lines - 7 taken
    days, lines = awi.available_for_production(100, step=(2, 4), method="all")
    assert len(days) == 23 and (w.ledger.commands[0, days, lines] == -1).all()


def test_cancel_and_set_production():
    w, a, _ = _world()
    awi = a.awi
    awi.schedule_production(0, 2, step=(3, 3))
    assert awi.cancel_production(3, 1) is True
    assert awi.cancel_production(3, 1) is False  # nothing left there
    assert awi.cancel_production(99, 0) is False and awi.cancel_production(3, 10) is False
    assert w.ledger.commands[0, 3].tolist() == [0] + [-1] * 9
    assert awi.set_production(4, 3) == 4
    assert w.ledger.commands[0, 3].tolist() == [0] * 4 + [-1] * 6
    assert awi.set_production(0, 3) == 0 and (w.ledger.commands[0, 3] == -1).all()
    with pytest.raises(ValueError, match=r"n must be in \[0, 10\], got 11"):
        awi.set_production(11)


def test_production_asked_for_today_after_production_ran_moves_to_later_days():
    w, a, _ = _world()
    w.phase = Phase.REPORTS
    days, _ = a.awi.schedule_production(0, 2, step=(0, 1), method="earliest")
    assert days.tolist() == [1, 1]  # today's slots are gone: the next free ones are taken
    assert a.awi.set_production(3, 0) == 0  # too late for today
    assert a.awi.cancel_production(0, 0) is False
    assert (w.ledger.commands[0, 0] == -1).all() and w.ledger.commands[0, 1].tolist() == [0, 0] + [
        -1
    ] * 8


def test_request_negotiations_checks_its_negotiators():
    w, a, _ = _world()
    with pytest.raises(ValueError, match="expected 1 negotiators"):
        a.awi.request_negotiations(False, 1, 1, 20, 3, list(w.names[1:]), negotiators=[])
    with pytest.raises(ValueError, match="exactly one of controller= or negotiators="):
        a.awi.request_negotiations(False, 1, 1, 20, 3, list(w.names[1:]))
    assert a.awi.request_negotiations(
        False, 1, 1, 20, 3, list(w.names[1:]), negotiators=[Fixed(None)]
    ) == [True]
    (neg,) = w.negotiations.pending
    assert (neg.agenda.is_buy, neg.agenda.product, neg.agenda.quantity) == (False, 1, (1, 1))
    assert (neg.agenda.unit_price, neg.agenda.time) == ((20, 20), (3, 3))


def test_init_once_then_before_step_first_and_step_after_execution_each_day():
    w, a, b = _world(3)
    w.run()
    for agent in (a, b):
        names = [(d, ph, n) for d, ph, n, _ in agent.log]
        assert names[0] == (0, "init", "init")
        assert [x for x in names if x[2] == "init"] == [(0, "init", "init")]
        for d in range(3):
            today = [(ph, n) for dd, ph, n in names if dd == d and n != "init"]
            assert today == [("before_step", "before_step"), ("agent_step", "step")]
