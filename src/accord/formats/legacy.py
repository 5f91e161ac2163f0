"""GENIUS profiles that a plain linear additive utility cannot express exactly.

Two old GENIUS evaluators are not linear additive: a real issue whose linear evaluation
``p1 * x + p0`` is clamped to [0, 1] inside the issue's range, and the *price* evaluator
(``type="price"``), whose evaluation depends on the costs of the values chosen on the
other issues: ``clamp((price - costs - lower) / (upper - lower - max_costs), 0, 1)``.
:class:`GeniusAdditiveUtility` evaluates such profiles exactly and can be written to
the native format (``"type": "genius_additive"``) and back to GENIUS XML.

    >>> from accord.core.outcomes import CategoricalIssue, OutcomeSpace, RealIssue
    >>> space = OutcomeSpace([CategoricalIssue("cd", ["good", "none"]),
    ...                       RealIssue("price", 100.0, 200.0)])
    >>> u = GeniusAdditiveUtility(space, [0.5, 0.5],
    ...     [TableTerm({"good": 1.0, "none": 0.0}), PriceTerm(100.0, 180.0)],
    ...     costs=[{"good": 20.0, "none": 0.0}, None])
    >>> u(("good", 150.0)), u(("none", 200.0))
    (0.75, 0.5)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from accord.core.errors import InvalidScenario
from accord.core.outcomes import IndexRows, Outcome, OutcomeSpace
from accord.core.utilities import FloatArray, UtilityFunction


def clamp01(x: float) -> float:
    """``x`` limited to [0, 1] (GENIUS clamps numeric evaluations this way)."""
    return 0.0 if x < 0.0 else 1.0 if x > 1.0 else x


@dataclass(frozen=True)
class TableTerm:
    """Evaluation of each value of a discrete issue (already normalised)."""

    values: Mapping[Any, float]


@dataclass(frozen=True)
class ClampedLinearTerm:
    """``clamp(slope * x + offset, 0, 1)`` for a numeric issue value ``x``."""

    slope: float
    offset: float

    def __call__(self, x: float) -> float:
        return clamp01(self.slope * x + self.offset)


@dataclass(frozen=True)
class PriceTerm:
    """GENIUS price evaluator on a range ``[lower, upper]`` with a rationality factor."""

    lower: float
    upper: float
    rationality: float = 0.0


Term = TableTerm | ClampedLinearTerm | PriceTerm


class GeniusAdditiveUtility(UtilityFunction):
    """Weighted sum of table, clamped-linear and price evaluations (old GENIUS profiles).

    Args:
        space: the outcome space.
        weights: one weight per issue (used as given; normalise them beforehand).
        terms: one term per issue.
        costs: per issue ``{value: cost}`` for discrete issues (``None`` elsewhere); the
            price terms subtract the summed costs of the chosen values.
        reservation: reservation value.
        discount: discount factor (``<= 0`` or ``>= 1`` means none).
    """

    def __init__(
        self,
        space: OutcomeSpace,
        weights: Sequence[float],
        terms: Sequence[Term],
        costs: Sequence[Mapping[Any, float] | None] | None = None,
        reservation: float = 0.0,
        discount: float | None = None,
    ) -> None:
        self._init_common(space, reservation, discount)
        n = len(space.issues)
        cost_list = list(costs) if costs is not None else [None] * n
        if len(weights) != n or len(terms) != n or len(cost_list) != n:
            raise InvalidScenario(
                f"expected one weight, term and cost table per issue ({n}); got "
                f"{len(weights)} weights, {len(terms)} terms, {len(cost_list)} cost tables"
            )
        for issue, term in zip(space.issues, terms, strict=True):
            if isinstance(term, TableTerm):
                missing = [v for v in issue.values() if v not in term.values]
                if missing:
                    raise InvalidScenario(
                        f"issue {issue.name!r}: no evaluation for values {missing[:5]!r}"
                    )
            elif issue.is_discrete and not all(isinstance(v, int | float) for v in issue.values()):
                raise InvalidScenario(f"issue {issue.name!r}: a numeric term needs numeric values")
        self.weights = tuple(float(w) for w in weights)
        self.terms = tuple(terms)
        self.costs: tuple[Mapping[Any, float] | None, ...] = tuple(cost_list)
        self.max_costs = sum(max(c.values()) for c in self.costs if c)
        self._columns: dict[tuple[int, str], FloatArray] = {}

    def _evaluate(self, k: int, outcome: Outcome) -> float:
        term, x = self.terms[k], outcome[k]
        if isinstance(term, TableTerm):
            return float(term.values[x])
        if isinstance(term, ClampedLinearTerm):
            return term(float(x))
        spent = sum(c[v] for c, v in zip(self.costs, outcome, strict=True) if c)
        margin = term.upper - term.lower - self.max_costs
        if margin == 0:
            return 0.0
        return clamp01((float(x) - spent - term.lower) / margin)

    def __call__(self, outcome: Outcome) -> float:
        return float(sum(w * self._evaluate(k, outcome) for k, w in enumerate(self.weights)))

    def batch(self, rows: IndexRows) -> FloatArray:
        """Utilities of index rows, vectorised per issue; equal to ``__call__`` bit for bit
        (the same operations in the same order)."""
        idx = np.asarray(rows, dtype=np.int64).reshape(-1, len(self.weights))
        spent: FloatArray | int = 0
        for k, cost in enumerate(self.costs):
            if cost:
                spent = spent + self._column(k, "cost")[idx[:, k]]
        total: FloatArray | float = 0
        for k, (w, term) in enumerate(zip(self.weights, self.terms, strict=True)):
            if isinstance(term, TableTerm):
                ev = self._column(k, "table")[idx[:, k]]
            elif isinstance(term, ClampedLinearTerm):
                x = self._column(k, "number")[idx[:, k]]
                ev = np.clip(term.slope * x + term.offset, 0.0, 1.0)
            else:
                margin = term.upper - term.lower - self.max_costs
                x = self._column(k, "number")[idx[:, k]]
                ev = (
                    np.zeros(idx.shape[0])
                    if margin == 0
                    else np.clip((x - spent - term.lower) / margin, 0.0, 1.0)
                )
            total = total + w * ev
        return np.broadcast_to(np.asarray(total, dtype=np.float64), (idx.shape[0],)).copy()

    def _column(self, k: int, kind: str) -> FloatArray:
        """Per value index of issue ``k``: its table evaluation, cost or number (cached)."""
        found = self._columns.get((k, kind))
        if found is None:
            values = self.space.issues[k].values()
            term, costs = self.terms[k], self.costs[k] or {}
            if kind == "table" and isinstance(term, TableTerm):
                found = np.array([float(term.values[v]) for v in values], dtype=np.float64)
            elif kind == "cost":
                missing = [v for v in values if v not in costs]
                if missing:
                    raise InvalidScenario(
                        f"issue {self.space.issues[k].name!r}: no cost for values {missing[:5]!r}"
                    )
                found = np.array([costs[v] for v in values], dtype=np.float64)
            else:
                found = np.array([float(v) for v in values], dtype=np.float64)
            self._columns[(k, kind)] = found
        return found

    def to_dict(self) -> dict[str, Any]:
        issues: dict[str, Any] = {}
        for issue, w, term, cost in zip(
            self.space.issues, self.weights, self.terms, self.costs, strict=True
        ):
            entry: dict[str, Any] = {"weight": w}
            if isinstance(term, TableTerm):
                entry["values"] = [[v, float(term.values[v])] for v in issue.values()]
            elif isinstance(term, ClampedLinearTerm):
                entry["clamped_linear"] = {"slope": term.slope, "offset": term.offset}
            else:
                entry["price"] = {
                    "lower": term.lower,
                    "upper": term.upper,
                    "rationality": term.rationality,
                }
            if cost:
                entry["costs"] = [[v, float(cost[v])] for v in issue.values() if v in cost]
            issues[issue.name] = entry
        return {
            "type": "genius_additive",
            "reservation": self.reservation,
            "discount": self.discount,
            "issues": issues,
        }


def genius_additive_from_dict(
    space: OutcomeSpace, data: Mapping[str, Any]
) -> GeniusAdditiveUtility:
    """Inverse of :meth:`GeniusAdditiveUtility.to_dict`."""
    issues = data["issues"]
    weights: list[float] = []
    terms: list[Term] = []
    costs: list[Mapping[Any, float] | None] = []
    for name in space.names:
        entry = issues[name]
        weights.append(float(entry["weight"]))
        if "values" in entry:
            terms.append(TableTerm({_key(v): float(e) for v, e in entry["values"]}))
        elif "clamped_linear" in entry:
            lin = entry["clamped_linear"]
            terms.append(ClampedLinearTerm(float(lin["slope"]), float(lin["offset"])))
        elif "price" in entry:
            p = entry["price"]
            terms.append(
                PriceTerm(float(p["lower"]), float(p["upper"]), float(p.get("rationality", 0.0)))
            )
        else:
            raise InvalidScenario(
                f"issue {name!r}: expected 'values', 'clamped_linear' or 'price', "
                f"got keys {sorted(entry)}"
            )
        costs.append({_key(v): float(c) for v, c in entry["costs"]} if "costs" in entry else None)
    return GeniusAdditiveUtility(
        space,
        weights,
        terms,
        costs,
        reservation=float(data.get("reservation", 0.0)),
        discount=data.get("discount"),
    )


def _key(v: Any) -> Any:
    return tuple(v) if isinstance(v, list) else v
