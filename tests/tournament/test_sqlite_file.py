"""The shared SQLite plumbing of the tournament files (tournament/sqlite.py)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from accord.tournament.sqlite import SqliteFile

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS rows (id INTEGER PRIMARY KEY);
"""


class _File(SqliteFile):
    SCHEMA = SCHEMA


def test_opens_in_wal_mode_with_the_schema_and_nested_folders(tmp_path: Path) -> None:
    path = tmp_path / "a" / "b" / "f.sqlite"
    with _File(path) as f:
        assert f.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        tables = {r[0] for r in f.conn.execute("SELECT name FROM sqlite_master")}
        assert {"meta", "rows"} <= tables
    assert path.exists()


def test_meta_round_trip_and_reopen(tmp_path: Path) -> None:
    with _File(tmp_path / "f.sqlite") as f, f.transaction():
        f.set_meta("total", 3)
        f.set_meta("total", 4)
    with _File(tmp_path / "f.sqlite") as f:
        assert f.meta("total") == "4"
        assert f.meta("missing") is None


@pytest.mark.parametrize("immediate", [False, True])
def test_transaction_rolls_back_on_error_and_commits_otherwise(
    tmp_path: Path, immediate: bool
) -> None:
    with _File(tmp_path / "f.sqlite") as f:
        with pytest.raises(RuntimeError), f.transaction(immediate):
            f.conn.execute("INSERT INTO rows VALUES (1)")
            raise RuntimeError("stop")
        assert f.conn.execute("SELECT COUNT(*) FROM rows").fetchone()[0] == 0
        with f.transaction(immediate):
            f.conn.execute("INSERT INTO rows VALUES (2)")
    with _File(tmp_path / "f.sqlite") as f:
        assert [r[0] for r in f.conn.execute("SELECT id FROM rows")] == [2]


def test_immediate_transaction_takes_the_write_lock_at_begin(tmp_path: Path) -> None:
    path = tmp_path / "f.sqlite"
    with _File(path) as f, f.transaction(immediate=True):
        other = sqlite3.connect(str(path), timeout=0.0, isolation_level=None)
        try:
            with pytest.raises(sqlite3.OperationalError, match="locked"):
                other.execute("BEGIN IMMEDIATE")
        finally:
            other.close()


def test_calls_after_a_commit_see_the_rows_and_never_follow_a_rollback(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "f.sqlite"
    seen: list[int] = []

    def count() -> None:  # through a connection of its own: committed rows only
        c = sqlite3.connect(path)
        try:
            seen.append(int(c.execute("SELECT count(*) FROM rows").fetchone()[0]))
        finally:
            c.close()

    def broken() -> None:
        raise RuntimeError("a hook bug")

    with _File(path) as f:
        f.after_commit(count)  # no transaction open: at once
        with f.transaction():
            f.execute("INSERT INTO rows VALUES (1)")
            f.after_commit(broken)  # logged after the commit, which stands
            f.after_commit(count)
            assert seen == [0]
        with pytest.raises(ValueError), f.transaction():
            f.execute("INSERT INTO rows VALUES (2)")
            f.after_commit(count)
            raise ValueError("refused")
        with f.transaction():
            f.after_commit(count)  # the rolled-back call is not left queued
    assert seen == [0, 1, 1]
    assert "a call after a commit failed" in caplog.text and "a hook bug" in caplog.text
