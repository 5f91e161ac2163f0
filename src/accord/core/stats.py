"""Means with honest intervals: Student's t on independent units, the n shown.

Every league reports a mean with a 95 % interval. With the few units a study or a
small tournament has (n = 2 to 30), the normal 1.96 is too narrow; the t quantile
with n - 1 degrees of freedom is right for a mean of independent units. Callers pass
one value per *independent unit* (a game, a pair of people, a participant), never
two dependent values of the same unit.

    >>> m = mean_interval([1.0, 2.0, 3.0])
    >>> m.mean, m.n, round(m.half, 4)
    (2.0, 3, 2.4841)
    >>> round(m.low, 4), round(m.high, 4)
    (-0.4841, 4.4841)
    >>> mean_interval([5.0]).half
    nan
    >>> mean_interval([]).n
    0
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from accord.core.errors import ConfigError

__all__ = ["MeanInterval", "mean_interval", "t_quantile"]


@dataclass(frozen=True)
class MeanInterval:
    """A mean, the half-width of its interval, and the number of units behind it.

    ``half`` is NaN when fewer than two units exist (no interval can be given).
    """

    mean: float
    half: float
    n: int
    level: float = 0.95

    @property
    def low(self) -> float:
        """The interval's lower end."""
        return self.mean - self.half

    @property
    def high(self) -> float:
        """The interval's upper end."""
        return self.mean + self.half

    def excludes(self, value: float = 0.0) -> bool:
        """True when ``value`` lies outside the interval (False when there is none).

        >>> mean_interval([1.0, 1.2, 0.9, 1.1]).excludes(0.0)
        True
        """
        return not math.isnan(self.half) and not self.low <= value <= self.high


def t_quantile(level: float, df: int) -> float:
    """The two-sided Student t quantile for ``level`` with ``df`` degrees of freedom.

    >>> round(t_quantile(0.95, 1), 3), round(t_quantile(0.95, 1000), 3)
    (12.706, 1.962)
    """
    if not 0.0 < level < 1.0:
        raise ConfigError(f"an interval's level must be in (0, 1), got {level}")
    if df < 1:
        raise ConfigError(f"a t quantile needs at least 1 degree of freedom, got {df}")
    from scipy import stats

    return float(stats.t.ppf(0.5 + level / 2.0, df))


def mean_interval(values: Iterable[float], level: float = 0.95) -> MeanInterval:
    """The mean of ``values`` (one per independent unit, NaNs dropped) with a t interval."""
    arr = np.asarray([v for v in values if not math.isnan(v)], dtype=float)
    n = int(arr.size)
    if n == 0:
        return MeanInterval(float("nan"), float("nan"), 0, level)
    mean = float(arr.mean())
    if n < 2:
        return MeanInterval(mean, float("nan"), n, level)
    half = t_quantile(level, n - 1) * float(arr.std(ddof=1)) / math.sqrt(n)
    return MeanInterval(mean, half, n, level)
