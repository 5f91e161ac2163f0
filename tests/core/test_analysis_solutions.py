"""Nash, Kalai-Smorodinsky and maximum welfare: hand-computed values, ties, reservations."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from accord.core.analysis import (
    kalai_point,
    max_welfare,
    nash_point,
    nash_product,
    pareto_frontier,
)
from accord.core.errors import InvalidScenario

PTS = [[1.0, 0.0], [0.8, 0.35], [0.6, 0.6], [0.3, 0.8], [0.0, 1.0], [0.2, 0.2]]


def test_nash_maximises_the_product_of_gains():
    # products: 0, 0.28, 0.36, 0.24, 0, 0.04
    assert nash_point(PTS) == 2


def test_nash_uses_reservation_values():
    # reservations (0.5, 0): gains only for u1 >= 0.5: (0.5,0) 0, (0.3,.35) .105, (.1,.6) .06
    assert nash_point(PTS, [0.5, 0.0]) == 1
    # reservations (0, 0.7): (0.3,0.1) .03, (0, 0.3) 0 -> index 3
    assert nash_point(PTS, [0.0, 0.7]) == 3


def test_no_rational_outcome_gives_none():
    assert nash_point(PTS, [0.9, 0.9]) is None
    assert kalai_point(PTS, [0.9, 0.9]) is None


def test_zero_products_tie_break_on_gain_sum_then_position():
    pts = [[0.5, 0.0], [1.0, 0.0], [0.2, 0.0]]
    assert nash_point(pts) == 1
    assert nash_point([[0.5, 0.5], [0.5, 0.5]]) == 0


def test_kalai_maximises_the_smallest_normalised_gain():
    # ideal (1, 1): min shares 0, .35, .6, .3, 0, .2
    assert kalai_point(PTS) == 2
    # reservations (0.5, 0.3): rational (1,0)? no (u2 < .3); (.8,.35): gains (.3,.05);
    # (.6,.6): (.1,.3). Ideal gains (.3, .3): shares min(1, 1/6)=.167, min(1/3, 1)=.333
    assert kalai_point(PTS, [0.5, 0.3]) == 2
    # skewed ideal: only the first two rational under (0.7, 0): ideal gains (.3, .35)
    assert kalai_point(PTS, [0.7, 0.0]) == 1


def test_kalai_differs_from_nash_on_an_asymmetric_frontier():
    pts = [[1.0, 0.1], [0.9, 0.45], [0.6, 0.5], [0.5, 0.52]]
    # ideal (1, .52); Nash: .1, .405, .3, .26 -> 1; Kalai shares: .19, .865, .6, .5 -> 1
    assert nash_point(pts) == 1 and kalai_point(pts) == 1
    pts = [[1.0, 0.0], [0.9, 0.2], [0.55, 0.5], [0.0, 0.6]]
    # Nash: 0, .18, .275, 0 -> 2; Kalai (ideal 1, .6): 0, .333, .55, 0 -> 2
    assert nash_point(pts) == 2 and kalai_point(pts) == 2
    pts = [[1.0, 0.0], [0.95, 0.3], [0.5, 0.52], [0.0, 0.6]]
    # Nash: .285 vs .26 -> 1; Kalai: min(.95, .5)=.5 vs min(.5, .867)=.5 tie -> larger sum
    # of gains: 1.25 vs 1.02 -> 1
    assert nash_point(pts) == 1 and kalai_point(pts) == 1
    pts = [[1.0, 0.0], [0.95, 0.28], [0.5, 0.52], [0.0, 0.6]]
    # Nash: .266 > .26 -> 1; Kalai: min(.95, .467) = .467 < .5 -> 2
    assert nash_point(pts) == 1 and kalai_point(pts) == 2


def test_kalai_party_with_no_room_counts_as_satisfied():
    pts = [[0.5, 0.2], [0.5, 0.9], [0.5, 0.4]]
    assert kalai_point(pts, [0.5, 0.0]) == 1


def test_max_welfare_and_its_ties():
    assert max_welfare(PTS) == 2
    assert max_welfare([[0.9, 0.1], [0.5, 0.6], [0.6, 0.5]]) == 1
    with pytest.raises(InvalidScenario, match="at least one outcome"):
        max_welfare(np.zeros((0, 2)))


def test_nash_product_values():
    assert nash_product([0.5, 0.8]) == pytest.approx(0.4)
    assert nash_product([0.5, 0.8, 0.5]) == pytest.approx(0.2)
    assert nash_product([0.5, 0.8], [0.1, 0.3]) == pytest.approx(0.2)
    with pytest.raises(InvalidScenario, match="expected 2 reservation values, got 3"):
        nash_product([0.5, 0.8], [0.1, 0.3, 0.2])


def test_three_party_nash():
    pts = [[1, 0, 0], [0.5, 0.5, 0.5], [0.6, 0.6, 0.2], [0.4, 0.4, 0.7]]
    # products: 0, .125, .072, .112
    assert nash_point(pts) == 1
    assert nash_point(pts, [0.0, 0.0, 0.55]) == 3


grid = st.sampled_from([0.0, 0.1, 0.2, 0.4, 0.5, 0.7, 0.9, 1.0])


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(grid, grid), min_size=1, max_size=40), st.tuples(grid, grid))
def test_solutions_are_rational_pareto_optimal_and_frontier_restriction_changes_nothing(pts, r):
    arr = np.asarray(pts, dtype=float)
    res = np.asarray(r)
    front = pareto_frontier(arr)
    for solve in (nash_point, kalai_point):
        i = solve(arr, res)
        assert i == solve(arr, res, frontier=front)
        rational = (arr >= res).all(axis=1)
        if i is None:
            assert not rational.any()
            continue
        assert rational[i]
        assert i in front.tolist()
        # brute force over all rational outcomes gives the same value
        if solve is nash_point:
            brute = np.prod(arr[rational] - res, axis=1).max()
            assert np.prod(arr[i] - res) == pytest.approx(brute)
    assert max_welfare(arr) == int(np.argmax(arr.sum(axis=1)))
