"""Negotiation protocols as small state machines."""

from accord.core.protocols.alternating import Phase, Session
from accord.core.protocols.result import (
    Action,
    EndReason,
    Failure,
    FailureKind,
    SessionResult,
    TraceEntry,
)

__all__ = [
    "Action",
    "EndReason",
    "Failure",
    "FailureKind",
    "Phase",
    "SessionResult",
    "Session",
    "TraceEntry",
]
