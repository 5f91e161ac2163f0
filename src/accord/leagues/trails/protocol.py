"""Colored Trails in the protocol registry: ``colored-trails-v1`` (and the one-shot variant).

The registry records what the game is (turn style, actions, two parties) so listings and
tools find it, and results name a versioned id. A Colored Trails game is played over a
board and chips, not an outcome space, so its sessions are built by
:func:`accord.leagues.trails.match.play` (or :class:`~accord.leagues.trails.engine.Game`);
asking the registry for a session says so.

    >>> from accord.core.protocols.registry import protocol_info
    >>> protocol_info("colored-trails").id
    'colored-trails-v1'
"""

from __future__ import annotations

from typing import Any

from accord.core.errors import ConfigError
from accord.core.protocols.base import ProtocolInfo, TurnStyle
from accord.core.protocols.registry import register_protocol
from accord.core.protocols.result import Action

__all__ = ["COLORED_TRAILS", "COLORED_TRAILS_ONESHOT"]

COLORED_TRAILS = ProtocolInfo(
    "colored-trails-v1",
    "Colored Trails (negotiation, non-binding transfer, movement)",
    TurnStyle.SEQUENTIAL,
    frozenset({Action.OFFER, Action.ACCEPT, Action.REJECT, Action.END}),
    min_parties=2,
    max_parties=2,
    description="chip trades that need not be kept, moves paid with chips; ends at a goal "
    "or after 3 dormant turns; turn protocol 'alternating' (one proposal a turn, default) or "
    "'counter' (alternating offers inside the phase) (accord.leagues.trails)",
)
COLORED_TRAILS_ONESHOT = ProtocolInfo(
    "colored-trails-oneshot-v1",
    "Colored Trails one-shot (OpenSpiel's variant)",
    TurnStyle.SEQUENTIAL,
    frozenset({Action.OFFER, Action.ACCEPT, Action.REJECT}),
    min_parties=3,
    max_parties=3,
    description="two proposers, one responder, one trade (accord.leagues.trails.oneshot)",
)


def _board_game(*args: Any, **kwargs: Any) -> Any:
    raise ConfigError(
        "Colored Trails is played on a board, not an outcome space: use "
        "accord.leagues.trails.match.play(setup, agents) or `accord trails play`"
    )


register_protocol(_board_game, COLORED_TRAILS, names=["colored-trails", "trails"])
register_protocol(_board_game, COLORED_TRAILS_ONESHOT, names=["colored-trails-oneshot"])
