"""Utility functions: linear additive, hyper-rectangle (ANAC 2014) and any callable.

Every utility knows its outcome space, a reservation value (a number, never -inf) and an
optional discount factor. ``u(outcome)`` is the undiscounted utility of one outcome,
``u.batch(rows)`` the utilities of many index rows, ``u.all()`` the utility of every
outcome in flat-index order, and ``u.at(outcome, t)`` the utility discounted to
normalised time ``t``: ``U * delta**t`` (the reservation value is discounted alike).

Example (the PRIANAC lunch domain):
    >>> from accord.core.outcomes import CategoricalIssue, OutcomeSpace
    >>> space = OutcomeSpace([CategoricalIssue("Food", ["Hamburger", "Pizza"]),
    ...                       CategoricalIssue("Drink", ["Cola", "Beer"])])
    >>> u = LinearAdditiveUtility(space, weights=[0.3, 0.7],
    ...     evaluators=[{"Hamburger": 0.7, "Pizza": 1.0}, {"Cola": 0.2, "Beer": 1.0}])
    >>> round(u(("Hamburger", "Beer")), 10)
    0.91
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from accord.core.errors import InvalidScenario
from accord.core.outcomes import (
    CategoricalIssue,
    IndexRows,
    IntegerIssue,
    Issue,
    Outcome,
    OutcomeSpace,
    RealIssue,
)

FloatArray = npt.NDArray[np.float64]


def effective_discount(delta: float | None) -> float | None:
    """The discount factor in force: GENIUS treats ``delta <= 0`` or ``delta > 1`` as none.

    >>> effective_discount(0.5), effective_discount(0.0), effective_discount(1.0)
    (0.5, None, None)
    """
    if delta is None or delta <= 0.0 or delta >= 1.0 or not math.isfinite(delta):
        return None
    return float(delta)


class UtilityFunction(ABC):
    """A utility over an outcome space with reservation value and discount."""

    space: OutcomeSpace
    reservation: float
    discount: float | None

    def _init_common(self, space: OutcomeSpace, reservation: float, discount: float | None) -> None:
        if not math.isfinite(reservation):
            raise InvalidScenario(f"reservation value must be a finite number, got {reservation}")
        self.space = space
        self.reservation = float(reservation)
        self.discount = effective_discount(discount)

    @abstractmethod
    def __call__(self, outcome: Outcome) -> float:
        """Undiscounted utility of one outcome (a value tuple)."""

    @abstractmethod
    def batch(self, rows: IndexRows) -> FloatArray:
        """Undiscounted utilities of index rows (shape ``(n, issues)``)."""

    def all(self) -> FloatArray:
        """Utility of every outcome in flat-index order (discrete spaces)."""
        return self.batch(self.space.enumerate_rows())

    def discount_at(self, t: float) -> float:
        """The factor ``delta**t`` (1 without discount)."""
        return 1.0 if self.discount is None else float(self.discount**t)

    def at(self, outcome: Outcome, t: float) -> float:
        """Utility of ``outcome`` discounted to normalised time ``t``."""
        return self(outcome) * self.discount_at(t)

    def reservation_at(self, t: float) -> float:
        """Reservation value discounted to normalised time ``t``."""
        return self.reservation * self.discount_at(t)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready description (native scenario format)."""
        raise InvalidScenario(f"{type(self).__name__} cannot be written to a scenario file")


# ---------------------------------------------------------------------------------------
# Linear additive


@dataclass(frozen=True)
class LinearEvaluator:
    """``offset + slope * x`` for a numeric issue value ``x``."""

    slope: float
    offset: float = 0.0

    def __call__(self, x: float) -> float:
        return self.offset + self.slope * x


Evaluator = Mapping[Any, float] | LinearEvaluator | Callable[[Any], float]


def _table(issue: Issue, evaluator: Evaluator) -> FloatArray:
    """Evaluation of every value of a discrete issue, in index order."""
    values = issue.values()
    if isinstance(evaluator, Mapping):
        missing = [v for v in values if v not in evaluator]
        if missing:
            raise InvalidScenario(f"issue {issue.name!r}: no evaluation for values {missing[:5]!r}")
        return np.array([float(evaluator[v]) for v in values], dtype=np.float64)
    return np.array([float(evaluator(v)) for v in values], dtype=np.float64)


