"""The core: outcome spaces, utilities, time, negotiators and protocols.

>>> from accord.core import CategoricalIssue, OutcomeSpace
>>> OutcomeSpace([CategoricalIssue("x", ["a", "b"])]).cardinality
2
"""

from accord.core.errors import (
    AccordError,
    ConfigError,
    FormatError,
    InvalidOffer,
    InvalidOutcome,
    InvalidScenario,
    NegotiatorTimeout,
    ProtocolViolation,
)
from accord.core.negotiator import Negotiator, NegotiatorView, OfferLog, Response
from accord.core.outcomes import (
    CategoricalIssue,
    IntegerIssue,
    Issue,
    Outcome,
    OutcomeSpace,
    RealIssue,
)
from accord.core.protocols import (
    Action,
    EndReason,
    Failure,
    FailureKind,
    Phase,
    Session,
    SessionResult,
    TraceEntry,
)
from accord.core.scenario import Scenario
from accord.core.time import Deadline
from accord.core.utilities import (
    CallableUtility,
    HyperRectangle,
    HyperRectangleUtility,
    LinearAdditiveUtility,
    LinearEvaluator,
    UtilityFunction,
    effective_discount,
)

__all__ = [
    "AccordError",
    "Action",
    "CallableUtility",
    "CategoricalIssue",
    "ConfigError",
    "Deadline",
    "EndReason",
    "Failure",
    "FailureKind",
    "FormatError",
    "HyperRectangle",
    "HyperRectangleUtility",
    "IntegerIssue",
    "InvalidOffer",
    "InvalidOutcome",
    "InvalidScenario",
    "Issue",
    "LinearAdditiveUtility",
    "LinearEvaluator",
    "Negotiator",
    "NegotiatorTimeout",
    "NegotiatorView",
    "OfferLog",
    "Outcome",
    "OutcomeSpace",
    "Phase",
    "ProtocolViolation",
    "RealIssue",
    "Response",
    "Scenario",
    "Session",
    "SessionResult",
    "TraceEntry",
    "UtilityFunction",
    "effective_discount",
]
