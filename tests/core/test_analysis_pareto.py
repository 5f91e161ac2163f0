"""Pareto frontiers: exact small cases, ties, duplicates, properties, both methods agreeing."""

from __future__ import annotations

from unittest.mock import patch

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from accord.core.analysis import dominates, pareto, pareto_2d, pareto_frontier, pareto_nd
from accord.core.errors import InvalidScenario


def both(points):
    """The sweep and the n-party method on the same 2-D points (must agree)."""
    pts = np.asarray(points, dtype=float)
    a = pareto_2d(pts[:, 0], pts[:, 1]).tolist()
    b = pareto_nd(pts).tolist()
    assert a == b
    return a


def test_simple_tradeoff_drops_the_dominated_point():
    assert both([[1.0, 0.0], [0.5, 0.5], [0.0, 1.0], [0.4, 0.4]]) == [0, 1, 2]


def test_equal_frontier_points_both_stay_in_position_order():
    assert both([[0.5, 0.5], [1.0, 0.0], [0.5, 0.4], [1.0, 0.0], [0.0, 1.0]]) == [1, 3, 0, 4]


def test_dominated_duplicates_all_go():
    assert both([[0.3, 0.3], [0.3, 0.3], [0.5, 0.5]]) == [2]


def test_all_equal_points_are_all_optimal():
    assert both([[0.2, 0.2]] * 4) == [0, 1, 2, 3]


def test_equal_first_utility_keeps_only_the_best_second():
    assert both([[1.0, 0.2], [1.0, 0.5], [0.9, 0.9]]) == [1, 2]


def test_equal_second_utility_keeps_only_the_best_first():
    assert both([[0.5, 1.0], [0.7, 1.0]]) == [1]


def test_single_point_and_empty_input():
    assert both([[0.1, 0.9]]) == [0]
    assert pareto_2d([], []).tolist() == []
    assert pareto_nd(np.zeros((0, 3))).tolist() == []


def test_three_parties_hand_computed():
    pts = [[1, 0, 0], [0, 1, 0], [0, 0, 1], [0.2, 0.2, 0.2], [0.1, 0.1, 0.1], [0, 1, 0]]
    # (0.1,0.1,0.1) is dominated by (0.2,0.2,0.2); the duplicate (0,1,0) stays.
    assert pareto_nd(pts).tolist() == [0, 3, 1, 5, 2]
    assert pareto_frontier(pts).tolist() == [0, 3, 1, 5, 2]


def test_negative_utilities_are_fine():
    assert both([[-1.0, -2.0], [-2.0, -1.0], [-3.0, -3.0]]) == [0, 1]


def test_nan_and_shape_errors_are_explained():
    with pytest.raises(InvalidScenario, match="NaN or infinite"):
        pareto_2d([0.1, float("nan")], [0.2, 0.3])
    with pytest.raises(InvalidScenario, match="NaN or infinite"):
        pareto_nd([[0.1, float("inf")]])
    with pytest.raises(InvalidScenario, match="same length, got 2 and 1"):
        pareto_2d([0.1, 0.2], [0.3])
    with pytest.raises(InvalidScenario, match="2-D array"):
        pareto_nd([0.1, 0.2])


def test_dominates():
    assert dominates([1, 1], [1, 0])
    assert not dominates([1, 0], [1, 0])
    assert not dominates([1, 0], [0, 1])


def _brute(points):
    pts = np.asarray(points, dtype=float)
    ge = (pts[:, None, :] >= pts[None, :, :]).all(axis=2)
    gt = (pts[:, None, :] > pts[None, :, :]).any(axis=2)
    dominated = (ge & gt).any(axis=0)
    return set(np.flatnonzero(~dominated).tolist())


coarse = st.sampled_from([0.0, 0.1, 0.25, 0.5, 0.75, 0.9, 1.0])
points_2d = st.lists(st.tuples(coarse, coarse), min_size=1, max_size=60)
points_3d = st.lists(st.tuples(coarse, coarse, coarse), min_size=1, max_size=60)


def _check_front(points, front):
    pts = np.asarray(points, dtype=float)
    on = set(front)
    assert len(on) == len(front)
    for i in on:  # nothing on the frontier is dominated by any outcome
        assert not any(dominates(pts[j], pts[i]) for j in range(len(pts)))
    for i in set(range(len(pts))) - on:  # every other outcome is dominated by a frontier one
        assert any(dominates(pts[j], pts[i]) for j in on)
    # ordered by the first utility descending (then second, then position)
    keys = [(-pts[i, 0], -pts[i, 1], i) for i in front]
    assert keys == sorted(keys)


@settings(max_examples=150, deadline=None)
@given(points_2d)
def test_sweep_properties_and_agreement_with_the_n_party_method(points):
    front = both(points)
    _check_front(points, front)


@settings(max_examples=100, deadline=None)
@given(points_3d)
def test_n_party_properties(points):
    front = pareto_nd(points, block=7).tolist()
    _check_front(points, front)
    assert set(front) == _brute(points)


@settings(max_examples=60, deadline=None)
@given(points_2d, points_3d)
def test_the_prefilters_change_nothing(p2, p3):
    with patch.object(pareto, "_FILTER_FROM", 1):
        f2 = pareto_2d(np.asarray(p2)[:, 0], np.asarray(p2)[:, 1]).tolist()
        f3 = pareto_nd(p3).tolist()
    assert f2 == pareto_nd(p2).tolist()
    assert set(f2) == _brute(p2)
    assert set(f3) == _brute(p3)


def test_large_tied_input_both_methods_agree_with_a_brute_check():
    rng = np.random.default_rng(5)
    pts = np.round(rng.random((20_000, 2)) ** 0.3, 3)  # many ties, dense near the corner
    front = pareto_2d(pts[:, 0], pts[:, 1])
    assert front.tolist() == pareto_nd(pts).tolist()
    f = pts[front]
    # no point dominates a frontier point
    for p in f:
        assert not ((pts >= p).all(axis=1) & (pts > p).any(axis=1)).any()
    # every other point is dominated by some frontier point
    rest = np.delete(pts, front, axis=0)
    ge = (f[None, :, :] >= rest[:, None, :]).all(axis=2)
    gt = (f[None, :, :] > rest[:, None, :]).any(axis=2)
    assert (ge & gt).any(axis=1).all()


def test_million_outcome_frontier_is_fast():
    import time

    from accord.core.generate import random_linear_scenario

    s = random_linear_scenario(6, 10, 2, seed=3)
    u1, u2 = (u.all() for u in s.utilities)
    pareto_2d(u1, u2)
    start = time.process_time()  # CPU time: a loaded machine does not stretch it
    front = pareto_2d(u1, u2)
    took = time.process_time() - start
    assert front.size > 0
    assert took < 0.25, f"10^6-outcome frontier took {took:.3f} s of CPU"
