"""Agent types by name: built-in short names and ``"module:Class"`` paths.

The world knows agents only through this registry of import paths (as Gymnasium's
``entry_point`` strings), so it never imports an agent module itself: the agent
interface sits above the world.

Example:
    >>> agent_path("Trader"), agent_path("do-nothing-agent")
    ('accord.leagues.scml.agents.trader:TraderAgent', 'accord.leagues.scml.agents.basic:DoNothingAgent')
    >>> agent_path("nobody")
    Traceback (most recent call last):
    ...
    accord.leagues.scml.registry.UnknownAgentType: unknown agent type 'nobody'; use one of ['donothing', 'market', 'random', 'trader'] or 'module:Class'
"""

from __future__ import annotations

from typing import Any

from accord.core.errors import ConfigError
from accord.core.imports import import_object

__all__ = ["BUILTIN_AGENTS", "UnknownAgentType", "agent_path", "load_agent_type"]

#: short name -> "module:Class"
BUILTIN_AGENTS: dict[str, str] = {
    "donothing": "accord.leagues.scml.agents.basic:DoNothingAgent",
    "random": "accord.leagues.scml.agents.basic:RandomAgent",
    "trader": "accord.leagues.scml.agents.trader:TraderAgent",
    "market": "accord.leagues.scml.agents.market:MarketAgent",
}


class UnknownAgentType(ConfigError):
    """A name that is neither a built-in agent nor a loadable ``module:Class``."""


def agent_path(name: str) -> str:
    """The ``module:Class`` path of a built-in short name (or of a path itself)."""
    if ":" in name:
        return name.strip()
    key = name.strip().lower().replace("-", "").replace("_", "")
    if key in BUILTIN_AGENTS:
        return BUILTIN_AGENTS[key]
    if key.endswith("agent") and key[: -len("agent")] in BUILTIN_AGENTS:
        return BUILTIN_AGENTS[key[: -len("agent")]]
    raise UnknownAgentType(
        f"unknown agent type {name!r}; use one of {sorted(BUILTIN_AGENTS)} or 'module:Class'"
    )


def load_agent_type(name: str) -> Any:
    """Import the class named by ``name`` (a short name or ``module:Class``)."""
    try:
        cls = import_object(agent_path(name), "SCML agent type")
    except UnknownAgentType:
        raise
    except ConfigError as exc:
        raise UnknownAgentType(str(exc)) from None
    if not (isinstance(cls, type) and callable(getattr(cls, "bind", None))):
        raise UnknownAgentType(f"{name!r} is not an SCML agent class (it has no bind())")
    return cls
