"""Built-in SCML agents: do-nothing, random and a profit-seeking trader.

Example:
    >>> resolve_agent_type("random").__name__
    'RandomAgent'
"""

from __future__ import annotations

from accord.core.errors import ConfigError
from accord.core.imports import import_object
from accord.leagues.scml.agent import SCMLAgent
from accord.leagues.scml.agents.basic import DoNothingAgent, RandomAgent
from accord.leagues.scml.agents.trader import TraderAgent

__all__ = ["DoNothingAgent", "RandomAgent", "TraderAgent", "BUILTIN_AGENTS", "resolve_agent_type"]

BUILTIN_AGENTS: dict[str, type[SCMLAgent]] = {
    "donothing": DoNothingAgent,
    "random": RandomAgent,
    "trader": TraderAgent,
}


def resolve_agent_type(name: str) -> type[SCMLAgent]:
    """A built-in short name (``donothing``, ``random``, ``trader``) or ``module:Class``."""
    key = name.strip().lower().replace("-", "").replace("_", "")
    if key in BUILTIN_AGENTS:
        return BUILTIN_AGENTS[key]
    if key.endswith("agent") and key[: -len("agent")] in BUILTIN_AGENTS:
        return BUILTIN_AGENTS[key[: -len("agent")]]
    if ":" in name:
        cls = import_object(name, "SCML agent type")
        if isinstance(cls, type) and issubclass(cls, SCMLAgent):
            return cls
        raise ConfigError(f"SCML agent type {name!r} is {cls!r}: not an SCMLAgent subclass")
    raise ConfigError(
        f"unknown agent type {name!r}; use one of {sorted(BUILTIN_AGENTS)} or 'module:Class'"
    )
