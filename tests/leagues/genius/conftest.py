"""Shared paths and fixtures of the GENIUS league tests (browser fixtures: accord.web)."""

from __future__ import annotations

from pathlib import Path

import pytest

from accord.web.testing import screenshot, web_browser, web_page  # noqa: F401

QO_FOLDER = (
    Path(__file__).resolve().parents[4]
    / "shared"
    / "scenarios"
    / "genius"
    / "genius_QODomain_JobCandidate"
)


@pytest.fixture
def qo_folder() -> Path:
    """The GENIUS QO Job Candidate folder of ../shared (skipped loudly when absent)."""
    if not QO_FOLDER.is_dir():
        pytest.skip(f"shared scenario folder not found: {QO_FOLDER}")
    return QO_FOLDER
