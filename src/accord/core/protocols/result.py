"""The typed result of a negotiation session and the entries of its trace."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, NamedTuple

from accord.core.outcomes import Outcome


class EndReason(StrEnum):
    """Why a session ended."""

    AGREEMENT = "agreement"
    DEADLINE = "deadline"
    WALKAWAY = "walkaway"
    FAILURE = "failure"


class Action(StrEnum):
    """What a party did at one step of the trace."""

    OFFER = "offer"
    ACCEPT = "accept"
    END = "end"


class TraceEntry(NamedTuple):
    """One action: step number, acting party, what it did, the outcome offered, time."""

    step: int
    party: int
    action: Action
    outcome: Outcome | None
    time: float


class FailureKind(StrEnum):
    """How a negotiator failed."""

    EXCEPTION = "exception"
    INVALID = "invalid"
    TIMEOUT = "timeout"


@dataclass(frozen=True)
class Failure:
    """A failure recorded against one negotiator (``traceback``: where it raised, if it did)."""

    party: int
    name: str
    kind: FailureKind
    message: str
    traceback: str = field(default="", repr=False)


@dataclass(frozen=True)
class SessionResult:
    """Everything a finished session produced.

    ``utilities`` are the final, discounted utilities: of the agreement at the time it
    was reached, otherwise each party's reservation value at the time the session ended.
    """

    agreement: Outcome | None
    reason: EndReason
    ended_by: int | None
    time: float
    steps: int
    rounds: int
    elapsed: float
    utilities: tuple[float, ...]
    names: tuple[str, ...]
    failure: Failure | None = None
    trace: list[TraceEntry] = field(default_factory=list, repr=False)

    @property
    def succeeded(self) -> bool:
        """True if an agreement was reached."""
        return self.agreement is not None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready summary (without the trace)."""
        return {
            "agreement": list(self.agreement) if self.agreement is not None else None,
            "reason": self.reason.value,
            "ended_by": self.ended_by,
            "time": self.time,
            "steps": self.steps,
            "rounds": self.rounds,
            "elapsed": self.elapsed,
            "utilities": list(self.utilities),
            "names": list(self.names),
            "failure": None
            if self.failure is None
            else {
                "party": self.failure.party,
                "name": self.failure.name,
                "kind": self.failure.kind.value,
                "message": self.failure.message,
                "traceback": self.failure.traceback,
            },
        }
