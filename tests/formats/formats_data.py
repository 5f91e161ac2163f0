"""Where the real GENIUS / GeniusWeb scenarios live: ``<repo>/../shared/scenarios``."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SHARED = (REPO / ".." / "shared" / "scenarios").resolve()
MISSING = f"shared scenarios folder {SHARED} is absent (expected next to the repository)"


def shared_folders(kind: str) -> list[Path]:
    """Scenario folders of ``kind`` ("genius" or "geniusweb"), or [] if the data is absent."""
    base = SHARED / kind
    return sorted(p for p in base.iterdir() if p.is_dir()) if base.is_dir() else []


def folder_params(kind: str) -> list[object]:
    """pytest params over the folders of ``kind``; one skipped param if the data is absent."""
    folders = shared_folders(kind)
    if not folders:
        return [pytest.param(None, marks=pytest.mark.skip(reason=MISSING), id="absent")]
    return [pytest.param(p, id=p.name) for p in folders]


def shared_folder(kind: str, name: str) -> Path:
    """One shared folder; skips the calling test when the shared data is absent."""
    path = SHARED / kind / name
    if not path.is_dir():
        pytest.skip(MISSING)
    return path
