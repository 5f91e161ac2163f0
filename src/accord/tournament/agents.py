"""Turning an :class:`AgentSpec` into a negotiator: import path or registry name + params.

>>> from accord.tournament.config import AgentSpec
>>> neg = make_negotiator(AgentSpec("Tough", "accord.agents.timebased:TimeDependent",
...                                 {"exponent": 0.1}))
>>> neg.name, neg.exponent
('Tough', 0.1)
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Sequence
from typing import Any

from accord.core.errors import ConfigError
from accord.core.negotiator import Negotiator
from accord.tournament.config import AgentSpec

# Used only while the agent registry (accord.agents.registry) is not available.
_FALLBACK = {
    "Boulware": "accord.agents.timebased:Boulware",
    "Conceder": "accord.agents.timebased:Conceder",
    "Linear": "accord.agents.timebased:Linear",
    "TimeDependent": "accord.agents.timebased:TimeDependent",
    "Learner": "accord.agents.learning:Learner",
}


def import_object(path: str) -> Any:
    """Import ``package.module:Name`` (``package.module.Name`` works too)."""
    module, sep, attr = path.partition(":")
    if not sep:
        module, _, attr = path.rpartition(".")
    if not module or not attr:
        raise ConfigError(f"expected an import path 'package.module:Class', got {path!r}")
    try:
        mod = importlib.import_module(module)
    except ImportError as exc:
        raise ConfigError(f"cannot import module {module!r} for agent {path!r}: {exc}") from exc
    obj: Any = mod
    for part in attr.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise ConfigError(f"module {module!r} has no {attr!r} (agent {path!r})") from None
    return obj


def make_negotiator(spec: AgentSpec) -> Negotiator:
    """A fresh negotiator for one session, named ``spec.name``."""
    params = dict(spec.params)
    target = spec.type
    if ":" not in target:
        registry = _registry()
        if registry is not None:
            neg = registry(target, **params)
            if not isinstance(neg, Negotiator):
                raise ConfigError(f"registry agent {target!r} is not a Negotiator")
            neg.name = spec.name
            return neg
        if target not in _FALLBACK:
            raise ConfigError(
                f"unknown agent {target!r}; use an import path 'package.module:Class' "
                f"or one of {sorted(_FALLBACK)}"
            )
        target = _FALLBACK[target]
    cls = import_object(target)
    if not (isinstance(cls, type) and issubclass(cls, Negotiator)):
        raise ConfigError(f"{target!r} is {cls!r}, not a Negotiator subclass")
    try:
        neg = cls(**params)
    except TypeError as exc:
        raise ConfigError(f"cannot create {target} with parameters {params}: {exc}") from exc
    neg.name = spec.name
    return neg


def check_agents(specs: Sequence[AgentSpec]) -> None:
    """Fail early, with a clear message, on agents that cannot be imported or whose
    parameters the class does not take (an agent whose constructor raises is left to
    fail in its sessions, where it is recorded)."""
    for spec in specs:
        target = spec.type
        if ":" not in target:
            if _registry() is not None or target in _FALLBACK:
                continue
            make_negotiator(spec)  # raises the unknown-agent error
        cls = import_object(target)
        if not (isinstance(cls, type) and issubclass(cls, Negotiator)):
            raise ConfigError(f"agent {spec.name!r}: {target!r} is not a Negotiator subclass")
        try:
            inspect.signature(cls).bind(**dict(spec.params))
        except TypeError as exc:
            raise ConfigError(
                f"agent {spec.name!r}: {target} does not take parameters {dict(spec.params)}: {exc}"
            ) from None


def _registry() -> Any:
    try:
        mod = importlib.import_module("accord.agents.registry")
    except ImportError:
        return None
    return getattr(mod, "get_agent", None)
