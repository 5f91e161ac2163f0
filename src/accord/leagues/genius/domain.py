"""Domains of the GENIUS people-versus-agents protocol: issues, sides, types, utility.

A domain has discrete issues, two sides (e.g. employer and candidate) and a finite set
of *types* per side; each type is a raw additive utility (spec section 2)::

    U_l(o, t) = multiplier * sum_i w_i * eval_i(o_i) + t * time_effect

Evaluations are raw numbers and may be negative; weights are used as written. An agreement
may be partial: an issue left open (``None``) is scored with the issue's "No agreement"
value when the domain has one, else 0 (the paper's rule; ``open_issues="code"`` scores
every open issue 0, as the original Java code does). Opting out at turn ``t`` is worth
``opt_out + t * time_effect``, the status quo ``status_quo + t * time_effect``.

    >>> from accord.leagues.genius.loading import load_domain
    >>> d = load_domain("job_candidate")
    >>> d.size, d.sides, [p.name for p in d.types[0]]
    (1296, ('employer', 'candidate'), ['short-term', 'long-term', 'compromise'])
    >>> p = d.types[0][0]
    >>> p.utility(("12,000 NIS", "Programmer", "With leased car", "10%", "Fast promotion track",
    ...            "9 hours"), 0)
    470.0
    >>> p.utility(("12,000 NIS", "Programmer", "With leased car", "10%", "Fast promotion track",
    ...            "9 hours"), 3)
    452.0
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from accord.core.errors import InvalidScenario
from accord.core.outcomes import CategoricalIssue, OutcomeSpace

__all__ = [
    "FORMAT",
    "OPEN",
    "Domain",
    "Issue",
    "OpenIssues",
    "PartialOutcome",
    "Profile",
]

FORMAT = "accord-genius-domain/1"
"""The ``format`` tag of a native domain file."""

OPEN = -1
"""Index of an issue left open in an index row."""

PartialOutcome = tuple[str | None, ...]
"""One value per issue, ``None`` for an issue left open."""

OpenIssues = Literal["paper", "code"]


@dataclass(frozen=True)
class Issue:
    """A discrete issue; ``no_agreement`` names its "No agreement" value, if any."""

    name: str
    values: tuple[str, ...]
    no_agreement: str | None = None

    def __post_init__(self) -> None:
        if len(self.values) < 1 or len(set(self.values)) != len(self.values):
            raise InvalidScenario(
                f"issue {self.name!r} needs distinct values, got {list(self.values)}"
            )
        if self.no_agreement is not None and self.no_agreement not in self.values:
            raise InvalidScenario(
                f"issue {self.name!r}: no_agreement {self.no_agreement!r} is not one of "
                f"its values {list(self.values)}"
            )


@dataclass(frozen=True, eq=False)
class Profile:
    """One type of one side: weights, raw evaluations and the three constants."""

    name: str
    issues: tuple[Issue, ...]
    weights: tuple[float, ...]
    evaluations: tuple[tuple[float, ...], ...]
    status_quo: float
    opt_out: float
    time_effect: float
    multiplier: float = 100.0
    table: npt.NDArray[np.float64] = field(init=False, repr=False)
    open_paper: npt.NDArray[np.float64] = field(init=False, repr=False)
    _lists: tuple[tuple[tuple[float, ...], ...], tuple[float, ...]] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        n = len(self.issues)
        if len(self.weights) != n or len(self.evaluations) != n:
            raise InvalidScenario(
                f"type {self.name!r}: expected {n} weights and {n} evaluation lists "
                f"(one per issue), got {len(self.weights)} and {len(self.evaluations)}"
            )
        width = max(len(i.values) for i in self.issues) + 1
        table = np.zeros((n, width))
        open_paper = np.zeros(n)
        for k, (issue, w, ev) in enumerate(
            zip(self.issues, self.weights, self.evaluations, strict=True)
        ):
            if len(ev) != len(issue.values):
                raise InvalidScenario(
                    f"type {self.name!r}, issue {issue.name!r}: expected {len(issue.values)} "
                    f"evaluations (one per value), got {len(ev)}"
                )
            table[k, : len(ev)] = np.asarray(ev, dtype=float) * w * self.multiplier
            if issue.no_agreement is not None:
                open_paper[k] = table[k, issue.values.index(issue.no_agreement)]
        object.__setattr__(self, "table", table)
        object.__setattr__(self, "open_paper", open_paper)
        lists = tuple(tuple(float(x) for x in r) for r in table)
        object.__setattr__(self, "_lists", (lists, tuple(float(x) for x in open_paper)))

    def score(
        self, row: Sequence[int] | npt.NDArray[np.int64], open_issues: OpenIssues = "paper"
    ) -> float:
        """Time-free utility of one index row (fast path of :meth:`scores`)."""
        lists, open_paper = self._lists
        total = 0.0
        paper = open_issues == "paper"
        for k, v in enumerate(row.tolist() if isinstance(row, np.ndarray) else row):
            if v >= 0:
                total += lists[k][v]
            elif paper:
                total += open_paper[k]
        return total

    def scores(
        self, rows: npt.NDArray[np.int64], open_issues: OpenIssues = "paper"
    ) -> npt.NDArray[np.float64]:
        """Time-free utilities of index rows (``OPEN`` = -1 for an open issue), vectorised."""
        rows = np.atleast_2d(rows)
        cols = np.arange(rows.shape[1])
        safe = np.where(rows < 0, self.table.shape[1] - 1, rows)
        out = self.table[cols, safe]
        if open_issues == "paper":
            out = np.where(rows < 0, self.open_paper[cols], out)
        return np.asarray(out.sum(axis=1), dtype=np.float64)

    def utility(
        self, outcome: Sequence[str | None], t: float, open_issues: OpenIssues = "paper"
    ) -> float:
        """U(outcome, t) of a (possibly partial) outcome given by values."""
        row = np.array([row_value(i, v) for i, v in zip(self.issues, outcome, strict=True)])
        return float(self.scores(row, open_issues)[0] + t * self.time_effect)

    def status_quo_at(self, t: float) -> float:
        """Status quo value at time period ``t``."""
        return self.status_quo + t * self.time_effect

    def opt_out_at(self, t: float) -> float:
        """Opt-out value at time period ``t``."""
        return self.opt_out + t * self.time_effect

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (the native domain file's ``types`` entries)."""
        return {
            "name": self.name,
            "weights": list(self.weights),
            "evaluations": [list(e) for e in self.evaluations],
            "status_quo": self.status_quo,
            "opt_out": self.opt_out,
            "time_effect": self.time_effect,
        }


