"""The one SQLite base of Accord's files (WAL mode, autocommit, usable from any thread).

:class:`SqliteFile` opens (or creates) a file, applies the pragmas and the subclass's
``SCHEMA``, reads and writes the ``key, value`` ``meta`` table and runs explicit
transactions; :class:`Transaction` is the ``with`` block behind them. Tournament stores,
the web layer's stores (:mod:`accord.web.store`) and the leagues' servers all open their
files through it; nothing else calls ``sqlite3.connect``.

One connection is shared by the threads of a server: every use goes through
:attr:`SqliteFile.lock` (``transaction``, ``execute`` and ``rows`` take it). The path
``":memory:"`` gives a scratch database.

    >>> import tempfile, pathlib
    >>> class Notes(SqliteFile):
    ...     SCHEMA = "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);"
    >>> with tempfile.TemporaryDirectory() as d, Notes(pathlib.Path(d) / "n.sqlite") as f:
    ...     with f.transaction():
    ...         f.set_meta("colour", "blue")
    ...     f.meta("colour"), f.meta("size")
    ('blue', None)
    >>> with SqliteFile(":memory:", schema="CREATE TABLE t (a, b);") as f:
    ...     _ = f.execute("INSERT INTO t VALUES (?, ?)", (1, "x"))
    ...     f.rows("SELECT a, b FROM t")
    [{'a': 1, 'b': 'x'}]
"""

from __future__ import annotations

import json
import logging
import sqlite3
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Self

from accord.core.errors import ConfigError

MEMORY = ":memory:"

log = logging.getLogger("accord.sqlite")


class Transaction:
    """``with`` block running one explicit transaction on an autocommit connection:
    ``BEGIN`` (or ``BEGIN IMMEDIATE`` when ``immediate``), then ``COMMIT``, or
    ``ROLLBACK`` when the block raises. It holds ``lock`` (when given) throughout; after a
    ``COMMIT`` (and the lock's release) it calls what was queued in ``after`` meanwhile
    (:meth:`SqliteFile.after_commit`); a rollback drops them."""

    def __init__(
        self,
        conn: sqlite3.Connection,
        immediate: bool = False,
        lock: threading.RLock | None = None,
        after: list[Callable[[], None]] | None = None,
    ) -> None:
        self.conn = conn
        self.begin = "BEGIN IMMEDIATE" if immediate else "BEGIN"
        self.lock = lock
        self.after = after if after is not None else []

    def __enter__(self) -> None:
        if self.lock is not None:
            self.lock.acquire()
        try:
            self.conn.execute(self.begin)
        except BaseException:
            if self.lock is not None:
                self.lock.release()
            raise

    def __exit__(self, exc_type: object, *rest: object) -> None:
        committed = False
        try:
            self.conn.execute("ROLLBACK" if exc_type is not None else "COMMIT")
            committed = exc_type is None
        finally:
            queued = list(self.after)
            self.after.clear()
            if self.lock is not None:
                self.lock.release()
        for call in queued if committed else ():
            try:
                call()
            except Exception:  # the change is committed: a failing hook must not undo it
                log.exception("a call after a commit failed (the commit stands)")


class SqliteFile:
    """A SQLite file opened in WAL mode; opening creates the ``SCHEMA`` tables if missing.

    Subclasses set ``SCHEMA`` (SQL script; files using :meth:`meta` must create
    ``meta (key, value)``), or pass ``schema``. ``path`` may be ``":memory:"``.
    """

    SCHEMA = ""

    def __init__(self, path: str | Path, *, schema: str | None = None) -> None:
        self.path = Path(path)
        if str(path) != MEMORY:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        self.lock = threading.RLock()
        self._after: list[Callable[[], None]] = []  # calls waiting for the open COMMIT
        self.conn = sqlite3.connect(
            str(path), timeout=30.0, isolation_level=None, check_same_thread=False
        )
        self.conn.execute("PRAGMA journal_mode=WAL")
        self.conn.execute("PRAGMA synchronous=NORMAL")
        self.conn.executescript(self.SCHEMA if schema is None else schema)

    def close(self) -> None:
        """Close the connection (checkpointing the WAL)."""
        with self.lock:
            self.conn.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def execute(self, sql: str, args: Sequence[Any] = ()) -> sqlite3.Cursor:
        """Run one statement under the lock (autocommit unless inside a transaction)."""
        with self.lock:
            return self.conn.execute(sql, args)

    def rows(self, sql: str, args: Sequence[Any] = ()) -> list[dict[str, Any]]:
        """The rows of a query as dicts of column name to value."""
        with self.lock:
            cur = self.conn.execute(sql, args)
            names = [d[0] for d in cur.description or ()]
            return [dict(zip(names, row, strict=True)) for row in cur.fetchall()]

    def meta(self, key: str) -> str | None:
        """A value of the ``meta`` table."""
        with self.lock:
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
        self.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, value))

    def transaction(self, immediate: bool = False) -> Transaction:
        """A ``with`` block running one transaction (see :class:`Transaction`)."""
        return Transaction(self.conn, immediate, self.lock, self._after)

    def after_commit(self, call: Callable[[], None]) -> None:
        """Call ``call`` once what this thread's open transaction wrote is committed (at
        once when none is open; never when it rolls back): what others are told of a
        change (a page's live update) goes only after the change is in the file.

        >>> f = SqliteFile(":memory:", schema="CREATE TABLE t (a);")
        >>> told = []
        >>> with f.transaction():
        ...     _ = f.execute("INSERT INTO t VALUES (1)")
        ...     f.after_commit(lambda: told.append("committed"))
        ...     told.append("in the transaction")
        >>> told
        ['in the transaction', 'committed']
        >>> try:
        ...     with f.transaction():
        ...         f.after_commit(lambda: told.append("never"))
        ...         raise ValueError("refused")
        ... except ValueError:
        ...     pass
        >>> told
        ['in the transaction', 'committed']
        """
        with self.lock:
            if self.conn.in_transaction:
                self._after.append(call)
                return
        call()
