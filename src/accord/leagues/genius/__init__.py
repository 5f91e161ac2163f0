"""People versus agents, GENIUS style: partial offers, opt-out, KBAgent and PDAs.

The league of spec section 2 (the GENIUS/BIU environment and the KBAgent) and section 4
(evaluating agents with peer-designed agents). Modules: :mod:`.domain` (domains, types,
utility), :mod:`.protocol` (the session state machine), :mod:`.agent` and :mod:`.match`
(agents and two-agent runs), :mod:`.qo`, :mod:`.knowledge` and :mod:`.kbagent` (the
KBAgent), :mod:`.pdas` (the peer-designed agents), :mod:`.store`, :mod:`.evaluate` and
:mod:`.cli`; :mod:`.mechanism` registers the protocol as ``genius-partial-v1`` in the
core registry when this package is imported. See ``docs/genius.md``.
"""

from accord.leagues.genius.agent import GeniusAgent, PartyView
from accord.leagues.genius.domain import Domain, Profile
from accord.leagues.genius.kbagent import KBAgent
from accord.leagues.genius.loading import bundled_domains, load_domain
from accord.leagues.genius.match import Match
from accord.leagues.genius.mechanism import GENIUS_PARTIAL, PartialConceder, PartialOffersSession
from accord.leagues.genius.pdas import PDAS, make_agent
from accord.leagues.genius.protocol import (
    Action,
    EndReason,
    GeniusResult,
    GeniusSession,
    Kind,
    Phase,
    Rules,
    VirtualClock,
)

__all__ = [
    "GENIUS_PARTIAL",
    "PDAS",
    "Action",
    "Domain",
    "EndReason",
    "GeniusAgent",
    "GeniusResult",
    "GeniusSession",
    "KBAgent",
    "Kind",
    "Match",
    "PartialConceder",
    "PartialOffersSession",
    "PartyView",
    "Phase",
    "Profile",
    "Rules",
    "VirtualClock",
    "bundled_domains",
    "load_domain",
    "make_agent",
]
