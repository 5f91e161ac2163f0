"""Agents and simulated participants by name: an example's name or ``pkg.module:Class``.

>>> agent_class("fair").__name__
'FairSplitter'
"""

from __future__ import annotations

from accord.core.errors import ConfigError
from accord.core.imports import import_object, is_import_path
from accord.leagues.han.agents import EXAMPLE_AGENTS
from accord.leagues.han.api import HanAgent

__all__ = ["agent_class"]


def agent_class(name: str, table: dict[str, type[HanAgent]] | None = None) -> type[HanAgent]:
    """An example agent (or participant with ``table``) by name, or any ``pkg.mod:Class``."""
    table = EXAMPLE_AGENTS if table is None else table
    if name in table:
        return table[name]
    if is_import_path(name):
        cls = import_object(name)
        if isinstance(cls, type) and issubclass(cls, HanAgent):
            return cls
        raise ConfigError(f"{name!r} is not a HanAgent subclass")
    raise ConfigError(f"unknown HAN agent {name!r}; known: {', '.join(table)} or pkg.module:Class")
