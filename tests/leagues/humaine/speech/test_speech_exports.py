"""The speech package's export list passes the same check as the core packages'."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import accord.leagues.humaine.speech as speech


def test_export_list_is_exact() -> None:
    path = Path(__file__).resolve().parents[3] / "core" / "test_exports.py"
    spec = importlib.util.spec_from_file_location("accord_test_exports", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.export_problems(speech) == []
