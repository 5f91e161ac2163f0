"""The ANAC 2017 Diplomacy league: deals, the notary, a tactical module, ANAC scoring.

The deal model, the notary and the scoring are pure Python. Playing games needs the
AGPL ``diplomacy`` engine: ``pip install '.[diplomacy]'``. See ``docs/diplomacy.md``.
"""

from accord.core.protocols.base import ProtocolInfo, TurnStyle
from accord.core.protocols.result import Action

from .deals import Deal, DealError, Dmz, OrderCommitment
from .notary import Notary, NotaryError
from .scoring import game_points, standings

PROTOCOL = ProtocolInfo(
    id="diplomacy-anac2017-v1",
    name="ANAC 2017 Diplomacy (BANDANA unstructured negotiation with a notary)",
    turns=TurnStyle.SIMULTANEOUS,
    actions=frozenset({Action.OFFER, Action.ACCEPT, Action.REJECT, Action.END}),
    min_parties=7,
    max_parties=7,
    description="Deals of order commitments and DMZs, confirmed by a notary; no turns.",
)
"""What the league's negotiation protocol is (a game of its own: not built by
``make_session``, whose factories take an outcome space)."""

__all__ = [
    "PROTOCOL",
    "Deal",
    "DealError",
    "Dmz",
    "Notary",
    "NotaryError",
    "OrderCommitment",
    "game_points",
    "standings",
]
