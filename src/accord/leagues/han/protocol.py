"""The league's entry in the protocol registry: ``han-v1``.

The IAGO-style game is not a turn-based session of core negotiators: events flow both
ways at any time, offers are partial, and agents are :class:`~accord.leagues.han.api.HanAgent`
objects. It is registered so that its versioned id and capabilities are listed with the
others; building it through :func:`~accord.core.protocols.make_session` is refused with
where to go instead.

    >>> from accord.core.protocols import protocol_info
    >>> protocol_info("han").id
    'han-v1'
"""

from __future__ import annotations

from typing import Any, NoReturn

from accord.core.errors import ConfigError
from accord.core.protocols import ProtocolInfo, TurnStyle, register_protocol
from accord.core.protocols.result import Action

__all__ = ["HAN", "HAN_TABLE"]

HAN = ProtocolInfo(
    "han-v1",
    "Human-agent negotiation, IAGO style (ANAC 2017)",
    TurnStyle.SIMULTANEOUS,
    frozenset({Action.OFFER, Action.ACCEPT, Action.END}),
    min_parties=2,
    max_parties=2,
    description="partial item offers, menu messages, emotions; both formally accept the "
    "same full offer; quit or time gives BATNAs",
)


HAN_TABLE = ProtocolInfo(
    "han-table-v1",
    "Human-agent negotiation as IAGO runs it: inboxes, spaced outboxes, the 5 s clock",
    TurnStyle.SIMULTANEOUS,
    frozenset({Action.OFFER, Action.ACCEPT, Action.END}),
    min_parties=2,
    max_parties=2,
    description="han-v1 with flood protection: each agent answers one event at a time and "
    "its events go out 1.1 s apart; people act at any time",
)
"""The rules of :mod:`accord.leagues.han.table` (not registered: built by the league)."""


def _factory(*args: Any, **kwargs: Any) -> NoReturn:
    raise ConfigError(
        "han-v1 games run through accord.leagues.han (play.play, `accord han play`), "
        "with HanAgent objects, not through make_session"
    )


register_protocol(_factory, HAN, names=["han", "iago"])
