"""Fixtures for the agent tests; makes ``agent_scenarios`` importable (importlib mode)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

_HERE = str(Path(__file__).parent)
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)

from agent_scenarios import tradeoff  # noqa: E402


@pytest.fixture
def small():
    """A 3x5 trade-off scenario."""
    return tradeoff(3, 5, seed=1)