def _issue_maximum(issue: Issue, evaluator: Evaluator) -> float:
    if issue.is_discrete:
        return float(_table(issue, evaluator).max())
    assert isinstance(issue, RealIssue)
    return max(float(evaluator(issue.lower)), float(evaluator(issue.upper)))  # type: ignore[operator]


class LinearAdditiveUtility(UtilityFunction):
    """``U(w) = sum_i weight_i * eval_i(w_i)`` with GENIUS normalisation.

    With ``normalize=True`` (the default, GENIUS semantics) the weights are divided by
    their sum and each issue's evaluations by that issue's maximum evaluation, so
    ``U`` lies in [0, 1] when the evaluations are non-negative. The reservation value is
    kept as given.

    Args:
        space: the outcome space.
        weights: one weight per issue (in issue order) or ``{issue name: weight}``.
        evaluators: per issue a ``{value: evaluation}`` mapping, a :class:`LinearEvaluator`
            or any callable of the value; a list in issue order or a name-keyed mapping.
        reservation: reservation value.
        discount: discount factor delta (``<= 0`` or ``>= 1`` means none).
    """

    def __init__(
        self,
        space: OutcomeSpace,
        weights: Sequence[float] | Mapping[str, float],
        evaluators: Sequence[Evaluator] | Mapping[str, Evaluator],
        reservation: float = 0.0,
        discount: float | None = None,
        normalize: bool = True,
    ) -> None:
        self._init_common(space, reservation, discount)
        w = _per_issue(space, weights, "weight")
        ev = _per_issue(space, evaluators, "evaluator")
        weights_arr = np.array([float(x) for x in w], dtype=np.float64)
        if (weights_arr < 0).any() or not np.isfinite(weights_arr).all():
            raise InvalidScenario(f"weights must be finite and non-negative, got {list(w)}")
        if normalize:
            total = weights_arr.sum()
            if total <= 0:
                raise InvalidScenario(f"weights must not all be zero, got {list(w)}")
            weights_arr = weights_arr / total
        scales = []
        for issue, e in zip(space.issues, ev, strict=True):
            top = _issue_maximum(issue, e) if normalize else 1.0
            scales.append(1.0 / top if top > 0 else 1.0)
        self.weights: FloatArray = weights_arr
        self.evaluators: tuple[Evaluator, ...] = tuple(ev)
        self.scales: tuple[float, ...] = tuple(scales)
        self.normalized = normalize
        # Per-issue weighted evaluation tables for discrete issues (index order), and
        # value -> weighted evaluation dicts for the scalar fast path.
        self.tables: tuple[FloatArray, ...] = ()
        self._lookups: tuple[dict[Any, float], ...] = ()
        if space.is_discrete:
            self.tables = tuple(
                _table(i, e) * s * wt
                for i, e, s, wt in zip(space.issues, ev, scales, weights_arr, strict=True)
            )
            self._lookups = tuple(
                dict(zip(i.values(), t.tolist(), strict=True))
                for i, t in zip(space.issues, self.tables, strict=True)
            )
        # the tables as views shaped to broadcast into the grid of every outcome (issue k
        # along axis k): all() adds them without np.add.outer's calls
        n = len(self.tables)
        self._grid: tuple[FloatArray, ...] = tuple(
            t.reshape((t.size,) + (1,) * (n - 1 - k)) for k, t in enumerate(self.tables)
        )

    def evaluation(self, issue: int, value: Any) -> float:
        """Normalised evaluation (before weighting) of ``value`` on issue number ``issue``."""
        e = self.evaluators[issue]
        raw = float(e[value]) if isinstance(e, Mapping) else float(e(value))
        return raw * self.scales[issue]

    def __call__(self, outcome: Outcome) -> float:
        lookups = self._lookups
        if lookups:
            # two and three issues written out (agents ask at every offer): the same sums,
            # in the same order, as the loop
            n = len(lookups)
            if type(outcome) is tuple and len(outcome) == n:
                if n == 3:
                    a, b, c = lookups
                    x, y, z = outcome
                    return 0.0 + a[x] + b[y] + c[z]
                if n == 2:
                    a, b = lookups
                    x, y = outcome
                    return 0.0 + a[x] + b[y]
            total = 0.0
            for lookup, v in zip(lookups, outcome, strict=True):
                total += lookup[v]
            return total
        return float(
            sum(
                float(wt) * self.evaluation(k, v)
                for k, (wt, v) in enumerate(zip(self.weights, outcome, strict=True))
            )
        )

    def batch(self, rows: IndexRows) -> FloatArray:
        self.space._require_discrete()
        rows = np.asarray(rows)
        out = np.zeros(rows.shape[0], dtype=np.float64)
        for k, table in enumerate(self.tables):
            out += table[rows[:, k]]
        return out

    def all(self) -> FloatArray:
        """Every outcome's utility by broadcasting per-issue tables (no index rows built)."""
        grid = self._grid
        if len(grid) < 2:
            self.space._require_discrete()
            return np.array(self.tables[0], dtype=np.float64)
        acc = grid[0] + grid[1]  # (t0[a] + t1[b]) + t2[c] ...: the sums of np.add.outer
        for table in grid[2:]:
            acc = acc + table
        return acc.ravel()

    def to_dict(self) -> dict[str, Any]:
        issues: dict[str, Any] = {}
        for k, issue in enumerate(self.space.issues):
            e = self.evaluators[k]
            entry: dict[str, Any] = {"weight": float(self.weights[k])}
            if isinstance(e, LinearEvaluator):
                entry["linear"] = {
                    "slope": e.slope * self.scales[k],
                    "offset": e.offset * self.scales[k],
                }
            elif issue.is_discrete:
                entry["values"] = [[v, self.evaluation(k, v)] for v in issue.values()]
            else:
                raise InvalidScenario(
                    f"issue {issue.name!r}: a callable evaluator cannot be written to a file"
                )
            issues[issue.name] = entry
        return {
            "type": "linear_additive",
            "reservation": self.reservation,
            "discount": self.discount,
            "issues": issues,
        }


