"""The append-only event log of a web service, in its SQLite file.

Everything a service hears and decides is an :class:`Event` (``seq``, wall time ``at``,
``stream`` such as a round or a study, ``party``, ``kind`` and a JSON ``data`` object);
state is the fold of the events, so a restarted server rebuilds it from the file.
SQLite triggers refuse every ``UPDATE`` or ``DELETE`` of the ``events`` table.

The file is an :class:`accord.tournament.sqlite.SqliteFile` (the one SQLite base);
several stores can share one file.

    >>> from accord.tournament.sqlite import SqliteFile
    >>> from accord.web.clock import VirtualClock
    >>> log = EventLog(SqliteFile(":memory:"), VirtualClock())
    >>> log.append("study", "consented", {"age": 30}, party="p1").seq
    1
    >>> [(e.kind, e.party, e.data) for e in log.read("study")]
    [('consented', 'p1', {'age': 30})]
    >>> import io; out = io.StringIO(); n = log.write_csv(out); print(out.getvalue().strip())
    seq,time,at,stream,party,kind,data
    1,2023-11-14T22:13:20.000Z,1700000000.0,study,p1,consented,"{""age"":30}"
"""

from __future__ import annotations

import csv
import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, TextIO

from accord.tournament.sqlite import SqliteFile
from accord.web.clock import Clock, RealClock

__all__ = ["CSV_COLUMNS", "Event", "EventLog", "iso"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS events (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    at REAL NOT NULL,
    stream TEXT NOT NULL,
    party TEXT,
    kind TEXT NOT NULL,
    data TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS events_by_stream ON events (stream, seq);
CREATE TRIGGER IF NOT EXISTS events_no_update BEFORE UPDATE ON events
BEGIN SELECT RAISE(ABORT, 'the event log is append-only: events cannot be changed'); END;
CREATE TRIGGER IF NOT EXISTS events_no_delete BEFORE DELETE ON events
BEGIN SELECT RAISE(ABORT, 'the event log is append-only: events cannot be deleted'); END;
"""

CSV_COLUMNS = ("seq", "time", "at", "stream", "party", "kind", "data")
"""Columns of :meth:`EventLog.write_csv`: ``time`` is ISO 8601 UTC, ``at`` epoch seconds."""


def iso(at: float) -> str:
    """Epoch seconds as ISO 8601 UTC with milliseconds.

    >>> iso(0.25)
    '1970-01-01T00:00:00.250Z'
    """
    return datetime.fromtimestamp(at, UTC).isoformat(timespec="milliseconds")[:-6] + "Z"


@dataclass(frozen=True)
class Event:
    """One entry of the log."""

    seq: int
    at: float
    stream: str
    party: str | None
    kind: str
    data: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        return {
            "seq": self.seq,
            "time": iso(self.at),
            "at": self.at,
            "stream": self.stream,
            "party": self.party,
            "kind": self.kind,
            "data": self.data,
        }


def _event(row: tuple[Any, ...]) -> Event:
    return Event(int(row[0]), float(row[1]), row[2], row[3], row[4], json.loads(row[5]))


class EventLog:
    """Append-only events in ``file`` (timed by ``clock.wall()``); ``listeners`` are
    called with each new event after it is stored (for live channels)."""

    def __init__(self, file: SqliteFile, clock: Clock | None = None) -> None:
        self.file = file
        self.clock: Clock = clock or RealClock()
        self.listeners: list[Callable[[Event], None]] = []
        with file.lock:
            file.conn.executescript(_SCHEMA)

    def append(
        self,
        stream: str,
        kind: str,
        data: dict[str, Any] | None = None,
        party: str | None = None,
        at: float | None = None,
    ) -> Event:
        """Store one event (at ``at``, wall seconds, default now); returns it with its
        ``seq``."""
        body = json.dumps(data or {}, separators=(",", ":"), sort_keys=True)
        at = self.clock.wall() if at is None else at
        cur = self.file.execute(
            "INSERT INTO events (at, stream, party, kind, data) VALUES (?, ?, ?, ?, ?)",
            (at, stream, party, kind, body),
        )
        event = Event(int(cur.lastrowid or 0), at, stream, party, kind, json.loads(body))
        for listener in list(self.listeners):
            listener(event)
        return event

    def read(
        self,
        stream: str | None = None,
        *,
        after: int = 0,
        party: str | None = None,
        kinds: tuple[str, ...] = (),
    ) -> list[Event]:
        """Events in order of ``seq`` (after ``after``), of one stream/party/kinds if given."""
        sql = "SELECT seq, at, stream, party, kind, data FROM events WHERE seq > ?"
        args: list[Any] = [after]
        if stream is not None:
            sql, args = sql + " AND stream = ?", [*args, stream]
        if party is not None:
            sql, args = sql + " AND party = ?", [*args, party]
        if kinds:
            sql += f" AND kind IN ({','.join('?' * len(kinds))})"
            args += list(kinds)
        with self.file.lock:
            rows = self.file.conn.execute(sql + " ORDER BY seq", args).fetchall()
        return [_event(r) for r in rows]

    def last_seq(self) -> int:
        with self.file.lock:
            row = self.file.conn.execute("SELECT MAX(seq) FROM events").fetchone()
        return int(row[0] or 0)

    def write_csv(self, out: TextIO, stream: str | None = None) -> int:
        """Write every event (of ``stream``) as CSV (:data:`CSV_COLUMNS`); returns rows."""
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(CSV_COLUMNS)
        events = self.read(stream)
        for e in events:
            data = json.dumps(e.data, separators=(",", ":"), sort_keys=True)
            writer.writerow([e.seq, iso(e.at), repr(e.at), e.stream, e.party or "", e.kind, data])
        return len(events)
