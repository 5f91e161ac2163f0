"""Means with Student t intervals: exact values against hand computation."""

from __future__ import annotations

import math

import pytest

from accord.core.errors import ConfigError
from accord.core.stats import mean_interval, t_quantile


def test_two_units_use_t_with_one_degree_of_freedom_not_1_96() -> None:
    m = mean_interval([0.0, 2.0])
    # sd = sqrt(2), se = 1, t(0.975, 1) = 12.7062047...
    assert m.mean == 1.0
    assert m.n == 2
    assert m.half == pytest.approx(12.706204736174698, rel=1e-12)


def test_many_units_approach_the_normal_quantile() -> None:
    values = [float(i % 7) for i in range(10_000)]
    m = mean_interval(values)
    sd = math.sqrt(sum((v - m.mean) ** 2 for v in values) / (len(values) - 1))
    assert m.half == pytest.approx(1.9602 * sd / 100, rel=1e-4)


def test_nan_values_are_dropped_and_small_samples_have_no_interval() -> None:
    m = mean_interval([float("nan"), 3.0])
    assert (m.mean, m.n) == (3.0, 1)
    assert math.isnan(m.half)
    assert not m.excludes(0.0)
    assert mean_interval([]).n == 0


def test_excludes_reports_whether_a_value_lies_outside() -> None:
    m = mean_interval([1.0, 2.0, 3.0, 4.0])
    assert m.excludes(10.0)
    assert not m.excludes(2.5)


def test_bad_levels_are_refused() -> None:
    with pytest.raises(ConfigError, match="level"):
        t_quantile(1.5, 3)
    with pytest.raises(ConfigError, match="degree"):
        t_quantile(0.95, 0)
