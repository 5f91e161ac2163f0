"""Fixtures of the sandbox's red-team suite: one skip reason where bubblewrap cannot run."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from accord.sandbox import sandbox_available

ENTRIES = Path(__file__).parent / "entries"
if str(ENTRIES) not in sys.path:
    sys.path.insert(0, str(ENTRIES))
_HERE = str(Path(__file__).parent)
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)

# Hostile entrants that the red-team tests load inside a sandbox (their folder on the path
# there): not modules of the suite, so `--doctest-modules` does not import them.
collect_ignore_glob = ["league_entries/*.py"]


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    reason = sandbox_available()
    if reason is None:
        return
    skip = pytest.mark.skip(reason=f"the OS sandbox cannot run here: {reason}")
    for item in items:
        if "needs_bwrap" in item.keywords:
            item.add_marker(skip)
