"""The optional ``diplomacy`` engine (AGPL-3.0), loaded only when a game is played.

>>> has_engine() in (True, False)
True
"""

from __future__ import annotations

import importlib.util
from typing import Any

from accord.core.errors import ConfigError

__all__ = ["INSTALL_HINT", "EngineMissing", "has_engine", "new_game", "phase_parts"]

INSTALL_HINT = (
    "the Diplomacy league needs the 'diplomacy' engine (AGPL-3.0), an optional extra: "
    "pip install '.[diplomacy]' in the Accord clone (or: pip install diplomacy)"
)


class EngineMissing(ConfigError):
    """The optional ``diplomacy`` package is not installed."""


def has_engine() -> bool:
    """True when the ``diplomacy`` package can be imported."""
    try:
        return importlib.util.find_spec("diplomacy") is not None
    except (ImportError, ValueError):  # blocked or half-installed
        return False


def new_game() -> Any:
    """A fresh standard-map game (``diplomacy.Game``); raises `EngineMissing` without it."""
    if not has_engine():
        raise EngineMissing(INSTALL_HINT)
    from diplomacy import Game

    return Game(map_name="standard")


def phase_parts(phase: str) -> tuple[str, int, str]:
    """Split an engine phase name: ``"F1903M"`` -> ``("F", 1903, "M")``.

    >>> phase_parts("W1920A")
    ('W', 1920, 'A')
    """
    if phase == "COMPLETED" or len(phase) != 6:
        return ("", 0, phase)
    return (phase[0], int(phase[1:5]), phase[5])
