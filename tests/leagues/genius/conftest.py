"""Shared paths and fixtures of the GENIUS league tests (browser fixtures: accord.web)."""

from __future__ import annotations

from pathlib import Path

import pytest

import real_scenarios
from accord.web.testing import screenshot, web_browser, web_page  # noqa: F401


@pytest.fixture
def qo_folder() -> Path:
    """The GENIUS QO Job Candidate folder (``tests/real_scenarios.py``; skips when absent)."""
    return real_scenarios.genius("genius_QODomain_JobCandidate")
