"""Find negotiators by short name or import path.

Short names (case-insensitive, ``-`` and ``_`` ignored) name the built-in agents; any
other negotiator is reached by its import path ``package.module:Class`` (or
``package.module.Class``). Keyword parameters go to the constructor.

Each built-in agent has one name, spelled as registered (``Frequency``), and that is
the name it gets in sessions, tournaments and reports whether it was asked for as
``frequency``, ``Frequency`` or ``accord.agents.frequency:FrequencyAgent``:

    >>> get_agent("frequency").name, display_name("accord.agents.frequency:FrequencyAgent")
    ('Frequency', 'Frequency')

    >>> get_agent("boulware").exponent
    0.2
    >>> get_agent("timedependent", exponent=3.0).exponent
    3.0
    >>> type(get_agent("accord.agents.simple:Hardliner")).__name__
    'Hardliner'
    >>> get_agent("bolware")
    Traceback (most recent call last):
    ...
    accord.core.errors.ConfigError: unknown agent 'bolware'. Did you mean 'Boulware'? Known agents: Boulware, Conceder, Frequency, Hardliner, Learner, Linear, Random, TimeDependent, TitForTat; or give an import path 'package.module:Class'
"""

from __future__ import annotations

import difflib
import importlib
from collections.abc import Callable
from typing import Any

from accord.agents.frequency import FrequencyAgent
from accord.agents.simple import Hardliner, RandomNegotiator
from accord.agents.timebased import Boulware, Conceder, Linear, TimeDependent
from accord.agents.titfortat import TitForTat
from accord.core.errors import ConfigError
from accord.core.imports import EXTRAS, import_object, is_import_path
from accord.core.imports import install_hint as install_hint  # re-exported
from accord.core.negotiator import Negotiator

AgentFactory = Callable[..., Negotiator]

#: Bridges to other platforms, by the top-level package their negotiator classes come
#: from: ``module.adapt(obj)`` turns such a class into an Accord Negotiator class. They are
#: imported by name, only when such a class is asked for (their platform is an extra).
_BRIDGES: dict[str, str] = {"negmas": "accord.bridges.negmas"}
#: Packages that come with an optional extra: the hint given when they are missing.
_EXTRAS = EXTRAS

_AGENTS: dict[str, AgentFactory] = {}
_DESCRIPTIONS: dict[str, str] = {}
_DISPLAY: dict[str, str] = {}


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
    _DISPLAY[key] = name.strip()
    doc = (getattr(factory, "__doc__", None) or "").strip().splitlines()
    _DESCRIPTIONS[key] = description or (doc[0] if doc else "")


def unregister_agent(name: str) -> None:
    """Remove a short name (no error if it is not registered)."""
    _AGENTS.pop(_key(name), None)
    _DESCRIPTIONS.pop(_key(name), None)
    _DISPLAY.pop(_key(name), None)


def known_agents() -> dict[str, str]:
    """Names (as registered) and one-line descriptions, sorted by name."""
    return {_DISPLAY[k]: _DESCRIPTIONS.get(k, "") for k in sorted(_AGENTS)}


def display_name(target: str) -> str:
    """The one name of an agent type: the registered name of a built-in (asked for by
    short name or by import path), else the class name of an import path.

    >>> display_name("TITFORTAT"), display_name("mypkg.agents:Mine")
    ('TitForTat', 'Mine')
    """
    key = _key(target)
    if key in _DISPLAY:
        return _DISPLAY[key]
    short = target.rsplit(":", 1)[-1].rsplit(".", 1)[-1].strip()
    if ":" in target or "." in target:
        try:
            factory = resolve_agent(target)
        except ConfigError:
            return short
        for k, f in _AGENTS.items():
            if f is factory:
                return _DISPLAY[k]
    return short


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
    hint = f" Did you mean {_DISPLAY[close[0]]!r}?" if close else ""
    raise ConfigError(
        f"unknown agent {name!r}.{hint} Known agents: {', '.join(_DISPLAY[k] for k in known)}; "
        "or give an import path 'package.module:Class'"
    )