def _per_issue(space: OutcomeSpace, data: Any, what: str) -> list[Any]:
    if isinstance(data, Mapping) and set(data) == set(space.names):
        return [data[n] for n in space.names]
    if isinstance(data, Mapping):
        raise InvalidScenario(
            f"{what}s must name exactly the issues {list(space.names)}; got {list(data)}"
        )
    items = list(data)
    if len(items) != len(space.issues):
        raise InvalidScenario(
            f"expected one {what} per issue ({len(space.issues)}: {list(space.names)}), "
            f"got {len(items)}"
        )
    return items


# ---------------------------------------------------------------------------------------
# Hyper-rectangle (ANAC 2014 nonlinear)


@dataclass(frozen=True)
class HyperRectangle:
    """A box of integer ranges ``{issue number: (min, max)}`` worth ``utility`` when hit."""

    utility: float
    bounds: tuple[tuple[int, int, int], ...]  # (issue number, min value, max value)


class HyperRectangleUtility(UtilityFunction):
    """Sum of the utilities of the boxes an outcome lies in, scaled by ``1 / max_utility``.

    Values are compared as numbers (integer issues); the ANAC 2014 files give the maximum.

    >>> space = OutcomeSpace([IntegerIssue("a", 0, 9), IntegerIssue("b", 0, 9)])
    >>> u = HyperRectangleUtility(space, [HyperRectangle(30.0, ((0, 0, 4),)),
    ...                                   HyperRectangle(70.0, ((0, 3, 9), (1, 5, 9)))], 100.0)
    >>> u((3, 7)), u((0, 0)), u((9, 0))
    (1.0, 0.3, 0.0)
    """

    def __init__(
        self,
        space: OutcomeSpace,
        rectangles: Sequence[HyperRectangle],
        max_utility: float | None = None,
        reservation: float = 0.0,
        discount: float | None = None,
    ) -> None:
        self._init_common(space, reservation, discount)
        for issue in space.issues:
            if not isinstance(issue, IntegerIssue | RealIssue | CategoricalIssue):
                raise InvalidScenario(f"unsupported issue {issue!r}")
        self.rectangles = tuple(rectangles)
        top = max_utility if max_utility else sum(max(r.utility, 0.0) for r in rectangles)
        self.max_utility = float(top) if top else 1.0
        # Value of each index per issue, as numbers, for vectorised comparisons.
        self._numeric = (
            tuple(np.asarray(list(i.values()), dtype=np.float64) for i in space.issues)
            if space.is_discrete
            else ()
        )

    def __call__(self, outcome: Outcome) -> float:
        total = 0.0
        for r in self.rectangles:
            if all(lo <= outcome[k] <= hi for k, lo, hi in r.bounds):
                total += r.utility
        return total / self.max_utility

    def batch(self, rows: IndexRows) -> FloatArray:
        rows = np.asarray(rows)
        out = np.zeros(rows.shape[0], dtype=np.float64)
        for r in self.rectangles:
            hit = np.ones(rows.shape[0], dtype=bool)
            for k, lo, hi in r.bounds:
                v = self._numeric[k][rows[:, k]]
                hit &= (v >= lo) & (v <= hi)
            out[hit] += r.utility
        return out / self.max_utility

    def to_dict(self) -> dict[str, Any]:
        return {
            "type": "hyper_rectangle",
            "reservation": self.reservation,
            "discount": self.discount,
            "max_utility": self.max_utility,
            "rectangles": [
                {"utility": r.utility, "bounds": [list(b) for b in r.bounds]}
                for r in self.rectangles
            ],
        }


