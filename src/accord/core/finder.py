"""Finding outcomes by utility in discrete spaces too big to enumerate (ANAC 2014: 10^10).

Above :data:`ENUMERATE_LIMIT` outcomes the built-in agents do not sort every outcome;
:func:`finder_for` picks, by the utility's structure, a finder with the same queries as
:class:`accord.core.inverse.UtilityInverse` (``at_least``, ``best``, ``worst``, ``min``,
``max``) and a ``pool`` of outcomes above a floor for agents that choose among many:

* linear additive: :class:`AdditiveFinder`, exact. The issues are split into two groups
  whose partial sums are sorted (meet in the middle); ``at_least(t)`` is then, over every
  partial outcome ``a`` of the first group, the smallest ``b`` of the second with
  ``a + b >= t``: the lowest utility that reaches ``t``, found in one vectorised pass.
* hyper-rectangle (ANAC 2014): :class:`SortedOutcomes` over one outcome per distinct
  utility value, found by cells (:mod:`accord.core.cells`), exact.
* anything else: :class:`SortedOutcomes` over a uniform sample plus outcomes found by
  hill climbing from the best samples: approximate (``exact`` is False).

    >>> from accord.core.outcomes import IntegerIssue, OutcomeSpace
    >>> from accord.core.utilities import LinearAdditiveUtility, LinearEvaluator
    >>> space = OutcomeSpace([IntegerIssue(f"i{k}", 0, 99) for k in range(5)])
    >>> u = LinearAdditiveUtility(space, [1.0] * 5, [LinearEvaluator(1.0)] * 5)
    >>> f = finder_for(u)
    >>> f.exact, round(u(f.at_least(0.5)) * 495), f.best(), f.worst()  # U = sum / 495
    (True, 248, (99, 99, 99, 99, 99), (0, 0, 0, 0, 0))
"""

from __future__ import annotations

import math
from bisect import bisect_left

import numpy as np
import numpy.typing as npt

from accord.core.cells import achievable_utilities
from accord.core.errors import AccordError
from accord.core.outcomes import IndexRows, Outcome, OutcomeSpace
from accord.core.shared import SharedCache
from accord.core.utilities import HyperRectangleUtility, LinearAdditiveUtility, UtilityFunction

FloatArray = npt.NDArray[np.float64]

#: Spaces with more outcomes than this are not enumerated by the built-in agents.
ENUMERATE_LIMIT = 1_000_000
#: Largest group of partial outcomes :class:`AdditiveFinder` sorts (so exact up to its square).
HALF_LIMIT = 2_000_000
#: Outcomes drawn uniformly by the sampling finder.
SAMPLES = 50_000


def is_huge(space: OutcomeSpace, limit: int = ENUMERATE_LIMIT) -> bool:
    """True for a discrete space with more than ``limit`` outcomes."""
    return space.is_discrete and int(space.cardinality) > limit


class SortedOutcomes:
    """Candidate outcomes (index rows) sorted by one utility, with inverse queries.

    ``exact`` says whether the candidates hold an outcome of every utility value the
    space can reach (then ``at_least`` is the exact inverse); ``method`` says in words
    how they were found.
    """

    exact: bool
    method: str

    def __init__(self, utility: UtilityFunction, rows: IndexRows, exact: bool, method: str) -> None:
        self.utility = utility
        self.space = utility.space
        values = utility.batch(rows)
        order = np.argsort(values, kind="stable")
        self.rows: IndexRows = np.asarray(rows, dtype=np.int64)[order]
        self.values: FloatArray = values[order]
        self._keys: list[float] = self.values.tolist()
        self.min = float(self.values[0])
        self.max = float(self.values[-1])
        self.exact = exact
        self.method = method

    def __len__(self) -> int:
        return int(self.values.size)

    def _out(self, row: npt.NDArray[np.int64]) -> Outcome:
        return self.space.outcome_of_row(row)

    def at_least(self, target: float) -> Outcome:
        """An outcome with the lowest utility that is still >= ``target`` (best if none)."""
        i = min(bisect_left(self._keys, target - 1e-12), len(self._keys) - 1)
        return self._out(self.rows[i])

    def best(self) -> Outcome:
        """An outcome of maximum utility."""
        return self._out(self.rows[-1])

    def worst(self) -> Outcome:
        """An outcome of minimum utility."""
        return self._out(self.rows[0])

    def pool(
        self, size: int, floor: float, rng: np.random.Generator
    ) -> tuple[IndexRows, FloatArray]:
        """Up to ``size`` distinct outcomes worth at least ``floor`` (the best one if none),
        by utility descending: the candidates, widened by one-issue changes that stay
        above the floor.
        """
        keep = self.values >= floor - 1e-12
        rows = self.rows[keep] if keep.any() else self.rows[-1:]
        return _widen(self.utility, rows, size, floor, rng)


