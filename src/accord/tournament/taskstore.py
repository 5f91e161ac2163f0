"""A resumable SQLite file (WAL mode) of independent tasks: one row per task id.

Tables::

    meta   key, value        format, settings (JSON: what was run), total (tasks scheduled)
    tasks  id, idx, spec, record, elapsed, finished, worker

``spec`` is an optional JSON description of the task, ``record`` the JSON object the
task returned, ``elapsed`` its run time in seconds, ``finished`` a Unix time and
``worker`` ``host:pid``. Rows are written in transactions of whole tasks and ``id`` is
the primary key: a run killed at any moment (even kill -9) leaves only whole tasks
behind, and resuming skips the ids already stored.

    >>> import tempfile, pathlib
    >>> with tempfile.TemporaryDirectory() as d, TaskStore(pathlib.Path(d) / "t.sqlite") as st:
    ...     st.prepare({"game": "demo"}, ["a", "b"])
    ...     _ = st.write([StoredTask("a", 0, '{"x": 1}', 0.5, 0.0, "h:1")])
    ...     st.done_ids(), st.records()
    ({'a'}, {'a': {'x': 1}})
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from accord.core.errors import ConfigError
from accord.tournament.sqlite import SqliteFile

FORMAT = "accord-tasks/1"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS tasks (
    id TEXT PRIMARY KEY, idx INTEGER NOT NULL, spec TEXT, record TEXT NOT NULL,
    elapsed REAL NOT NULL, finished REAL NOT NULL, worker TEXT NOT NULL);
"""


class StoreMismatch(ConfigError, ValueError):
    """The file holds another run than the one asked for."""


@dataclass(frozen=True)
class StoredTask:
    """One finished task as stored: ``record`` is JSON text, ``spec`` JSON text or None."""

    id: str
    idx: int
    record: str
    elapsed: float
    finished: float
    worker: str
    spec: str | None = None


def settings_json(settings: Mapping[str, Any]) -> str:
    """Canonical JSON of a run's settings (sorted keys; other values by ``repr``).

    >>> settings_json({"b": (1, 2), "a": None})
    '{"a":null,"b":[1,2]}'
    """
    return json.dumps(dict(settings), sort_keys=True, separators=(",", ":"), default=repr)


def _diff(old: Any, new: Any, at: str = "") -> str:
    """Where two settings differ, e.g. ``spec.seed: stored 1, now 2`` (first 3 places).

    >>> _diff({"a": {"b": 1, "c": [1]}}, {"a": {"b": 2, "c": [1]}, "d": 0})
    'a.b: stored 1, now 2; d: stored (none), now 0'
    """
    if isinstance(old, dict) and isinstance(new, dict):
        parts = [
            _diff(old.get(k, _NONE), new.get(k, _NONE), f"{at}.{k}" if at else str(k))
            for k in sorted(set(old) | set(new), key=str)
            if _show(old.get(k, _NONE), None) != _show(new.get(k, _NONE), None)
        ]
        return "; ".join(parts[:3]) + ("; ..." if len(parts) > 3 else "")
    return f"{at or 'settings'}: stored {_show(old)}, now {_show(new)}"


_NONE = object()


def _show(v: Any, cut: int | None = 80) -> str:
    return "(none)" if v is _NONE else json.dumps(v, sort_keys=True)[:cut]


class TaskStore(SqliteFile):
    """A task run's SQLite file. Opening creates the tables if they are missing."""

    SCHEMA = _SCHEMA

    def prepare(self, settings: Mapping[str, Any], ids: Sequence[str]) -> None:
        """Record what is run in a new file, or check that an old file holds the same run
        (same settings, same number of tasks, no stored id outside ``ids``)."""
        text = settings_json(settings)
        old = self.meta("settings")
        if old is None:
            with self.transaction(immediate=True):
                for key, value in (("format", FORMAT), ("settings", text), ("total", len(ids))):
                    self.set_meta(key, value)
            return
        if old != text:
            raise StoreMismatch(
                f"{self.path} holds a different tournament ({_diff(json.loads(old), json.loads(text))}); "
                "use a new file to run this one, or the same settings to resume"
            )
        total = int(self.meta("total") or -1)
        stray = self.done_ids() - set(ids)
        if total != len(ids) or stray:
            raise StoreMismatch(
                f"{self.path} schedules {total} tasks ({len(stray)} not in this run); this run "
                f"schedules {len(ids)}; use a new file"
            )

    def settings(self) -> dict[str, Any]:
        """The settings the file was prepared with."""
        return self.json_meta("settings", "an Accord task file")

    def write(self, tasks: Sequence[StoredTask]) -> int:
        """Store whole tasks in one transaction (all or none); returns how many."""
        with self.transaction(immediate=True):
            self.conn.executemany(
                "INSERT INTO tasks VALUES (?,?,?,?,?,?,?)",
                [(t.id, t.idx, t.spec, t.record, t.elapsed, t.finished, t.worker) for t in tasks],
            )
        return len(tasks)

    def done_ids(self) -> set[str]:
        """Ids of the tasks already stored."""
        return {row[0] for row in self.conn.execute("SELECT id FROM tasks")}

    def stored(self) -> list[StoredTask]:
        """Every stored task, in schedule order."""
        rows = self.conn.execute(
            "SELECT id, idx, record, elapsed, finished, worker, spec FROM tasks ORDER BY idx"
        )
        return [StoredTask(*r) for r in rows]

    def records(self) -> dict[str, dict[str, Any]]:
        """Every stored record by task id, in schedule order."""
        rows = self.conn.execute("SELECT id, record FROM tasks ORDER BY idx")
        return {tid: json.loads(rec) for tid, rec in rows}
