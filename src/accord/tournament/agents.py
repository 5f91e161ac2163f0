"""Turning an :class:`AgentSpec` into a negotiator, through the agent registry.

An agent type is whatever :func:`accord.agents.registry.resolve_agent` takes: a short
name of a registered agent or an import path; an import path must name a
:class:`~accord.core.negotiator.Negotiator` subclass.

>>> from accord.tournament.config import AgentSpec
>>> neg = make_negotiator(AgentSpec("Tough", "accord.agents.timebased:TimeDependent",
...                                 {"exponent": 0.1}))
>>> neg.name, neg.exponent
('Tough', 0.1)
>>> make_negotiator(AgentSpec("B", "boulware")).exponent
0.2
"""

from __future__ import annotations

import inspect
from collections.abc import Sequence

from accord.agents.registry import AgentFactory, resolve_agent
from accord.core.errors import ConfigError
from accord.core.negotiator import Negotiator
from accord.tournament.config import AgentSpec


def agent_factory(target: str) -> AgentFactory:
    """The class or factory an agent type names (raises :class:`ConfigError` if none)."""
    factory = resolve_agent(target)
    is_path = ":" in target or "." in target  # registered short names are plain words
    if is_path and not (isinstance(factory, type) and issubclass(factory, Negotiator)):
        raise ConfigError(f"{target!r} is {factory!r}, not a Negotiator subclass")
    return factory


def make_negotiator(spec: AgentSpec) -> Negotiator:
    """A fresh negotiator for one session, named ``spec.name``.

    A constructor's own error (say a ``ValueError`` for a bad parameter value) passes
    through, so that the session records it as that agent's failure.
    """
    params = dict(spec.params)
    factory = agent_factory(spec.type)
    try:
        neg = factory(**params)
    except TypeError as exc:
        raise ConfigError(f"cannot create {spec.type} with parameters {params}: {exc}") from exc
    if not isinstance(neg, Negotiator):
        raise ConfigError(f"agent {spec.type!r} built a {type(neg).__name__}, not a Negotiator")
    neg.name = spec.name
    return neg


def check_agents(specs: Sequence[AgentSpec]) -> None:
    """Fail early, with a clear message, on agents that cannot be found or whose
    parameters the constructor does not take (an agent whose constructor raises is left
    to fail in its sessions, where it is recorded)."""
    for spec in specs:
        factory = agent_factory(spec.type)
        try:
            inspect.signature(factory).bind(**dict(spec.params))
        except TypeError as exc:
            raise ConfigError(
                f"agent {spec.name!r}: {spec.type} does not take parameters "
                f"{dict(spec.params)}: {exc}"
            ) from None