class AdditiveFinder(SortedOutcomes):
    """Exact inverse of a discrete linear additive utility by meet in the middle.

    The issues are split into a group ``B`` of at most ``half_limit`` partial outcomes
    (as many as fit) and the rest ``A``; both lists of partial utilities are sorted once.
    ``at_least(t)`` takes, for every ``a`` in ``A``, the smallest ``b >= t - a``
    (``np.searchsorted``) and returns the pair with the smallest sum: O(|A| log |B|).

        >>> from accord.core.outcomes import CategoricalIssue, OutcomeSpace
        >>> space = OutcomeSpace([CategoricalIssue(n, ["a", "b", "c"]) for n in "xy"])
        >>> u = LinearAdditiveUtility(space, [0.6, 0.4],
        ...     [{"a": 0.0, "b": 0.4, "c": 1.0}, {"a": 0.0, "b": 0.5, "c": 1.0}])
        >>> f = AdditiveFinder(u, half_limit=3)
        >>> f.at_least(0.45), f.at_least(0.61), f.at_least(2.0)
        (('c', 'a'), ('b', 'c'), ('c', 'c'))
    """

    def __init__(self, utility: LinearAdditiveUtility, half_limit: int = HALF_LIMIT) -> None:
        tables = [np.asarray(t, dtype=np.float64) for t in utility.tables]
        self.utility = utility
        self.space = utility.space
        self._tables = tables
        group_b, group_a = _split([t.size for t in tables], half_limit)
        self._groups = (group_a, group_b)
        a_vals, self._a_order = _partial(tables, group_a)
        b_vals, self._b_order = _partial(tables, group_b)
        self._a: FloatArray = a_vals
        self._b: FloatArray = b_vals
        best = np.array([int(t.argmax()) for t in tables], dtype=np.int64)
        worst = np.array([int(t.argmin()) for t in tables], dtype=np.int64)
        self.rows = np.stack([worst, best])
        self.values = utility.batch(self.rows)
        self._keys = self.values.tolist()
        self.min = float(self.values[0])
        self.max = float(self.values[1])
        self.exact = True
        self.method = "exact, from the linear additive structure"

    def _row(self, i: npt.ArrayLike, j: npt.ArrayLike) -> IndexRows:
        """Index rows of sorted positions ``i`` in ``A`` and ``j`` in ``B``."""
        ia = np.atleast_1d(np.asarray(i, dtype=np.int64))
        jb = np.atleast_1d(np.asarray(j, dtype=np.int64))
        rows = np.zeros((ia.size, len(self._tables)), dtype=np.int64)
        for group, order, pos in (
            (self._groups[0], self._a_order, ia),
            (self._groups[1], self._b_order, jb),
        ):
            if not group:
                continue
            digits = np.unravel_index(order[pos], [self._tables[k].size for k in group])
            for k, d in zip(group, digits, strict=True):
                rows[:, k] = d
        return rows

    def _candidates(self, target: float) -> tuple[npt.NDArray[np.int64], FloatArray]:
        """Per ``a``: position of the smallest ``b`` with ``a + b >= target``, and the sum."""
        nb = self._b.size
        j = np.searchsorted(self._b, target - 1e-12 - self._a, side="left")
        ok = j < nb
        jj = np.minimum(j, nb - 1)
        sums = np.where(ok, self._a + self._b[jj], np.inf)
        return jj, sums

    def at_least(self, target: float) -> Outcome:
        if target > self.max:
            return self.best()
        jj, sums = self._candidates(target)
        i = int(sums.argmin())
        return self._out(self._row(i, jj[i])[0])

    def pool(
        self, size: int, floor: float, rng: np.random.Generator
    ) -> tuple[IndexRows, FloatArray]:
        """Outcomes nearest above 64 targets spread from ``floor`` to the best utility."""
        lo = min(max(floor, self.min), self.max)
        targets = np.linspace(self.max, lo, 64)
        per = max(1, size // targets.size)
        parts: list[IndexRows] = [self.rows[1:]]
        for t in targets:
            jj, sums = self._candidates(float(t))
            finite = np.flatnonzero(np.isfinite(sums))
            if finite.size > per:
                finite = finite[np.argpartition(sums[finite], per)[:per]]
            parts.append(self._row(finite, jj[finite]))
        return _widen(self.utility, np.concatenate(parts), size, floor, rng)


def _split(sizes: list[int], half_limit: int) -> tuple[list[int], list[int]]:
    """Issues for ``B`` (largest product <= ``half_limit``, greedily) and the rest."""
    b: list[int] = []
    prod = 1
    for k in sorted(range(len(sizes)), key=lambda k: -sizes[k]):
        if prod * sizes[k] <= half_limit:
            b.append(k)
            prod *= sizes[k]
    return sorted(b), [k for k in range(len(sizes)) if k not in b]


def _partial(
    tables: list[FloatArray], group: list[int]
) -> tuple[FloatArray, npt.NDArray[np.int64]]:
    """Sorted partial utilities of a group of issues and their mixed-radix numbers."""
    acc = np.zeros(1, dtype=np.float64)
    for k in group:
        acc = np.add.outer(acc, tables[k]).ravel()
    order = np.argsort(acc).astype(np.int64)
    return acc[order], order


def _distinct(space: OutcomeSpace, rows: IndexRows) -> IndexRows:
    """The distinct rows (by flat index when it fits in 63 bits: much faster)."""
    if int(space.cardinality) < 2**62:
        _, first = np.unique(space.flat_of_rows(rows), return_index=True)
        return rows[first]
    return np.unique(rows, axis=0)


def _widen(
    u: UtilityFunction, rows: IndexRows, size: int, floor: float, rng: np.random.Generator
) -> tuple[IndexRows, FloatArray]:
    """Distinct ``rows`` plus one-issue changes of them that stay >= ``floor``, best first."""
    space = u.space
    rows = _distinct(space, np.asarray(rows, dtype=np.int64))
    radices = space.radices
    for _ in range(4):
        if rows.shape[0] >= size:
            break
        picks = rows[rng.integers(0, rows.shape[0], size=min(size, 4 * rows.shape[0]))]
        issue = rng.integers(0, radices.size, size=picks.shape[0])
        picks[np.arange(picks.shape[0]), issue] = rng.integers(0, radices[issue])
        picks = picks[u.batch(picks) >= floor - 1e-12]
        rows = _distinct(space, np.concatenate([rows, picks]))
    values = u.batch(rows)
    order = np.argsort(-values, kind="stable")[:size]
    return rows[order], values[order]


def _climb(u: UtilityFunction, start: IndexRows, sign: float, sweeps: int = 20) -> IndexRows:
    """Coordinate ascent (``sign`` 1) or descent (-1) from each start row; every visited row."""
    radices = u.space.radices
    visited = [start]
    current = start.copy()
    score = sign * u.batch(current)
    for _ in range(sweeps):
        for k in range(radices.size):
            n = int(radices[k])
            trial = np.repeat(current, n, axis=0)
            trial[:, k] = np.tile(np.arange(n), current.shape[0])
            vals = sign * u.batch(trial).reshape(current.shape[0], n)
            current = current.copy()
            current[:, k] = vals.argmax(axis=1)
            visited.append(current)
        new = sign * u.batch(current)
        if not (new > score + 1e-15).any():
            break
        score = new
    return np.concatenate(visited)


def sampled_finder(
    utility: UtilityFunction, samples: int = SAMPLES, seed: int = 0
) -> SortedOutcomes:
    """Approximate finder: a uniform sample plus hill-climbed best and worst outcomes."""
    rng = np.random.default_rng(seed)
    rows = utility.space.sample_rows(samples, rng).astype(np.int64)
    values = utility.batch(rows)
    order = np.argsort(values)
    climbed = [_climb(utility, rows[order[-8:]], 1.0), _climb(utility, rows[order[:4]], -1.0)]
    return SortedOutcomes(
        utility,
        np.concatenate([rows, *climbed]),
        exact=False,
        method=f"approximate: {samples} sampled outcomes plus hill climbing",
    )


_FINDERS: SharedCache[UtilityFunction, SortedOutcomes] = SharedCache(16)


def finder_for(utility: UtilityFunction) -> SortedOutcomes:
    """The finder suited to the utility's structure (see the module docstring), built once
    per utility object and shared (utilities are immutable; the 16 most recently used
    are kept)."""
    return _FINDERS.get_or_build(utility, _build)


def _build(utility: UtilityFunction) -> SortedOutcomes:
    space = utility.space
    if isinstance(utility, LinearAdditiveUtility) and _additive(utility):
        return AdditiveFinder(utility)
    if isinstance(utility, HyperRectangleUtility) and space.is_discrete:
        try:
            found = achievable_utilities([utility], max_cells=20_000_000)
        except AccordError:
            pass
        else:
            return SortedOutcomes(
                utility, found.rows, exact=True, method="exact, by hyper-rectangle cells"
            )
    return sampled_finder(utility)


def _additive(u: LinearAdditiveUtility) -> bool:
    """True if :class:`AdditiveFinder` can take ``u`` (discrete, both groups small enough)."""
    return bool(u.tables) and _fits([t.size for t in u.tables])


def _fits(sizes: list[int]) -> bool:
    _, a = _split(sizes, HALF_LIMIT)
    return math.prod(sizes[k] for k in a) <= HALF_LIMIT


def huge_space_note(utilities: list[UtilityFunction] | tuple[UtilityFunction, ...]) -> str | None:
    """One line saying how the built-in agents play on a space too big to enumerate.

    >>> from accord.core.outcomes import IntegerIssue
    >>> space = OutcomeSpace([IntegerIssue(f"i{k}", 0, 9) for k in range(7)])
    >>> u = LinearAdditiveUtility(space, [1.0] * 7, [{v: v for v in range(10)}] * 7)
    >>> huge_space_note([u, u])
    '10000000 outcomes, too many to enumerate: the built-in agents find outcomes by utility without enumerating them (exact, from the linear additive structure)'
    """
    if not utilities or not is_huge(utilities[0].space):
        return None
    methods = []
    for u in utilities:
        m = _method(u)
        if m not in methods:
            methods.append(m)
    return (
        f"{int(utilities[0].space.cardinality)} outcomes, too many to enumerate: the built-in "
        f"agents find outcomes by utility without enumerating them ({'; '.join(methods)})"
    )


def _method(u: UtilityFunction) -> str:
    """What :func:`finder_for` would use, without building it."""
    if isinstance(u, LinearAdditiveUtility) and _additive(u):
        return "exact, from the linear additive structure"
    if isinstance(u, HyperRectangleUtility):
        return "exact, by hyper-rectangle cells"
    return f"approximate: {SAMPLES} sampled outcomes plus hill climbing"
