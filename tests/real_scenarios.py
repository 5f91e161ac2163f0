"""Where the tests find real GENIUS / GeniusWeb scenario files, in one place.

First found wins: ``$ACCORD_SCENARIOS``; ``../shared/scenarios`` beside the clone (the
full set); ``tests/data/scenarios`` (bundled: 20 GENIUS and 4 GeniusWeb folders, GPL-3.0,
see its README). So a clone alone runs every test that names a bundled folder; a test
naming a folder that is not found skips, saying where it looked and how to get it.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
BUNDLED = REPO / "tests" / "data" / "scenarios"
FULL = (REPO / ".." / "shared" / "scenarios").resolve()


def root() -> Path:
    """The scenario folder in use (see the module docstring)."""
    env = os.environ.get("ACCORD_SCENARIOS")
    if env:
        return Path(env).resolve()
    if (FULL / "genius").is_dir():
        return FULL
    return BUNDLED


def how_to_get(path: Path) -> str:
    return (
        f"real scenario folder {path} is absent: only {BUNDLED} was found; set "
        "ACCORD_SCENARIOS to the full set (see tests/data/scenarios/README.md)"
    )


def folders(kind: str) -> list[Path]:
    """Every scenario folder of ``kind`` ("genius" or "geniusweb") found, sorted."""
    base = root() / kind
    return sorted(p for p in base.iterdir() if p.is_dir()) if base.is_dir() else []


def folder(kind: str, name: str) -> Path:
    """One scenario folder; skips the calling test, saying how to get it, if absent."""
    path = root() / kind / name
    if not path.is_dir():
        pytest.skip(how_to_get(path))
    return path


def genius(name: str) -> Path:
    """One GENIUS folder (see :func:`folder`)."""
    return folder("genius", name)
