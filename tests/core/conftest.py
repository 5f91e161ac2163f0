from __future__ import annotations

import pytest

from accord.core.generate import random_linear_scenario


def _pair(n_issues, n_values, n_parties, seed, reservation=0.0, discount=None):
    s = random_linear_scenario(n_issues, n_values, n_parties, seed, reservation, discount)
    return s.space, list(s.utilities)


@pytest.fixture
def bilateral():
    return _pair(3, 5, 2, seed=1)


@pytest.fixture
def make_scenario():
    """``(n_issues, n_values, n_parties, seed, reservation, discount) -> (space, utilities)``."""
    return _pair
