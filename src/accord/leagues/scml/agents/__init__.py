"""Built-in SCML agents: do-nothing, random, a cautious trader and the default ``market``.

Example:
    >>> resolve_agent_type("random").__name__
    'RandomAgent'
"""

from __future__ import annotations

from accord.leagues.scml.agent import SCMLAgent
from accord.leagues.scml.agents.basic import DoNothingAgent, RandomAgent
from accord.leagues.scml.agents.market import MarketAgent
from accord.leagues.scml.agents.trader import TraderAgent
from accord.leagues.scml.registry import UnknownAgentType, load_agent_type

__all__ = [
    "BUILTIN_AGENTS",
    "DoNothingAgent",
    "MarketAgent",
    "RandomAgent",
    "TraderAgent",
    "resolve_agent_type",
]

#: built-in short names (the registry maps them to import paths)
BUILTIN_AGENTS: dict[str, type[SCMLAgent]] = {
    "donothing": DoNothingAgent,
    "random": RandomAgent,
    "trader": TraderAgent,
    "market": MarketAgent,
}


def resolve_agent_type(name: str) -> type[SCMLAgent]:
    """A built-in short name (``donothing``, ``random``, ``trader``, ``market``) or ``module:Class``.

    Raises :class:`UnknownAgentType` (a :class:`~accord.core.errors.ConfigError`).
    """
    cls = load_agent_type(name)
    if not issubclass(cls, SCMLAgent):
        raise UnknownAgentType(f"SCML agent type {name!r} is {cls!r}: not an SCMLAgent subclass")
    return cls  # type: ignore[no-any-return]
