"""The typed result of a negotiation session and the entries of its trace."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, NamedTuple

from accord.core.errors import InvalidOffer, NegotiatorTimeout, ProtocolViolation
from accord.core.outcomes import Outcome

INVALID_OFFER = "invalid offer"
"""How the message of a failure for an offer outside the outcome space begins."""


class EndReason(StrEnum):
    """Why a session ended."""

    AGREEMENT = "agreement"
    DEADLINE = "deadline"
    WALKAWAY = "walkaway"
    FAILURE = "failure"
    REJECTED = "rejected"
    """A final offer was rejected (the ultimatum game)."""
    LEFT = "left"
    """A party left for good before the end (a person closed the game; an agent's
    process died or hung): HAN's outcome ``left``."""


class Action(StrEnum):
    """What a party did at one step of the trace."""

    OFFER = "offer"
    ACCEPT = "accept"
    END = "end"
    REJECT = "reject"
    """A rejection that is an action of its own (the ultimatum game; in AOP a rejection
    is the counter-offer that follows it)."""


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

    def error(self, context: str) -> ProtocolViolation:
        """The exception for callers that raise on a failure, ``context`` first.

        :class:`~accord.core.errors.NegotiatorTimeout` for a timeout,
        :class:`~accord.core.errors.InvalidOffer` for an offer outside the outcome
        space, :class:`~accord.core.errors.ProtocolViolation` otherwise.

            >>> Failure(0, "A", FailureKind.TIMEOUT, "propose took 2 s").error("session 1")
            NegotiatorTimeout('session 1: A failed (timeout): propose took 2 s')
        """
        text = f"{context}: {self.name} failed ({self.kind.value}): {self.message}"
        if self.kind is FailureKind.TIMEOUT:
            return NegotiatorTimeout(text)
        if self.kind is FailureKind.INVALID and self.message.startswith(INVALID_OFFER):
            return InvalidOffer(text)
        return ProtocolViolation(text)


_new = object.__new__


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
    trace: Sequence[TraceEntry] = field(default_factory=list, repr=False)

    @classmethod
    def trusted(
        cls,
        agreement: Outcome | None,
        reason: EndReason,
        ended_by: int | None,
        time: float,
        steps: int,
        rounds: int,
        elapsed: float,
        utilities: tuple[float, ...],
        names: tuple[str, ...],
        failure: Failure | None,
        trace: Sequence[TraceEntry],
    ) -> SessionResult:
        """The same result as the constructor, its fields filled in one update (the frozen
        dataclass's ``__init__`` sets each through ``object.__setattr__``: about 1 us a
        session). For the rules, whose values are already checked.

        >>> r = SessionResult.trusted(None, EndReason.DEADLINE, None, 1.0, 4, 2, 0.0,
        ...                           (0.0, 0.0), ("a", "b"), None, [])
        >>> r == SessionResult(None, EndReason.DEADLINE, None, 1.0, 4, 2, 0.0, (0.0, 0.0),
        ...                    ("a", "b"), None, [])
        True
        """
        r = _new(cls)
        r.__dict__.update(
            agreement=agreement,
            reason=reason,
            ended_by=ended_by,
            time=time,
            steps=steps,
            rounds=rounds,
            elapsed=elapsed,
            utilities=utilities,
            names=names,
            failure=failure,
            trace=trace,
        )
        return r

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
