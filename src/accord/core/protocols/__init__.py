"""Negotiation protocols as small state machines, with a registry.

Every protocol's rules implement the pure :class:`Rules` contract (:mod:`.rules`: who
acts, what is legal, what an action does, what a party sees; no clock, no agent calls).

The contract (:class:`Mechanism`: phase, ``step``, ``run``, ``result``) and the
capability record (:class:`ProtocolInfo`) are in :mod:`.base`; the shared pieces of a
turn-taking protocol in :mod:`.machine`; alternating offers (AOP/SAOP and the
simultaneous-start variant) in :mod:`.alternating`; the one-shot ultimatum game in
:mod:`.ultimatum`; lookup and session building in :mod:`.registry`.
"""

from accord.core.protocols.alternating import AOP, AOP_SIMULTANEOUS, AOPRules, Session
from accord.core.protocols.base import Mechanism, Phase, ProtocolInfo, TurnStyle
from accord.core.protocols.driver import AgentDriver, Seat
from accord.core.protocols.machine import BaseSession
from accord.core.protocols.offers import NegotiationSetup, OfferRules, OfferSession
from accord.core.protocols.registry import (
    DEFAULT_PROTOCOL,
    TABLE,
    RegisteredProtocol,
    TableEntry,
    check_protocol_agents,
    known_protocols,
    load_all,
    make_session,
    protocol_ids,
    protocol_info,
    register_protocol,
    resolve_protocol,
    table_entry,
    unregister_protocol,
)
from accord.core.protocols.result import (
    Action,
    EndReason,
    Failure,
    FailureKind,
    SessionResult,
    TraceEntry,
)
from accord.core.protocols.rules import (
    ActionField,
    ActionSpec,
    Event,
    FieldKind,
    IllegalAction,
    Legal,
    Rules,
    Visibility,
)
from accord.core.protocols.ultimatum import ULTIMATUM, Ultimatum, UltimatumRules

__all__ = [
    "AOP",
    "AOP_SIMULTANEOUS",
    "DEFAULT_PROTOCOL",
    "TABLE",
    "ULTIMATUM",
    "AOPRules",
    "Action",
    "ActionField",
    "ActionSpec",
    "AgentDriver",
    "BaseSession",
    "EndReason",
    "Event",
    "Failure",
    "FailureKind",
    "FieldKind",
    "IllegalAction",
    "Legal",
    "Mechanism",
    "NegotiationSetup",
    "OfferRules",
    "OfferSession",
    "Phase",
    "ProtocolInfo",
    "RegisteredProtocol",
    "Rules",
    "Seat",
    "Session",
    "SessionResult",
    "TableEntry",
    "TraceEntry",
    "TurnStyle",
    "Ultimatum",
    "UltimatumRules",
    "Visibility",
    "check_protocol_agents",
    "known_protocols",
    "load_all",
    "make_session",
    "protocol_ids",
    "protocol_info",
    "register_protocol",
    "resolve_protocol",
    "table_entry",
    "unregister_protocol",
]
