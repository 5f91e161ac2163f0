"""The inverse's sorted keys (an ``array('d')``) and ``all()`` (broadcast tables) give
exactly what the list of floats and ``np.add.outer`` gave: same floats, same answers."""

from __future__ import annotations

import copy
import pickle
from bisect import bisect_left

import numpy as np
import pytest

from accord.core.generate import random_linear_scenario
from accord.core.inverse import UtilityInverse
from accord.core.outcomes import IntegerIssue, OutcomeSpace
from accord.core.utilities import LinearAdditiveUtility


@pytest.mark.parametrize("issues", [2, 3, 4, 5])
def test_all_is_the_outer_sum_bit_for_bit(issues: int) -> None:
    u = random_linear_scenario(issues, 4, 2, seed=10 + issues).utilities[0]
    acc = np.add.outer(u.tables[0], u.tables[1])
    for table in u.tables[2:]:
        acc = np.add.outer(acc, table)
    assert np.array_equal(u.all(), acc.ravel())
    assert u.all().dtype == np.float64 and u.all().shape == (4**issues,)


def _reference(values: np.ndarray, target: float) -> int:
    """The flat index the list-of-floats inverse answered: stable order, bisect_left."""
    order = values.argsort(kind="stable")
    keys = values[order].tolist()
    i = min(bisect_left(keys, target - 1e-12), len(keys) - 1)
    return int(order[i])


@pytest.mark.parametrize("levels", [7, 1000])  # ties everywhere / few ties
def test_answers_match_the_list_of_floats(levels: int) -> None:
    rng = np.random.default_rng(levels)
    space = OutcomeSpace([IntegerIssue("n", 0, 299)])
    evals = dict(enumerate((rng.integers(0, levels, 300) + 1).tolist()))
    u = LinearAdditiveUtility(space, [1.0], [evals])  # picklable (no lambda)
    values = u.all()
    inv = UtilityInverse(u)
    assert type(inv.min) is float and type(inv.max) is float
    assert (inv.min, inv.max) == (float(values.min()), float(values.max()))
    copied = pickle.loads(pickle.dumps(inv))
    deep = copy.deepcopy(inv)
    for target in [*np.linspace(-0.1, 1.1, 97).tolist(), *values[:40].tolist()]:
        want = (_reference(values, target),)
        assert inv.at_least(target) == want
        assert copied.at_least(target) == want and deep.at_least(target) == want
