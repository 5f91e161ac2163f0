"""Built-in SCML agents: do-nothing, random and a profit-seeking trader.

Example:
    >>> resolve_agent_type("random").__name__
    'RandomAgent'
"""

from __future__ import annotations

from accord.leagues.scml.agent import SCMLAgent
from accord.leagues.scml.agents.basic import DoNothingAgent, RandomAgent
from accord.leagues.scml.agents.trader import TraderAgent
from accord.leagues.scml.registry import UnknownAgentType, load_agent_type

__all__ = ["DoNothingAgent", "RandomAgent", "TraderAgent", "BUILTIN_AGENTS", "resolve_agent_type"]

#: built-in short names (the registry maps them to import paths)
BUILTIN_AGENTS: dict[str, type[SCMLAgent]] = {
    "donothing": DoNothingAgent,
    "random": RandomAgent,
    "trader": TraderAgent,
}


def resolve_agent_type(name: str) -> type[SCMLAgent]:
    """A built-in short name (``donothing``, ``random``, ``trader``, ``market``) or ``module:Class``."""
    cls = load_agent_type(name)
    if not issubclass(cls, SCMLAgent):
        raise UnknownAgentType(f"{name!r} is not an SCMLAgent subclass")
    return cls  # type: ignore[no-any-return]
