"""The core: outcome spaces, utilities, time, negotiators and protocols.

>>> from accord.core import CategoricalIssue, OutcomeSpace
>>> OutcomeSpace([CategoricalIssue("x", ["a", "b"])]).cardinality
2
"""

from accord.core.capabilities import OptsOut, ProposesPartial, SendsMessages
from accord.core.errors import (
    AccordError,
    CapabilityError,
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
    Mechanism,
    Phase,
    ProtocolInfo,
    Session,
    SessionResult,
    TraceEntry,
    TurnStyle,
    Ultimatum,
    make_session,
    protocol_info,
    register_protocol,
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
    "CapabilityError",
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
    "Mechanism",
    "Negotiator",
    "NegotiatorTimeout",
    "NegotiatorView",
    "OfferLog",
    "OptsOut",
    "Outcome",
    "OutcomeSpace",
    "Phase",
    "ProposesPartial",
    "ProtocolInfo",
    "ProtocolViolation",
    "RealIssue",
    "Response",
    "Scenario",
    "SendsMessages",
    "Session",
    "SessionResult",
    "TraceEntry",
    "TurnStyle",
    "Ultimatum",
    "UtilityFunction",
    "effective_discount",
    "make_session",
    "protocol_info",
    "register_protocol",
]
