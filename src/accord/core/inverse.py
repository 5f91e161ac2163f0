"""Finding outcomes by utility: the inverse of a utility function on a discrete space.

Small spaces are sorted exactly; above ``exact_limit`` outcomes the utilities are
bucketed into 65,536 levels and radix-sorted, which keeps a 10^6-outcome space under
20 ms while every returned outcome still has utility >= the target asked for.

    >>> from accord.core.outcomes import IntegerIssue, OutcomeSpace
    >>> from accord.core.utilities import CallableUtility
    >>> space = OutcomeSpace([IntegerIssue("n", 0, 10)])
    >>> inv = UtilityInverse(CallableUtility(space, lambda o: o[0] / 10))
    >>> inv.at_least(0.42), inv.best(), inv.worst()
    ((5,), (10,), (0,))

Utilities are immutable, so :func:`inverse_of` keeps one inverse per utility object and
every session on the same profile (a tournament's repetitions, say) shares it; only the
:data:`SHARED_INVERSES` most recently used are kept, so a long run stays bounded. Spaces
with more than :data:`~accord.core.finder.ENUMERATE_LIMIT` outcomes get a finder that
uses the utility's structure instead (:mod:`accord.core.finder`); both answer the
:class:`Inverse` queries.
"""

from __future__ import annotations

import math
from array import array
from bisect import bisect_left
from typing import Any, Protocol, TypeAlias

import numpy as np
import numpy.typing as npt

from accord.core.finder import finder_for, is_huge
from accord.core.outcomes import Outcome
from accord.core.shared import SharedCache
from accord.core.utilities import UtilityFunction

_LEVELS = 65535


class Inverse(Protocol):
    """What the built-in agents ask of an inverse: outcomes by utility."""

    min: float
    max: float

    def at_least(self, target: float) -> Outcome:
        """An outcome with the lowest utility that is still >= ``target`` (best if none)."""
        ...

    def best(self) -> Outcome:
        """An outcome of maximum utility."""
        ...

    def worst(self) -> Outcome:
        """An outcome of minimum utility."""
        ...


