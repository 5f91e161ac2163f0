"""Fixtures for the format tests; makes ``formats_data`` importable (importlib mode)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

_HERE = str(Path(__file__).parent)
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)

from formats_data import MISSING, SHARED  # noqa: E402


@pytest.fixture
def genius_dir() -> Path:
    """The shared GENIUS folder (skips the test when absent)."""
    base = SHARED / "genius"
    if not base.is_dir():
        pytest.skip(MISSING)
    return base
