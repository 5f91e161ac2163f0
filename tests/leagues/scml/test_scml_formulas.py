"""Exact-value tests of the formulas of the SCML 2021 spec (sections 4.1, 4.3, 4.4, 8)."""

from __future__ import annotations

import math

import pytest

from accord.leagues.scml.formulas import (
    PenaltyState,
    TradingPriceState,
    insufficient_funds_breach_level,
    insufficient_products_breach_level,
    liquidation_proceeds,
    profit,
    spot_buy_unit_price,
    spot_penalty,
    spot_sell_unit_price,
    trading_price,
)


def test_trading_price_with_no_trade_is_the_catalog_price():
    assert trading_price(17, [0, 0, 0], [0, 0, 0]) == 17.0


def test_trading_price_equation_1_by_hand():
    # d = 2, gamma = 0.9, Q_-1 = 50, cat = 10; trades on day 0 (4 @ 12) and day 2 (6 @ 15)
    g = 0.9
    num = g**3 * 50 * 10 + g**2 * 4 * 12 + g**0 * 6 * 15
    den = g**3 * 50 + g**2 * 4 + 6
    assert trading_price(10, [4, 0, 6], [12, 0, 15]) == pytest.approx(num / den, abs=1e-12)


def test_trading_price_discounts_per_calendar_day_not_per_trading_day():
    # a day without trade still discounts the past: the result differs from skipping it
    with_gap = trading_price(10, [5, 0, 0, 5], [20, 0, 0, 30])
    without_gap = trading_price(10, [5, 5], [20, 30])
    assert with_gap != pytest.approx(without_gap)
    g = 0.9
    expected = (g**4 * 500 + g**3 * 100 + 150) / (g**4 * 50 + g**3 * 5 + 5)
    assert with_gap == pytest.approx(expected, abs=1e-12)


def test_incremental_trading_price_matches_equation_1_every_day():
    qs = [3, 0, 7, 1, 0, 0, 9]
    mus = [11.0, 0.0, 14.0, 9.0, 0.0, 0.0, 12.5]
    state = TradingPriceState([10.0, 30.0])
    for d in range(len(qs)):
        state.update([qs[d], 0], [qs[d] * mus[d], 0])
        assert state.prices[0] == pytest.approx(trading_price(10, qs[: d + 1], mus[: d + 1]))
        assert state.prices[1] == pytest.approx(30.0)


def test_trading_price_rejects_mismatched_inputs():
    with pytest.raises(ValueError, match="equal length"):
        trading_price(10, [1, 2], [3])
    with pytest.raises(ValueError, match="gamma"):
        trading_price(10, [1], [3], gamma=1.5)


def test_spot_penalty_equation_2():
    # lambda = 0.1, alpha = 0.9: 0.1 * (0.81 * 10 + 0.9 * 0 + 1 * 4)
    assert spot_penalty([10, 0, 4]) == pytest.approx(0.1 * (0.81 * 10 + 4), abs=1e-12)


def test_penalty_history_is_alpha_discounted_and_includes_the_amount_about_to_be_bought():
    s = PenaltyState(2, 3)
    bought = [10, 0, 4]
    for d, q in enumerate(bought):
        # before buying on day d: penalty includes what is about to be bought
        assert s.penalty(1, 2, q) == pytest.approx(spot_penalty(bought[: d + 1]), abs=1e-12)
        s.bought_today[1, 2] += q
        s.close_day()
    assert s.history[1, 2] == pytest.approx(0.81 * 10 + 4)
    assert s.history[0].sum() == 0
    # buying more units today costs a higher penalty
    assert s.penalty(1, 2, 5) > s.penalty(1, 2, 2)


def test_spot_prices_and_rounding():
    assert spot_buy_unit_price(7, 0.2, 0.1) == 10  # ceil(9.24)
    assert spot_buy_unit_price(14.4, 0.2, 0.5) == 26  # ceil(25.92)
    assert spot_buy_unit_price(10, 0.0, 0.0) == 10  # no float slip to 11
    assert spot_sell_unit_price(8.4, 0.2, 0.0) == pytest.approx(7.0)
    assert spot_sell_unit_price(14.4, 0.2, 0.5) == pytest.approx(8.0)
    # the liquidation price divides by (1 + gp) once, not twice
    assert spot_sell_unit_price(15, 0.5, 0.0) == pytest.approx(10.0)


def test_breach_levels_table_1():
    assert insufficient_products_breach_level(6, 10) == 0.4
    assert insufficient_funds_breach_level(21, 5, 10) == 0.58
    assert insufficient_products_breach_level(10, 10) == 0.0
    assert insufficient_funds_breach_level(50, 5, 10) == 0.0
    assert insufficient_products_breach_level(0, 7) == 1.0
    assert insufficient_funds_breach_level(-5, 1, 1) == 1.0  # capped at the maximum level


def test_breach_example_of_section_4_4():
    # A sells 10 units of p at 5 to B; A has 6 units, B has 21 dollars; tp(p) = 7,
    # A's penalty 0.1, global penalty 0.2.
    a_level = insufficient_products_breach_level(6, 10)
    b_level = insufficient_funds_breach_level(21, 5, 10)
    price = spot_buy_unit_price(7, 0.2, 0.1)
    assert (a_level, b_level, price) == (0.4, 0.58, 10)
    assert 21 - 5 * 10 == -29  # B's final balance once declared bankrupt


def test_liquidation_proceeds_of_section_4_4():
    assert liquidation_proceeds([100, 110], [8.4, 14.4], 0.2, [0.0, 0.5]) == 1580
    assert liquidation_proceeds([3], [10.0], 0.0, [0.0]) == 30
    assert liquidation_proceeds([1], [10.0], 0.5, [0.0]) == 6  # floor(6.67)


def test_profit_equation_3_values_inventory_at_a_fraction_of_the_trading_price():
    # two factories of one agent type, consolidated
    p = profit([1100, 800], [1000, 1000], [[2, 4], [0, 10]], [10.0, 25.0], 0.5)
    inv = 2 * 10 + 4 * 25 + 10 * 25
    assert p == pytest.approx((1100 + 800 + 0.5 * inv - 2000) / 2000)
    assert profit([1000], [1000], [[0, 0]], [1.0, 1.0]) == 0.0
    assert profit([1000], [1000], [[4, 0]], [10.0, 1.0], 0.25) == pytest.approx(0.01)


def test_profit_rejects_bad_shapes():
    with pytest.raises(ValueError, match="shape"):
        profit([1], [1], [[1, 2, 3]], [1.0, 2.0])
    with pytest.raises(ValueError, match="positive"):
        profit([1], [0], [[1, 2]], [1.0, 2.0])


def test_ceil_tolerance_is_tiny():
    assert spot_buy_unit_price(10.000001, 0, 0) == 11
    assert math.isclose(spot_sell_unit_price(1, 0, 0), 1.0)
