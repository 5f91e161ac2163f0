"""Significance between neighbours in the standings: permutation tests, games as units.

For each pair of neighbouring players in the ranking, the test is on the criterion that
ordered them: per-game points, or per-game supply centres when their points are equal
(the tie-break). Games are the units:

- both played the same games (same group): a **paired sign-flip permutation test** on
  the per-game differences; the statistic is ``|sum of differences|`` and the p-value is
  the share of the ``2**m`` sign assignments (``m`` non-zero differences) whose statistic
  is at least the observed one;
- different games (different groups): a **two-sample permutation test**; the statistic
  is ``|n_b * sum(a) - n_a * sum(b)|`` (``n_a * n_b`` times the difference of means)
  over all ways to split the pooled games into groups of the original sizes.

Both are two-sided and exact while the enumeration is small (up to 2**16 sign
assignments or 50 000 splits); beyond that they draw ``resamples`` random assignments
with a fixed seed and report ``p = (1 + hits) / (1 + resamples)``.

Example:
    >>> paired_p([2, 1, 0, -1, 3])
    (0.375, True)
    >>> two_sample_p([3, 5], [1, 2, 0])
    (0.1, True)
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from .scoring import Standing

__all__ = ["PairTest", "neighbour_tests", "paired_p", "two_sample_p"]

EXACT_SIGNS = 16
"""Largest number of non-zero differences enumerated exactly (2**16 assignments)."""
EXACT_SPLITS = 50_000
"""Largest number of two-sample splits enumerated exactly."""


def paired_p(diffs: Sequence[int], resamples: int = 20_000, seed: int = 0) -> tuple[float, bool]:
    """Two-sided sign-flip permutation p-value of ``diffs``; ``(p, exact)``.

    >>> paired_p([1, 1, 1])  # only all-plus and all-minus reach |3|
    (0.25, True)
    """
    d = np.asarray([x for x in diffs if x != 0], dtype=np.int64)
    m = len(d)
    if m == 0:
        return 1.0, True
    observed = abs(int(d.sum()))
    if m <= EXACT_SIGNS:
        codes = np.arange(2**m, dtype=np.int64)[:, None] >> np.arange(m, dtype=np.int64)
        signs = 1 - 2 * (codes & 1)
        sums = np.abs(signs @ d)
        return float(np.count_nonzero(sums >= observed)) / 2**m, True
    rng = np.random.default_rng(seed)
    signs = rng.choice(np.array([-1, 1], dtype=np.int64), size=(resamples, m))
    hits = int(np.count_nonzero(np.abs(signs @ d) >= observed))
    return (1 + hits) / (1 + resamples), False


def two_sample_p(
    a: Sequence[int], b: Sequence[int], resamples: int = 20_000, seed: int = 0
) -> tuple[float, bool]:
    """Two-sided two-sample permutation p-value of the difference of means; ``(p, exact)``.

    >>> two_sample_p([1], [1])
    (1.0, True)
    """
    na, nb = len(a), len(b)
    if na == 0 or nb == 0:
        return 1.0, True
    pooled = np.asarray([*a, *b], dtype=np.int64)
    total = int(pooled.sum())

    def stat(sum_a: int) -> int:
        return abs(nb * sum_a - na * (total - sum_a))

    observed = stat(int(sum(a)))
    n = na + nb
    if math.comb(n, na) <= EXACT_SPLITS:
        splits = 0
        hits = 0
        for idx in itertools.combinations(range(n), na):
            splits += 1
            hits += stat(int(pooled[list(idx)].sum())) >= observed
        return hits / splits, True
    rng = np.random.default_rng(seed)
    hits = 0
    for _ in range(resamples):
        hits += stat(int(rng.permutation(pooled)[:na].sum())) >= observed
    return (1 + hits) / (1 + resamples), False


@dataclass(frozen=True, slots=True)
class PairTest:
    """The test between a player and the next one in the ranking."""

    upper: str
    lower: str
    by: str  # "points" or "centres" (the tie-break)
    test: str  # "paired sign-flip permutation" or "two-sample permutation"
    games: int  # games in the test (paired) or the two samples together
    mean_diff: float  # per-game mean of upper minus lower
    p: float
    exact: bool
    significant: bool

    def to_json(self) -> dict[str, object]:
        """A JSON-ready dict."""
        return {
            "upper": self.upper,
            "lower": self.lower,
            "by": self.by,
            "test": self.test,
            "games": self.games,
            "mean_diff": self.mean_diff,
            "p": self.p,
            "exact": self.exact,
            "significant": self.significant,
        }


def neighbour_tests(
    rows: Sequence[Standing],
    per_game: Mapping[str, Mapping[str, tuple[int, int]]],
    alpha: float = 0.05,
    resamples: int = 20_000,
) -> list[PairTest]:
    """One `PairTest` per neighbouring pair of ``rows`` (ranked best first).

    ``per_game[player][game_id] = (points, centres)``. Significant means ``p < alpha``.
    """
    out = []
    for hi, lo in itertools.pairwise(rows):
        by = "points" if hi.points != lo.points else "centres"
        k = 0 if by == "points" else 1
        ga, gb = per_game.get(hi.player, {}), per_game.get(lo.player, {})
        common = sorted(set(ga) & set(gb))
        if common:
            diffs = [ga[g][k] - gb[g][k] for g in common]
            p, exact = paired_p(diffs, resamples)
            test, n, mean = "paired sign-flip permutation", len(common), sum(diffs) / len(diffs)
        else:
            a = [v[k] for v in ga.values()]
            b = [v[k] for v in gb.values()]
            p, exact = two_sample_p(a, b, resamples)
            test, n = "two-sample permutation", len(a) + len(b)
            mean = (sum(a) / len(a) if a else 0.0) - (sum(b) / len(b) if b else 0.0)
        out.append(PairTest(hi.player, lo.player, by, test, n, mean, p, exact, p < alpha))
    return out
