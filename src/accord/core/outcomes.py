"""Issues and outcome spaces.

An outcome is a tuple with one value per issue. Inside, a discrete outcome space is a
mixed-radix grid: an outcome is a row of value indices and its *flat index* is the
mixed-radix number of that row (the last issue varies fastest), so a whole space can be
enumerated, sampled and evaluated as numpy arrays.

Example:
    >>> space = OutcomeSpace([CategoricalIssue("food", ["Hamburger", "Pizza"]),
    ...                       IntegerIssue("price", 1, 3)])
    >>> space.cardinality
    6
    >>> space.outcome_at(4)
    ('Pizza', 2)
    >>> space.flat_index(("Pizza", 2))
    4
    >>> space.validate(("Sushi", 2))
    Traceback (most recent call last):
    ...
    accord.core.errors.InvalidOutcome: issue 'food' got 'Sushi'; allowed: 'Hamburger', 'Pizza'
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from accord.core.errors import InvalidOutcome, InvalidScenario

Value = Any
Outcome = tuple[Any, ...]
IndexRows = npt.NDArray[np.int64]


class Issue(ABC):
    """One negotiable issue: a name and the values it may take."""

    name: str

    @property
    @abstractmethod
    def is_discrete(self) -> bool:
        """True if the issue has finitely many values."""

    @property
    @abstractmethod
    def cardinality(self) -> int | float:
        """Number of values (``math.inf`` for a real range)."""

    @abstractmethod
    def contains(self, value: Value) -> bool:
        """True if ``value`` is one of this issue's values."""

    @abstractmethod
    def allowed(self) -> str:
        """A short human description of the allowed values (for error messages)."""

    @abstractmethod
    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready description (see :func:`issue_from_dict`)."""

    def values(self) -> Sequence[Value]:
        """All values of a discrete issue, in index order."""
        raise InvalidScenario(f"issue {self.name!r} is continuous and has no value list")

    def index_of(self, value: Value) -> int:
        """Index of ``value`` among :meth:`values`."""
        raise InvalidScenario(f"issue {self.name!r} is continuous and has no value indices")

    def sample(self, n: int, rng: np.random.Generator) -> list[Value]:
        """``n`` values drawn uniformly."""
        vals = self.values()
        return [vals[i] for i in rng.integers(0, len(vals), size=n)]


@dataclass(frozen=True, eq=True)
class CategoricalIssue(Issue):
    """An issue with a finite list of values (strings, numbers, anything hashable).

    >>> CategoricalIssue("drink", ["Cola", "Beer"]).index_of("Beer")
    1
    """

    name: str
    options: tuple[Value, ...]
    _index: dict[Value, int] = field(init=False, repr=False, compare=False, hash=False)

    def __init__(self, name: str, values: Sequence[Value]) -> None:
        opts = tuple(values)
        if not opts:
            raise InvalidScenario(f"issue {name!r} needs at least one value, got none")
        index = {v: i for i, v in enumerate(opts)}
        if len(index) != len(opts):
            dup = sorted({str(v) for v in opts if opts.count(v) > 1})
            raise InvalidScenario(f"issue {name!r} repeats values: {', '.join(dup)}")
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "options", opts)
        object.__setattr__(self, "_index", index)

    @property
    def is_discrete(self) -> bool:
        return True

    @property
    def cardinality(self) -> int:
        return len(self.options)

    def values(self) -> tuple[Value, ...]:
        return self.options

    def index_of(self, value: Value) -> int:
        try:
            return self._index[value]
        except (KeyError, TypeError):
            raise InvalidOutcome(
                f"issue {self.name!r} got {value!r}; allowed: {self.allowed()}"
            ) from None

    def contains(self, value: Value) -> bool:
        try:
            return value in self._index
        except TypeError:
            return False

    def positions(self) -> dict[Value, int]:
        """Each value's index (the issue's own table: read it, never change it)."""
        return self._index

    def allowed(self) -> str:
        shown = ", ".join(repr(v) for v in self.options[:10])
        return shown + (f", ... ({len(self.options)} values)" if len(self.options) > 10 else "")

    def to_dict(self) -> dict[str, Any]:
        return {"type": "categorical", "name": self.name, "values": list(self.options)}


@dataclass(frozen=True)
class IntegerIssue(Issue):
    """Whole numbers from ``lower`` to ``upper`` inclusive.

    >>> IntegerIssue("guns", 1, 10).cardinality
    10
    """

    name: str
    lower: int
    upper: int

    def __post_init__(self) -> None:
        if self.upper < self.lower:
            raise InvalidScenario(
                f"issue {self.name!r}: upper bound {self.upper} is below lower bound {self.lower}"
            )

    @property
    def is_discrete(self) -> bool:
        return True

    @property
    def cardinality(self) -> int:
        return self.upper - self.lower + 1

    def values(self) -> range:
        return range(self.lower, self.upper + 1)

    def index_of(self, value: Value) -> int:
        if not self.contains(value):
            raise InvalidOutcome(f"issue {self.name!r} got {value!r}; allowed: {self.allowed()}")
        return int(value) - self.lower

    def contains(self, value: Value) -> bool:
        if type(value) is int:  # the common case, checked first (offers are validated hot)
            return bool(self.lower <= value <= self.upper)
        if isinstance(value, bool) or not isinstance(value, int | np.integer):
            return False
        return bool(self.lower <= value <= self.upper)

    def allowed(self) -> str:
        return f"integers {self.lower}..{self.upper}"

    def to_dict(self) -> dict[str, Any]:
        return {"type": "integer", "name": self.name, "lower": self.lower, "upper": self.upper}


@dataclass(frozen=True)
class RealIssue(Issue):
    """Real numbers in ``[lower, upper]``; enumerate it through :meth:`OutcomeSpace.discretize`.

    >>> RealIssue("price", 0.0, 1.0).contains(0.25)
    True
    """

    name: str
    lower: float
    upper: float

    def __post_init__(self) -> None:
        if not (math.isfinite(self.lower) and math.isfinite(self.upper)) or self.upper < self.lower:
            raise InvalidScenario(f"issue {self.name!r}: bad range [{self.lower}, {self.upper}]")

    @property
    def is_discrete(self) -> bool:
        return False

    @property
    def cardinality(self) -> float:
        return math.inf

    def contains(self, value: Value) -> bool:
        if isinstance(value, bool) or not isinstance(value, int | float | np.integer | np.floating):
            return False
        return bool(self.lower <= value <= self.upper)

    def allowed(self) -> str:
        return f"real numbers in [{self.lower}, {self.upper}]"

    def grid(self, levels: int) -> list[float]:
        """``levels`` evenly spaced values from ``lower`` to ``upper``."""
        if levels < 2 or self.lower == self.upper:
            return [float(self.lower)]
        return [float(x) for x in np.linspace(self.lower, self.upper, levels)]

    def sample(self, n: int, rng: np.random.Generator) -> list[Value]:
        return [float(x) for x in rng.uniform(self.lower, self.upper, size=n)]

    def to_dict(self) -> dict[str, Any]:
        return {"type": "real", "name": self.name, "lower": self.lower, "upper": self.upper}


def issue_from_dict(data: Mapping[str, Any]) -> Issue:
    """Build an issue from :meth:`Issue.to_dict` output.

    >>> issue_from_dict({"type": "integer", "name": "n", "lower": 0, "upper": 2}).cardinality
    3
    """
    kind = data.get("type")
    if kind == "categorical":
        return CategoricalIssue(data["name"], data["values"])
    if kind == "integer":
        return IntegerIssue(data["name"], int(data["lower"]), int(data["upper"]))
    if kind == "real":
        return RealIssue(data["name"], float(data["lower"]), float(data["upper"]))
    raise InvalidScenario(f"issue type must be categorical, integer or real; got {kind!r}")


class OutcomeSpace:
    """The product of a list of issues."""

    __slots__ = (
        "issues",
        "names",
        "radices",
        "strides",
        "_contains",
        "_members",
        "_index_of",
        "_values",
        "_digits",
        "_cardinality",
        "_bounds",
    )

    def __init__(self, issues: Sequence[Issue]) -> None:
        if not issues:
            raise InvalidScenario("an outcome space needs at least one issue")
        names = [i.name for i in issues]
        if len(set(names)) != len(names):
            raise InvalidScenario(f"issue names must be unique, got {names}")
        self.issues: tuple[Issue, ...] = tuple(issues)
        self.names: tuple[str, ...] = tuple(names)
        self._contains = tuple(i.contains for i in issues)
        # every issue categorical: the value -> index dicts, for is_valid's fast path
        self._members: tuple[dict[Value, int], ...] | None = (
            tuple(i.positions() for i in issues)  # type: ignore[attr-defined]
            if all(type(i) is CategoricalIssue for i in issues)
            else None
        )
        # every issue an integer range: the bounds, for is_valid's fast path
        self._bounds: tuple[tuple[int, int], ...] | None = (
            tuple((i.lower, i.upper) for i in issues)  # type: ignore[attr-defined]
            if all(type(i) is IntegerIssue for i in issues)
            else None
        )
        if all(i.is_discrete for i in issues):
            self.radices = np.array([int(i.cardinality) for i in issues], dtype=np.int64)
            strides = np.ones(len(issues), dtype=np.int64)
            for k in range(len(issues) - 2, -1, -1):
                strides[k] = strides[k + 1] * self.radices[k + 1]
            self.strides = strides
            self._index_of = tuple(i.index_of for i in issues)
            self._values = tuple(i.values() for i in issues)
            self._digits = tuple(
                (vals, int(st), int(rad))
                for vals, st, rad in zip(self._values, strides, self.radices, strict=True)
            )
            self._cardinality: int | float = math.prod(int(r) for r in self.radices)
        else:
            self.radices = np.zeros(0, dtype=np.int64)
            self.strides = np.zeros(0, dtype=np.int64)
            self._index_of = ()
            self._values = ()
            self._digits = ()
            self._cardinality = math.inf

    # -- shape -------------------------------------------------------------------------
    @property
    def is_discrete(self) -> bool:
        """True when every issue is discrete (the space can be enumerated)."""
        return bool(self._values)

    @property
    def cardinality(self) -> int | float:
        """Number of outcomes (``math.inf`` if an issue is real)."""
        return self._cardinality

    def __len__(self) -> int:
        return len(self.issues)

    def __reduce__(self) -> tuple[type[OutcomeSpace], tuple[tuple[Issue, ...]]]:
        """Pickled as its issues (the derived tables are rebuilt)."""
        return (OutcomeSpace, (self.issues,))

    def __repr__(self) -> str:
        return f"OutcomeSpace({', '.join(f'{i.name}:{i.cardinality}' for i in self.issues)})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, OutcomeSpace) and self.issues == other.issues

    def __hash__(self) -> int:
        return hash(self.issues)

    def _require_discrete(self) -> None:
        if not self.is_discrete:
            raise InvalidScenario(
                f"{self!r} has real issues; call discretize(levels) to enumerate it"
            )

    # -- validation ----------------------------------------------------------------------
    def is_valid(self, outcome: object) -> bool:
        """Fast check that ``outcome`` is a tuple/list of allowed values."""
        members = self._members
        if members is not None and type(outcome) is tuple and len(outcome) == len(members):
            try:  # every issue categorical: what their contains() does, in one loop
                if len(members) == 3:  # (written out for two and three issues)
                    a, b, c = members
                    x, y, z = outcome
                    return x in a and y in b and z in c
                if len(members) == 2:
                    a, b = members
                    x, y = outcome
                    return x in a and y in b
                for allowed, v in zip(members, outcome, strict=False):  # same length
                    if v not in allowed:
                        return False
            except TypeError:  # an unhashable value
                return False
            return True
        bounds = self._bounds
        if bounds is not None and type(outcome) is tuple and len(outcome) == len(bounds):
            for (lo, hi), v in zip(bounds, outcome, strict=False):  # same length
                if type(v) is not int:  # numpy integers, bools, anything else: the issue says
                    return self._check_each(outcome)
                if not lo <= v <= hi:
                    return False
            return True
        return self._check_each(outcome)

    def _check_each(self, outcome: object) -> bool:
        contains = self._contains
        if not isinstance(outcome, tuple | list) or len(outcome) != len(contains):
            return False
        for ok, v in zip(contains, outcome, strict=False):  # same length: checked above
            if not ok(v):
                return False
        return True

    def validate(self, outcome: object) -> Outcome:
        """Return ``outcome`` as a tuple or raise :class:`InvalidOutcome` saying what is wrong.

        Accepts the documented forms: a tuple or list of values, a dict ``{issue: value}``
        and a 1-D numpy array.
        """
        if isinstance(outcome, Mapping):
            outcome = self.from_dict(outcome)
        elif isinstance(outcome, np.ndarray) and outcome.ndim == 1:
            outcome = outcome.tolist()
        if not isinstance(outcome, tuple | list):
            raise InvalidOutcome(
                f"an outcome must be a tuple of {len(self.issues)} values "
                f"({', '.join(self.names)}); got {type(outcome).__name__} {outcome!r}"
            )
        if len(outcome) != len(self.issues):
            raise InvalidOutcome(
                f"an outcome needs {len(self.issues)} values ({', '.join(self.names)}); "
                f"got {len(outcome)}: {tuple(outcome)!r}"
            )
        for issue, value in zip(self.issues, outcome, strict=True):
            if not issue.contains(value):
                raise InvalidOutcome(
                    f"issue {issue.name!r} got {value!r}; allowed: {issue.allowed()}"
                )
        return tuple(outcome)

    # -- conversions ---------------------------------------------------------------------
    def to_dict(self, outcome: Outcome) -> dict[str, Value]:
        """``{issue name: value}`` for an outcome."""
        return dict(zip(self.names, outcome, strict=True))

    def from_dict(self, values: Mapping[str, Value]) -> Outcome:
        """An outcome tuple from ``{issue name: value}``; every issue must be present."""
        missing = [n for n in self.names if n not in values]
        extra = [k for k in values if k not in self.names]
        if missing or extra:
            raise InvalidOutcome(
                f"outcome dict must have exactly the issues {list(self.names)}; "
                f"missing {missing}, unexpected {extra}"
            )
        return tuple(values[n] for n in self.names)

    def row_of(self, outcome: Outcome) -> tuple[int, ...]:
        """Value indices of an outcome (discrete spaces)."""
        self._require_discrete()
        return tuple(f(v) for f, v in zip(self._index_of, outcome, strict=True))

    def flat_index(self, outcome: Outcome) -> int:
        """The mixed-radix number of an outcome (discrete spaces)."""
        row = self.row_of(outcome)
        return int(sum(int(s) * r for s, r in zip(self.strides, row, strict=True)))

    def outcome_at(self, flat: int) -> Outcome:
        """The outcome with mixed-radix number ``flat``."""
        digits = self._digits
        if len(digits) == 3:  # the common shapes written out (agents ask at every new offer)
            (v0, s0, r0), (v1, s1, r1), (v2, s2, r2) = digits
            return (v0[flat // s0 % r0], v1[flat // s1 % r1], v2[flat // s2 % r2])
        if len(digits) == 2:
            (v0, s0, r0), (v1, s1, r1) = digits
            return (v0[flat // s0 % r0], v1[flat // s1 % r1])
        if not digits:
            self._require_discrete()
        return tuple([vals[(flat // stride) % radix] for vals, stride, radix in digits])

    def outcome_of_row(self, row: Sequence[int] | npt.NDArray[np.integer[Any]]) -> Outcome:
        """The outcome whose value indices are ``row``."""
        self._require_discrete()
        return tuple(vals[int(i)] for vals, i in zip(self._values, row, strict=True))

    def rows_of_flat(self, flat: npt.ArrayLike) -> IndexRows:
        """Index rows (shape ``(n, issues)``) of an array of flat indices."""
        self._require_discrete()
        f = np.asarray(flat, dtype=np.int64)
        return (f[:, None] // self.strides[None, :]) % self.radices[None, :]

    def flat_of_rows(self, rows: npt.ArrayLike) -> npt.NDArray[np.int64]:
        """Flat indices of index rows."""
        self._require_discrete()
        return np.asarray(rows, dtype=np.int64) @ self.strides

    # -- enumeration and sampling ----------------------------------------------------------
    def enumerate_rows(self) -> IndexRows:
        """Every outcome as an index row, in flat-index order."""
        self._require_discrete()
        return self.rows_of_flat(np.arange(int(self.cardinality), dtype=np.int64))

    def __iter__(self) -> Iterator[Outcome]:
        """Iterate every outcome as a value tuple (small spaces)."""
        self._require_discrete()
        for flat in range(int(self.cardinality)):
            yield self.outcome_at(flat)

    def sample_rows(self, n: int, rng: np.random.Generator) -> IndexRows:
        """``n`` outcomes drawn uniformly (with replacement) as index rows."""
        self._require_discrete()
        return rng.integers(0, self.radices[None, :], size=(n, len(self.issues)))

    def sample(self, n: int, rng: np.random.Generator) -> list[Outcome]:
        """``n`` outcomes drawn uniformly (with replacement) as value tuples."""
        columns = [issue.sample(n, rng) for issue in self.issues]
        return list(zip(*columns, strict=True))

    def discretize(self, levels: int = 10) -> OutcomeSpace:
        """A discrete space in which each real issue becomes ``levels`` grid values."""
        if self.is_discrete:
            return self
        issues: list[Issue] = [
            CategoricalIssue(i.name, i.grid(levels)) if isinstance(i, RealIssue) else i
            for i in self.issues
        ]
        return OutcomeSpace(issues)

    def to_list(self) -> list[dict[str, Any]]:
        """JSON-ready description of the issues."""
        return [i.to_dict() for i in self.issues]

    @classmethod
    def from_list(cls, data: Sequence[Mapping[str, Any]]) -> OutcomeSpace:
        """Inverse of :meth:`to_list`."""
        return cls([issue_from_dict(d) for d in data])
