"""HUMAINE seller agents, simulated buyers, the language layer and fast mode.

>>> from accord.leagues.humaine.agents import StrongSeller, RegexSeller, make_buyer, run_fast_round
>>> result = run_fast_round(StrongSeller("Celia"), RegexSeller("Watson"), make_buyer("fair"), seed=1)
>>> sorted(result["sellers"])
['Celia', 'Watson']

The HTTP services live in :mod:`accord.leagues.humaine.agents.service`.
"""

from .base import AgentContext, SellerAgent
from .buyers import (
    BUYERS,
    FairBuyer,
    ImpatientBuyer,
    LowballBuyer,
    ShopperBuyer,
    SimulatedBuyer,
    make_buyer,
)
from .fastmode import FastRound, VirtualLoop, run_fast_round
from .language import Act, ActKind, parse_utterance
from .simple import RegexSeller
from .strong import StrongSeller
from .tournament import SELLERS, leaderboard, run_tournament, seller_factory

__all__ = [
    "BUYERS",
    "SELLERS",
    "Act",
    "ActKind",
    "AgentContext",
    "FairBuyer",
    "FastRound",
    "ImpatientBuyer",
    "LowballBuyer",
    "RegexSeller",
    "SellerAgent",
    "ShopperBuyer",
    "SimulatedBuyer",
    "StrongSeller",
    "VirtualLoop",
    "leaderboard",
    "make_buyer",
    "parse_utterance",
    "run_fast_round",
    "run_tournament",
    "seller_factory",
]
