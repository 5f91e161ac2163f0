"""Shared bits of the NegMAS bridge tests: the skip reason and the real GENIUS scenarios."""

from __future__ import annotations

from pathlib import Path

import real_scenarios

NO_EXTRA = "the NegMAS bridge tests need the optional extra: pip install '.[negmas]'"


def genius(name: str) -> Path:
    """A real GENIUS scenario folder (``tests/real_scenarios.py``; skips when absent)."""
    return real_scenarios.genius(name)
