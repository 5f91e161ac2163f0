"""Everything a :class:`~accord.core.protocols.rules.Rules` module is written with, in one
place: import the kit once and name its parts through it.

    >>> from accord.core.protocols import kit
    >>> field = kit.ActionField("coins", kit.FieldKind.INTEGER, low=0, high=10)
    >>> kit.Legal(0, (kit.ActionSpec("demand", (field,)),)).kinds
    ('demand',)

The parts: the contract (:class:`Rules`), what a party may do (:class:`Legal`,
:class:`ActionSpec`, :class:`ActionField`, :class:`FieldKind`), what happens
(:class:`Event`, :class:`Visibility`), a refusal (:class:`IllegalAction`), an agent's
failure (:class:`Failure`, :class:`FailureKind`) and what the protocol is
(:class:`ProtocolInfo`, :class:`TurnStyle`).
"""

from __future__ import annotations

from accord.core.protocols.base import ProtocolInfo, TurnStyle
from accord.core.protocols.result import Failure, FailureKind
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

__all__ = [
    "ActionField",
    "ActionSpec",
    "Event",
    "Failure",
    "FailureKind",
    "FieldKind",
    "IllegalAction",
    "Legal",
    "ProtocolInfo",
    "Rules",
    "TurnStyle",
    "Visibility",
]