def _import(path: str) -> AgentFactory:
    try:
        obj = import_object(path, "agent")
    except ConfigError as exc:
        extra = _EXTRAS.get(path.strip().partition(":")[0].partition(".")[0])
        if extra and "cannot import module" in str(exc):
            raise ConfigError(
                f"{exc}; install the optional extra: pip install '.[{extra}]' (in the Accord clone)"
            ) from None
        raise
    if not callable(obj):
        raise ConfigError(f"agent {path!r} is a {type(obj).__name__}, not a class or factory")
    factory: AgentFactory = bridged(obj)
    if isinstance(factory, type) and not issubclass(factory, Negotiator):
        roots = {c.__module__.partition(".")[0] for c in factory.__mro__}
        platform = next((root for root in _BRIDGES if root in roots), None)
        if platform is not None:
            package = path.strip().partition(":")[0]
            why = getattr(importlib.import_module(_BRIDGES[platform]), "why_not", None)
            reason = why(factory) if why is not None else None
            raise ConfigError(
                f"agent {path!r} is a {platform} class that cannot play: "
                + (reason or f"{factory.__name__} is not a concrete NegMAS SAO negotiator")
                + f"; see the ones it has: accord agents list --package {package}"
            )
    return factory


def bridged(obj: Any) -> Any:
    """``obj``, or the Accord class a bridge makes of it when it is another platform's
    negotiator class (say a NegMAS one, see :mod:`accord.bridges.negmas`).

    >>> bridged(Hardliner) is Hardliner
    True
    """
    if not isinstance(obj, type) or issubclass(obj, Negotiator):
        return obj
    roots = {c.__module__.partition(".")[0] for c in obj.__mro__}
    for root, module in _BRIDGES.items():
        if root in roots:
            return importlib.import_module(module).adapt(obj)
    return obj


def agents_in_package(package: str) -> dict[str, AgentFactory]:
    """The negotiator classes a package exports (its ``__all__``, else its public names),
    bridged ones included, by name.

    >>> sorted(agents_in_package("accord.agents.timebased"))
    ['Boulware', 'Conceder', 'Linear', 'TimeDependent']
    """
    try:
        module = importlib.import_module(package)
    except ImportError as exc:
        extra = _EXTRAS.get(package.partition(".")[0])
        hint = (
            f"; install the optional extra: pip install '.[{extra}]' (in the Accord clone)"
            if extra
            else ""
        )
        raise ConfigError(f"cannot import package {package!r}: {exc}{hint}") from None
    names = getattr(module, "__all__", None)
    if names is None:
        names = [n for n in dir(module) if not n.startswith("_")]
    found: dict[str, AgentFactory] = {}
    for name in names:
        obj = bridged(getattr(module, name, None))
        if isinstance(obj, type) and issubclass(obj, Negotiator) and not _abstract(obj):
            found[name] = obj
    return found


def _abstract(cls: type) -> bool:
    """A base class that cannot play: abstract, or ``propose`` never overridden."""
    import inspect

    return inspect.isabstract(cls) or getattr(cls, "propose", None) is Negotiator.propose


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
    if "name" not in params and agent.name == type(agent).__name__:
        agent.name = display_name(name)
    return agent


for _name, _factory in (
    ("Boulware", Boulware),
    ("Linear", Linear),
    ("Conceder", Conceder),
    ("TimeDependent", TimeDependent),
    ("Hardliner", Hardliner),
    ("Random", RandomNegotiator),
    ("TitForTat", TitForTat),
    ("Frequency", FrequencyAgent),
):
    register_agent(_name, _factory)

try:  # the cross-session learner of the tournament layer, when present
    from accord.agents.learning import Learner
except ImportError:  # pragma: no cover
    pass
else:
    register_agent("Learner", Learner)
