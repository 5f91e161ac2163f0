"""The lazily sorted inverse answers exactly as the fully sorted one: same outcome for
every target, ties broken by the stable order, before and after the rest is sorted."""

from __future__ import annotations

import numpy as np
import pytest

from accord.core import inverse
from accord.core.outcomes import IntegerIssue, OutcomeSpace
from accord.core.utilities import CallableUtility


def _pair(values: np.ndarray) -> tuple[inverse.UtilityInverse, inverse.UtilityInverse]:
    """A lazily sorted inverse and a fully sorted one of the same utility."""
    space = OutcomeSpace([IntegerIssue("n", 0, values.size - 1)])
    u = CallableUtility(space, lambda o: float(values[o[0]]))
    lazy = inverse.UtilityInverse(u)
    full = inverse.UtilityInverse(u, exact_limit=10**9)
    full._sort_all(full.values, {})  # the whole order at once
    return lazy, full


def _base(inv: inverse.UtilityInverse) -> int:
    """Where the sorted outcomes start in the full order (0: all sorted)."""
    return inv._view[5]


@pytest.mark.parametrize("kind", ["distinct", "few levels", "rounded"])
def test_lazy_band_gives_the_full_sorts_answers(kind: str) -> None:
    rng = np.random.default_rng(7)
    n = 2000
    assert n >= inverse.LAZY_FROM
    values = {
        "distinct": rng.random(n),
        "few levels": rng.integers(0, 12, n) / 11.0,  # many ties, also at the band's edge
        "rounded": np.round(rng.random(n), 2),
    }[kind]
    lazy, full = _pair(values)
    assert _base(lazy) > 0  # only the top band is sorted
    assert (lazy.min, lazy.max) == (full.min, full.max)
    assert lazy.best() == full.best()
    top = sorted(values)[-3:]  # near the top: answered from the band
    for target in [top[2], top[1], top[0], top[2] + 1.0]:
        assert lazy.at_least(target) == full.at_least(target)
    assert _base(lazy) > 0 or kind != "distinct"  # ties may reach below the band's floor
    targets = np.concatenate([rng.uniform(-0.1, 1.1, 60), rng.choice(values, 20)])
    for target in targets:  # the first low one sorts the rest
        assert lazy.at_least(float(target)) == full.at_least(float(target))
    assert _base(lazy) == 0
    assert lazy.worst() == full.worst()
    assert lazy.best() == full.best()


def test_worst_first_sorts_everything() -> None:
    values = np.random.default_rng(3).integers(0, 5, 1000) / 4.0
    lazy, full = _pair(values)
    assert lazy.worst() == full.worst() == (int(np.argmin(values)),)
    assert lazy.at_least(0.5) == full.at_least(0.5)
