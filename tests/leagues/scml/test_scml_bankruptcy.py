"""The bankruptcy procedure of section 4.2 with the worked example of section 4.4."""

from __future__ import annotations

import numpy as np
import pytest

from accord.leagues.scml.bankruptcy import FutureContract, plan_bankruptcy
from accord.leagues.scml.formulas import liquidation_proceeds, spot_buy_unit_price


def _example_contracts() -> tuple[FutureContract, list[FutureContract]]:
    sell_cost = spot_buy_unit_price(14.4, 0.2, 0.5)  # B's spot buy price for p'
    assert sell_cost == 26
    causing = FutureContract("c0", is_sell=False, quantity=10, unit_cost=5, delivery=4, signed_at=3)
    future = [
        FutureContract("c1", True, 50, sell_cost, 4, 0),
        FutureContract("c2", False, 70, 5, 5, 2),  # c3 was signed before c2
        FutureContract("c3", True, 50, sell_cost, 5, 1),
        FutureContract("c4", False, 10, 20, 6, 3),
        FutureContract("c5", False, 16, 4, 7, 4),
    ]
    return causing, future


def test_bankruptcy_example_of_section_4_4():
    proceeds = liquidation_proceeds([100, 110], [8.4, 14.4], 0.2, [0.0, 0.5])
    assert proceeds == 1580
    causing, future = _example_contracts()
    plan = plan_bankruptcy(cash=21, liquidation=proceeds, causing=causing, future=future)
    assert plan.start_cash == 1601  # 1580 + 21
    assert plan.causing_quantity == 10  # the causing contract is executed in full: 50 dollars
    assert plan.available == 1551
    assert plan.future_value == 3214
    assert plan.order == ["c1", "c3", "c2", "c4", "c5"]
    assert plan.cash_after["c1"] == 251
    assert plan.quantities["c3"] == 9
    assert plan.cash_after["c3"] == 17
    # The spec's example divides the 9 units (floor(9/5) = 1, 4 dollars left, c5 gets 1).
    # The procedure divides the 17 dollars: c2 gets floor(17/5) = 3 units, 2 dollars
    # remain, c4 (20 a unit) and c5 (4 a unit) get floor(2/20) = floor(2/4) = 0 units and
    # are nullified. We follow the procedure (see the reading notes of the spec).
    assert plan.quantities["c2"] == 3
    assert plan.cash_after["c2"] == 2
    assert plan.quantities["c4"] == 0 and plan.quantities["c5"] == 0
    assert plan.nullified == ["c4", "c5"]
    assert plan.remaining == 2
    assert plan.quantities["c1"] == 50


def test_whole_delivery_day_fits_then_every_contract_runs_in_full():
    future = [
        FutureContract("a", False, 5, 10, 3, 2),
        FutureContract("b", True, 2, 20, 3, 1),
    ]
    plan = plan_bankruptcy(cash=90, liquidation=0, causing=None, future=future)
    assert plan.quantities == {"a": 5, "b": 2}
    assert plan.remaining == 0


def test_causing_contract_is_partially_executed_when_cash_is_short():
    causing = FutureContract("x", False, 10, 7, 0, 0)
    plan = plan_bankruptcy(cash=20, liquidation=10, causing=causing, future=[])
    assert plan.causing_quantity == 4  # floor(30 / 7)
    assert plan.available == 2


def test_ties_are_broken_by_the_given_generator_reproducibly():
    future = [FutureContract(f"k{i}", False, 10, 1, 1, 0) for i in range(6)]
    o1 = plan_bankruptcy(15, 0, None, future, rng=np.random.default_rng(3)).order
    o2 = plan_bankruptcy(15, 0, None, future, rng=np.random.default_rng(3)).order
    assert o1 == o2
    assert sorted(o1) == [f"k{i}" for i in range(6)]


def test_negative_cash_is_rejected():
    with pytest.raises(ValueError, match="cash"):
        plan_bankruptcy(-1, 0, None, [])
