"""The ANAC 2017 Human-Agent Negotiation league, IAGO style (``accord.leagues.han``).

A person and an agent split item counts of 3 to 5 issues, with partial offers, menu
messages, preference and BATNA statements and emotions, for 10 minutes; nothing binds
until both formally accept the same full offer. Modules: ``domain`` (game specs,
offers, points), ``events``, ``engine`` (the game's rules), ``rules`` (them as a core
``Rules``), ``queues`` and ``table`` (the game as IAGO runs it, with flood protection, a
pure ``Rules`` machine), ``api`` (``on_event``), ``seats`` (an agent at the shared agent
driver), ``play`` (agent-vs-agent games), ``game`` (a game with a person, for the
server), ``agents``, ``participants`` (simulated people), ``scoring`` (CSV rows,
likeability), ``tournament``, ``server``, ``cli``.
"""

from accord.leagues.han.domain import DOMAINS, EXAMPLE_1, EXAMPLE_2, GameSpec, Offer
from accord.leagues.han.engine import Game, GameResult
from accord.leagues.han.events import Event, EventKind
from accord.leagues.han.protocol import HAN

__all__ = [
    "DOMAINS",
    "EXAMPLE_1",
    "EXAMPLE_2",
    "HAN",
    "Event",
    "EventKind",
    "Game",
    "GameResult",
    "GameSpec",
    "Offer",
]
