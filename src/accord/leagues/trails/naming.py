"""Colored Trails agents by name: the built-ins, or ``pkg.module:Class`` for your own.

>>> make_agent("purb").name, sorted(AGENTS)[:2]
('purb', ['greedy', 'purb'])
"""

from __future__ import annotations

from accord.core.errors import ConfigError
from accord.core.imports import import_object, is_import_path
from accord.leagues.trails.agent import Agent
from accord.leagues.trails.baselines import BASELINES
from accord.leagues.trails.people import SIMULATED_PEOPLE
from accord.leagues.trails.purb import Purb

__all__ = ["AGENTS", "build_agent", "make_agent"]

AGENTS: dict[str, type[Agent]] = {"purb": Purb, **BASELINES, **SIMULATED_PEOPLE}


def make_agent(name: str | Agent) -> Agent:
    """An agent by name (``purb``, ``reliable``, ``unreliable``, ``greedy``, ``random``, or a
    simulated person ``sim-cooperative``, ``sim-reciprocal``, ``sim-opportunist``,
    ``sim-forgetful``)."""
    if isinstance(name, Agent):
        return name
    cls = AGENTS.get(name.strip().lower())
    if cls is None:
        raise ConfigError(f"unknown trails agent {name!r}; known: {', '.join(AGENTS)}")
    return cls()


def build_agent(name: str) -> Agent:
    """A built-in agent by name or ``pkg.module:Class`` (in this process: trusted code)."""
    if is_import_path(name):
        agent = import_object(name, "trails agent")()
        if not isinstance(agent, Agent):
            raise ConfigError(f"{name!r} is not a Colored Trails Agent")
        return agent
    return make_agent(name)