def row_value(issue: Issue, value: str | None) -> int:
    """Index of ``value`` in ``issue`` (``OPEN`` for None); a clear error otherwise."""
    if value is None:
        return OPEN
    try:
        return issue.values.index(value)
    except ValueError:
        raise InvalidScenario(
            f"issue {issue.name!r} has no value {value!r}; allowed: {list(issue.values)}"
        ) from None


@dataclass(frozen=True, eq=False)
class Domain:
    """Issues, two sides and the types of each side."""

    name: str
    issues: tuple[Issue, ...]
    sides: tuple[str, str]
    types: tuple[tuple[Profile, ...], tuple[Profile, ...]]
    multiplier: float = 100.0
    space: OutcomeSpace = field(init=False, repr=False)
    rows: npt.NDArray[np.int64] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        for side, profiles in zip(self.sides, self.types, strict=True):
            if not profiles:
                raise InvalidScenario(f"domain {self.name!r}: side {side!r} has no types")
        space = OutcomeSpace([CategoricalIssue(i.name, list(i.values)) for i in self.issues])
        object.__setattr__(self, "space", space)
        object.__setattr__(self, "rows", space.enumerate_rows())

    @property
    def size(self) -> int:
        """Number of full outcomes."""
        return int(self.rows.shape[0])

    @property
    def issue_names(self) -> tuple[str, ...]:
        """Issue names in order."""
        return tuple(i.name for i in self.issues)

    def side_index(self, side: str | int) -> int:
        """0 or 1 for a side given by index or name."""
        if isinstance(side, int) and side in (0, 1):
            return side
        if side in self.sides:
            return self.sides.index(str(side))
        raise InvalidScenario(f"unknown side {side!r}; expected one of {list(self.sides)}")

    def type_index(self, side: int, name: str | int) -> int:
        """Index of a type of ``side`` given by index or name."""
        names = [p.name for p in self.types[side]]
        if isinstance(name, int) and 0 <= name < len(names):
            return name
        if name in names:
            return names.index(str(name))
        raise InvalidScenario(
            f"side {self.sides[side]!r} has no type {name!r}; expected one of {names}"
        )

    def row_of(self, values: Mapping[str, str | None]) -> npt.NDArray[np.int64]:
        """Index row of a mapping issue name -> value (missing issues are open)."""
        known = set(self.issue_names)
        unknown = [k for k in values if k not in known]
        if unknown:
            raise InvalidScenario(
                f"unknown issue {unknown[0]!r}; expected one of {list(self.issue_names)}"
            )
        return np.array([row_value(i, values.get(i.name)) for i in self.issues], dtype=np.int64)

    def values_of(self, row: Sequence[int] | npt.NDArray[np.int64]) -> PartialOutcome:
        """Values of an index row (``None`` for open issues)."""
        return tuple(
            None if int(k) < 0 else issue.values[int(k)]
            for issue, k in zip(self.issues, row, strict=True)
        )

    def to_dict(self) -> dict[str, Any]:
        """The native JSON form."""
        return {
            "format": FORMAT,
            "name": self.name,
            "sides": list(self.sides),
            "multiplier": self.multiplier,
            "issues": [
                {"name": i.name, "values": list(i.values), "no_agreement": i.no_agreement}
                for i in self.issues
            ],
            "types": {
                side: [p.to_dict() for p in profiles]
                for side, profiles in zip(self.sides, self.types, strict=True)
            },
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], where: str = "domain") -> Domain:
        """Build from the native JSON form; errors name the field and what arrived."""
        try:
            if data.get("format") != FORMAT:
                raise InvalidScenario(
                    f"{where}: expected format {FORMAT!r}, got {data.get('format')!r}"
                )
            mult = float(data.get("multiplier", 100.0))
            issues = tuple(
                Issue(str(i["name"]), tuple(str(v) for v in i["values"]), i.get("no_agreement"))
                for i in data["issues"]
            )
            sides = tuple(str(s) for s in data["sides"])
            if len(sides) != 2:
                raise InvalidScenario(f"{where}: expected 2 sides, got {list(sides)}")
            types = tuple(
                tuple(
                    Profile(
                        str(p["name"]),
                        issues,
                        tuple(float(w) for w in p["weights"]),
                        tuple(tuple(float(e) for e in ev) for ev in p["evaluations"]),
                        float(p["status_quo"]),
                        float(p["opt_out"]),
                        float(p["time_effect"]),
                        mult,
                    )
                    for p in data["types"][side]
                )
                for side in sides
            )
        except (KeyError, TypeError, ValueError) as exc:
            if isinstance(exc, InvalidScenario):
                raise
            raise InvalidScenario(
                f"{where}: malformed domain ({type(exc).__name__}: {exc})"
            ) from exc
        return cls(str(data["name"]), issues, (sides[0], sides[1]), (types[0], types[1]), mult)