class UtilityInverse:
    """Sorted view of one utility over every outcome of its (discrete) space.

    Sorted lazily on larger exact spaces: at first only the top band (the best
    ``n / 32`` outcomes, at least 32, with every outcome tied with the band's lowest) is
    sorted; the rest is sorted when a query first goes below the band. An agent that
    asks only near its best (a Boulware in a short session) never pays for the full sort,
    and every answer is the one the full sort gives (the band is the top of the stable
    order: same outcome, same tie-breaking).
    """

    __slots__ = ("utility", "space", "values", "min", "max", "_exact", "_scale", "_view")

    def __init__(self, utility: UtilityFunction, exact_limit: int = 50_000) -> None:
        self.utility = utility
        self.space = utility.space
        values = utility.all()
        self.values: npt.NDArray[np.float64] = values
        size: int = values.size
        self._exact = size <= exact_limit
        # What is sorted, as one tuple swapped whole (threads may share an inverse):
        # (keys ascending, their flat indices, outcomes cached by position, the lowest
        # utility sorted (every outcome >= it is), how many are sorted, the position the
        # sorted ones start at in the full order).
        self._view: _View
        if self._exact:
            if size >= LAZY_FROM:
                self._sort_band(values, size)
            else:
                self._sort_all(values, {})
        else:
            self.min = float(values.min())
            self.max = float(values.max())
            span = self.max - self.min
            self._scale = _LEVELS / span if span > 0 else 0.0
            keys = ((values - self.min) * self._scale).astype(np.uint16)
            order = keys.argsort(kind="stable")
            self._view = (keys[order], order, {}, -math.inf, size, 0)

    def _sort_all(self, values: npt.NDArray[np.float64], cache: dict[int, Outcome]) -> _View:
        """Sort every outcome (exactly): the ends are the extremes (no reductions)."""
        order = values.argsort(kind="stable")  # read one entry per outcome asked for
        keys = _keys(values[order])
        self.min = float(keys[0])
        self.max = float(keys[-1])
        view = self._view = (keys, order, cache, -math.inf, len(keys), 0)
        return view

    def _sort_band(self, values: npt.NDArray[np.float64], size: int) -> None:
        """Sort only the top band: every outcome of utility >= the band's lowest."""
        kth = size - max(_BAND_MIN, size >> 5)
        floor = np.partition(values, kth)[kth]
        idx = np.flatnonzero(values >= floor)  # ascending: ties keep the stable order
        band = values[idx]
        o = band.argsort(kind="stable")
        keys = _keys(band[o])
        self.min = float(values.min())
        self.max = float(keys[-1])
        self._view = (keys, idx[o], {}, float(floor), len(keys), size - int(idx.size))

    def _complete(self) -> _View:
        """Sort the rest: the band's positions (and cached outcomes) move up by its base."""
        base, cache = self._view[5], self._view[2]
        return self._sort_all(self.values, {i + base: o for i, o in cache.items()})

    def __len__(self) -> int:
        return int(self.values.size)

    def at_least(self, target: float) -> Outcome:
        """An outcome with the lowest utility that is still >= ``target`` (best if none)."""
        # written out: agents ask at every offer
        keys, order, cache, floor, n, _ = self._view
        low = target - 1e-12
        if self._exact:
            if low < floor:  # below the sorted band: sort the rest
                keys, order, cache, floor, n, _ = self._complete()
            i = bisect_left(keys, low)
        else:
            key = math.ceil((target - self.min) * self._scale - 1e-9)
            i = int(np.searchsorted(keys, max(key, 0), side="left"))
        if i >= n:
            i = n - 1
        out = cache.get(i)
        if out is None:
            out = cache[i] = self.space.outcome_at(order.item(i))
        return out

    def _outcome(self, view: _View, i: int) -> Outcome:
        cache = view[2]
        out = cache.get(i)
        if out is None:
            out = cache[i] = self.space.outcome_at(int(view[1][i]))
        return out

    def best(self) -> Outcome:
        """An outcome of maximum utility."""
        view = self._view
        return self._outcome(view, view[4] - 1)

    def worst(self) -> Outcome:
        """An outcome of minimum utility."""
        view = self._view
        if view[5]:
            view = self._complete()
        return self._outcome(view, 0)


def _keys(ascending: npt.NDArray[Any]) -> Keys:
    """The sorted utilities as ``bisect`` reads them: an ``array('d')`` of the same doubles
    (one buffer: no float object per outcome to make and free; a ``bisect`` reads as
    fast); any other dtype as a list, as before."""
    if ascending.dtype == _F64:
        return array("d", ascending.tobytes())
    return ascending.tolist()  # type: ignore[no-any-return]


_F64 = np.dtype(np.float64)
Keys: TypeAlias = "array[float] | list[float]"

_View = tuple[
    "array[float] | list[float] | npt.NDArray[np.uint16]",
    "npt.NDArray[np.intp]",
    "dict[int, Outcome]",
    float,
    int,
    int,
]


LAZY_FROM = 512
"""Exact spaces of at least this many outcomes are sorted lazily (top band first)."""

_BAND_MIN = 32


SHARED_INVERSES = 64
"""How many utilities' inverses are kept (least recently used dropped first)."""

_INVERSES: SharedCache[UtilityFunction, Inverse] = SharedCache(SHARED_INVERSES)


def inverse_of(utility: UtilityFunction) -> Inverse:
    """The shared inverse of ``utility`` (built on first use): a :class:`UtilityInverse`,
    or for a space too big to enumerate the :func:`~accord.core.finder.finder_for` one.

    >>> from accord.core.outcomes import IntegerIssue, OutcomeSpace
    >>> from accord.core.utilities import CallableUtility
    >>> u = CallableUtility(OutcomeSpace([IntegerIssue("n", 0, 3)]), lambda o: o[0])
    >>> inverse_of(u) is inverse_of(u)
    True
    """
    return _INVERSES.get_or_build(utility, _build)


def _build(utility: UtilityFunction) -> Inverse:
    return finder_for(utility) if is_huge(utility.space) else UtilityInverse(utility)


def clear_inverses() -> None:
    """Forget every shared inverse (benchmarks use it to measure cold starts)."""
    _INVERSES.clear()
