"""The ANAC 2017 Diplomacy league: deals, the notary, a tactical module, ANAC scoring.

The deal model, the notary and the scoring are pure Python. Playing games needs the
AGPL ``diplomacy`` engine: ``pip install 'accord[diplomacy]'``. See ``docs/diplomacy.md``.
"""

from .deals import Deal, DealError, Dmz, OrderCommitment
from .notary import Notary, NotaryError
from .scoring import game_points, standings

__all__ = [
    "Deal",
    "DealError",
    "Dmz",
    "Notary",
    "NotaryError",
    "OrderCommitment",
    "game_points",
    "standings",
]