# ---------------------------------------------------------------------------------------
# Any callable


class CallableUtility(UtilityFunction):
    """Wrap any ``f(outcome) -> float``; ``batch`` calls it once per row.

    >>> from accord.core.outcomes import IntegerIssue
    >>> space = OutcomeSpace([IntegerIssue("n", 0, 4)])
    >>> CallableUtility(space, lambda o: o[0] / 4)((2,))
    0.5
    """

    def __init__(
        self,
        space: OutcomeSpace,
        function: Callable[[Outcome], float],
        reservation: float = 0.0,
        discount: float | None = None,
    ) -> None:
        self._init_common(space, reservation, discount)
        self.function = function

    def __call__(self, outcome: Outcome) -> float:
        return float(self.function(outcome))

    def batch(self, rows: IndexRows) -> FloatArray:
        space = self.space
        return np.fromiter(
            (self.function(space.outcome_of_row(r)) for r in np.asarray(rows)),
            dtype=np.float64,
            count=len(rows),
        )


def utility_from_dict(space: OutcomeSpace, data: Mapping[str, Any]) -> UtilityFunction:
    """Inverse of ``to_dict`` for linear additive and hyper-rectangle utilities."""
    kind = data.get("type")
    rv = float(data.get("reservation", 0.0))
    disc = data.get("discount")
    if kind == "linear_additive":
        issues = data["issues"]
        weights = {n: float(issues[n]["weight"]) for n in space.names}
        evaluators: dict[str, Evaluator] = {}
        for n in space.names:
            entry = issues[n]
            if "linear" in entry:
                evaluators[n] = LinearEvaluator(
                    float(entry["linear"]["slope"]), float(entry["linear"]["offset"])
                )
            else:
                evaluators[n] = {_hashable(v): float(e) for v, e in entry["values"]}
        return LinearAdditiveUtility(
            space, weights, evaluators, reservation=rv, discount=disc, normalize=False
        )
    if kind == "hyper_rectangle":
        rects = [
            HyperRectangle(float(r["utility"]), tuple(tuple(b) for b in r["bounds"]))
            for r in data["rectangles"]
        ]
        return HyperRectangleUtility(
            space, rects, float(data["max_utility"]), reservation=rv, discount=disc
        )
    raise InvalidScenario(f"utility type must be linear_additive or hyper_rectangle, got {kind!r}")


def _hashable(v: Any) -> Any:
    return tuple(v) if isinstance(v, list) else v
