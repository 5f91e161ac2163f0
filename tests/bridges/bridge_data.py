"""Shared bits of the NegMAS bridge tests: the skip reason and the real GENIUS scenarios."""

from __future__ import annotations

from pathlib import Path

import pytest

NO_EXTRA = "the NegMAS bridge tests need the optional extra: pip install 'accord[negmas]'"
GENIUS = (Path(__file__).resolve().parents[2] / ".." / "shared" / "scenarios" / "genius").resolve()


def genius(name: str) -> Path:
    """A shared GENIUS scenario folder; skips loudly when the shared data is absent."""
    path = GENIUS / name
    if not path.is_dir():
        pytest.skip(f"shared scenario {path} is absent (expected next to the repository)")
    return path
