"""Where the real GENIUS / GeniusWeb scenarios live (see ``tests/real_scenarios.py``)."""

from __future__ import annotations

from pathlib import Path

import pytest

import real_scenarios

REPO = real_scenarios.REPO
SHARED = real_scenarios.root()
MISSING = f"no real scenario folders under {SHARED}"


def shared_folders(kind: str) -> list[Path]:
    """Scenario folders of ``kind`` ("genius" or "geniusweb"), or [] if none is found."""
    return real_scenarios.folders(kind)


def folder_params(kind: str) -> list[object]:
    """pytest params over the folders of ``kind``; one skipped param if none is found."""
    folders = shared_folders(kind)
    if not folders:
        return [pytest.param(None, marks=pytest.mark.skip(reason=MISSING), id="absent")]
    return [pytest.param(p, id=p.name) for p in folders]


def shared_folder(kind: str, name: str) -> Path:
    """One real folder; skips the calling test, saying how to get it, when absent."""
    return real_scenarios.folder(kind, name)
