"""Shared plumbing of the tournament's SQLite files (WAL mode, autocommit connection).

:class:`SqliteFile` opens (or creates) a file, applies the pragmas and the subclass's
``SCHEMA``, reads and writes the ``key, value`` ``meta`` table and runs explicit
transactions; :class:`Transaction` is the ``with`` block behind them.

    >>> import tempfile, pathlib
    >>> class Notes(SqliteFile):
    ...     SCHEMA = "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);"
    >>> with tempfile.TemporaryDirectory() as d, Notes(pathlib.Path(d) / "n.sqlite") as f:
    ...     with f.transaction():
    ...         f.set_meta("colour", "blue")
    ...     f.meta("colour"), f.meta("size")
    ('blue', None)
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any, Self

from accord.core.errors import ConfigError


class Transaction:
    """``with`` block running one explicit transaction on an autocommit connection:
    ``BEGIN`` (or ``BEGIN IMMEDIATE`` when ``immediate``), then ``COMMIT``, or
    ``ROLLBACK`` when the block raises."""

    def __init__(self, conn: sqlite3.Connection, immediate: bool = False) -> None:
        self.conn = conn
        self.begin = "BEGIN IMMEDIATE" if immediate else "BEGIN"

    def __enter__(self) -> None:
        self.conn.execute(self.begin)

    def __exit__(self, exc_type: object, *rest: object) -> None:
        self.conn.execute("ROLLBACK" if exc_type is not None else "COMMIT")


class SqliteFile:
    """A SQLite file opened in WAL mode; opening creates the ``SCHEMA`` tables if missing.

    Subclasses set ``SCHEMA`` (SQL script; it must create ``meta (key, value)``)."""

    SCHEMA = ""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.conn = sqlite3.connect(str(self.path), timeout=30.0, isolation_level=None)
        self.conn.execute("PRAGMA journal_mode=WAL")
        self.conn.execute("PRAGMA synchronous=NORMAL")
        self.conn.executescript(self.SCHEMA)

    def close(self) -> None:
        """Close the connection (checkpointing the WAL)."""
        self.conn.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def meta(self, key: str) -> str | None:
        """A value of the ``meta`` table."""
        row = self.conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def json_meta(self, key: str, kind: str) -> dict[str, Any]:
        """The JSON object stored under ``key``; a clear error if this is not a ``kind``."""
        raw = self.meta(key)
        if raw is None:
            raise ConfigError(f"{self.path} is not {kind} (no {key})")
        data: dict[str, Any] = json.loads(raw)
        return data

    def set_meta(self, key: str, value: object) -> None:
        """Set a value of the ``meta`` table (call inside :meth:`transaction`)."""
        self.conn.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, value))

    def transaction(self, immediate: bool = False) -> Transaction:
        """A ``with`` block running one transaction (see :class:`Transaction`)."""
        return Transaction(self.conn, immediate)
