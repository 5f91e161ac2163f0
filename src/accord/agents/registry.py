"""Find negotiators by short name or import path.

Short names (case-insensitive, ``-`` and ``_`` ignored) name the built-in agents; any
other negotiator is reached by its import path ``package.module:Class`` (or
``package.module.Class``). Keyword parameters go to the constructor.

    >>> get_agent("boulware").exponent
    0.2
    >>> get_agent("timedependent", exponent=3.0).exponent
    3.0
    >>> type(get_agent("accord.agents.simple:Hardliner")).__name__
    'Hardliner'
    >>> get_agent("bolware")
    Traceback (most recent call last):
    ...
    accord.core.errors.ConfigError: unknown agent 'bolware'. Did you mean 'boulware'? Known agents: boulware, conceder, frequency, hardliner, learner, linear, random, timedependent, titfortat; or give an import path 'package.module:Class'
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from typing import Any

from accord.agents.frequency import FrequencyAgent
from accord.agents.simple import Hardliner, RandomNegotiator
from accord.agents.timebased import Boulware, Conceder, Linear, TimeDependent
from accord.agents.titfortat import TitForTat
from accord.core.errors import ConfigError
from accord.core.imports import import_object, is_import_path
from accord.core.negotiator import Negotiator

AgentFactory = Callable[..., Negotiator]

_AGENTS: dict[str, AgentFactory] = {}
_DESCRIPTIONS: dict[str, str] = {}


def _key(name: str) -> str:
    return name.strip().lower().replace("-", "").replace("_", "")


def register_agent(name: str, factory: AgentFactory, description: str = "") -> None:
    """Make ``factory`` (a negotiator class or function) reachable by the short ``name``.

    >>> register_agent("stubborn", Hardliner, "an alias")
    >>> type(get_agent("Stubborn")).__name__
    'Hardliner'
    >>> unregister_agent("stubborn")
    """
    key = _key(name)
    if not key or ":" in key or "." in key:
        raise ConfigError(f"an agent name must be a plain word, got {name!r}")
    _AGENTS[key] = factory
    doc = (getattr(factory, "__doc__", None) or "").strip().splitlines()
    _DESCRIPTIONS[key] = description or (doc[0] if doc else "")


def unregister_agent(name: str) -> None:
    """Remove a short name (no error if it is not registered)."""
    _AGENTS.pop(_key(name), None)
    _DESCRIPTIONS.pop(_key(name), None)


def known_agents() -> dict[str, str]:
    """Short names and one-line descriptions, sorted by name."""
    return {k: _DESCRIPTIONS.get(k, "") for k in sorted(_AGENTS)}


def resolve_agent(name: str) -> AgentFactory:
    """The class or factory a short name or an import path refers to."""
    if not isinstance(name, str) or not name.strip():
        raise ConfigError(f"an agent must be named by a non-empty string, got {name!r}")
    factory = _AGENTS.get(_key(name))
    if factory is not None:
        return factory
    if is_import_path(name):
        return _import(name.strip())
    known = sorted(_AGENTS)
    close = difflib.get_close_matches(_key(name), known, n=1)
    hint = f" Did you mean {close[0]!r}?" if close else ""
    raise ConfigError(
        f"unknown agent {name!r}.{hint} Known agents: {', '.join(known)}; "
        "or give an import path 'package.module:Class'"
    )


def _import(path: str) -> AgentFactory:
    obj = import_object(path, "agent")
    if not callable(obj):
        raise ConfigError(f"agent {path!r} is a {type(obj).__name__}, not a class or factory")
    factory: AgentFactory = obj
    return factory


def get_agent(name: str, /, **params: Any) -> Negotiator:
    """A new negotiator from a short name or an import path, built with ``params``."""
    factory = resolve_agent(name)
    try:
        agent = factory(**params)
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"cannot build agent {name!r} with parameters {params}: {exc}") from None
    if not isinstance(agent, Negotiator):
        raise ConfigError(
            f"agent {name!r} built a {type(agent).__name__}, not an accord Negotiator"
        )
    return agent


for _name, _factory in (
    ("boulware", Boulware),
    ("linear", Linear),
    ("conceder", Conceder),
    ("timedependent", TimeDependent),
    ("hardliner", Hardliner),
    ("random", RandomNegotiator),
    ("titfortat", TitForTat),
    ("frequency", FrequencyAgent),
):
    register_agent(_name, _factory)

try:  # the cross-session learner of the tournament layer, when present
    from accord.agents.learning import Learner
except ImportError:  # pragma: no cover
    pass
else:
    register_agent("learner", Learner)
