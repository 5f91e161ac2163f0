"""What an offer protocol is played on: :class:`NegotiationSetup`, and the typed form of
an offer (:func:`offer_spec`) a page or a schema is built from.

    >>> from accord.core.outcomes import CategoricalIssue, IntegerIssue, OutcomeSpace
    >>> space = OutcomeSpace([CategoricalIssue("food", ["pizza", "tacos"]), IntegerIssue("n", 1, 3)])
    >>> [(f.name, f.kind.value, f.options, f.low, f.high) for f in offer_spec(space).fields]
    [('food', 'choice', ('pizza', 'tacos'), None, None), ('n', 'integer', (), 1, 3)]
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from accord.core.errors import ConfigError
from accord.core.outcomes import (
    CategoricalIssue,
    IntegerIssue,
    Outcome,
    OutcomeSpace,
    RealIssue,
    issue_from_dict,
)
from accord.core.protocols.rules import ActionField, ActionSpec, FieldKind
from accord.core.time import Deadline
from accord.core.utilities import UtilityFunction, utility_from_dict

__all__ = ["NegotiationSetup", "offer_spec", "outcome_json", "plain"]


@dataclass(frozen=True)
class NegotiationSetup:
    """What an offer protocol is played on.

    Args:
        space: the outcome space.
        utilities: one utility per party, on ``space``.
        deadline: rounds and/or seconds.
        names: the parties' (unique) names, in turn order.
        first: the party that acts first.
    """

    space: OutcomeSpace
    utilities: tuple[UtilityFunction, ...]
    deadline: Deadline
    names: tuple[str, ...]
    first: int = 0

    def __post_init__(self) -> None:
        n = len(self.names)
        if n < 2:
            raise ConfigError(f"a negotiation needs at least 2 negotiators, got {n}")
        if len(self.utilities) != n:
            raise ConfigError(
                f"expected {n} utilities (one per negotiator), got {len(self.utilities)}"
            )
        for k, u in enumerate(self.utilities):
            if u.space != self.space:
                raise ConfigError(f"utility {k} is defined on {u.space!r}, not on {self.space!r}")
        if not 0 <= self.first < n:
            raise ConfigError(f"first must be a party index in 0..{n - 1}, got {self.first}")

    def to_json(self) -> dict[str, Any]:
        """The setup as JSON-ready data (utilities through their ``to_dict``)."""
        d = self.deadline
        return {
            "issues": [i.to_dict() for i in self.space.issues],
            "utilities": [u.to_dict() for u in self.utilities],
            "deadline": {"rounds": d.rounds, "seconds": d.seconds},
            "names": list(self.names),
            "first": self.first,
        }

    @classmethod
    def trusted(
        cls,
        space: OutcomeSpace,
        utilities: tuple[UtilityFunction, ...],
        deadline: Deadline,
        names: tuple[str, ...],
        first: int,
    ) -> NegotiationSetup:
        """A setup its caller has already checked (the agent driver's fast path)."""
        setup = object.__new__(cls)
        setup.__dict__.update(  # frozen: its fields set the way the dataclass's own init does
            space=space, utilities=utilities, deadline=deadline, names=names, first=first
        )
        return setup

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> NegotiationSetup:
        """The setup :meth:`to_json` wrote."""
        space = OutcomeSpace([issue_from_dict(i) for i in data["issues"]])
        return cls(
            space,
            tuple(utility_from_dict(space, u) for u in data["utilities"]),
            Deadline(**data["deadline"]),
            tuple(data["names"]),
            int(data["first"]),
        )


def offer_spec(space: OutcomeSpace, label: str = "Make an offer") -> ActionSpec:
    """The typed description of an offer on ``space``: one field per issue."""
    fields = []
    for issue in space.issues:
        if isinstance(issue, CategoricalIssue):
            fields.append(ActionField(issue.name, FieldKind.CHOICE, options=issue.values()))
        elif isinstance(issue, IntegerIssue):
            fields.append(
                ActionField(issue.name, FieldKind.INTEGER, low=issue.lower, high=issue.upper)
            )
        elif isinstance(issue, RealIssue):
            fields.append(
                ActionField(issue.name, FieldKind.NUMBER, low=issue.lower, high=issue.upper)
            )
        else:  # pragma: no cover - every issue type of the core is listed above
            raise ConfigError(f"issue {issue.name!r} of type {type(issue).__name__} has no form")
    return ActionSpec("offer", tuple(fields), label)


def plain(v: Any) -> Any:
    """A JSON scalar for an outcome value (numpy scalars become Python ones)."""
    item = getattr(v, "item", None)
    return item() if item is not None and not isinstance(v, str | int | float) else v


def outcome_json(outcome: Outcome | None) -> list[Any] | None:
    """An outcome as a JSON list (numpy scalars made plain); ``None`` stays ``None``."""
    return None if outcome is None else [plain(v) for v in outcome]
