"""SQLite persistence of HUMAINE rounds: set-up, decisions, deals, allocation, results.

One file per orchestrator, WAL mode; every decision is written when it is made, so a
restarted service finds every round as it was.

>>> import tempfile, os
>>> path = os.path.join(tempfile.mkdtemp(), "h.db")
>>> s = RoundStore(path)
>>> s.save_round(RoundRecord("r1", {"agents": []}, status=Phase.CREATED, created_wall=1.0))
>>> [r.round_id for r in RoundStore(path).load_rounds()]
['r1']
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from accord.tournament.sqlite import SqliteFile

from .round import LogEntry, Phase, Purchase

__all__ = ["RoundRecord", "RoundStore"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS rounds (
    round_id TEXT PRIMARY KEY,
    spec TEXT NOT NULL,
    status TEXT NOT NULL,
    generation INTEGER NOT NULL DEFAULT 2,
    created_wall REAL NOT NULL,
    started_wall REAL,
    active_end REAL,
    post_end REAL,
    allocation TEXT,
    results TEXT,
    error TEXT
);
CREATE TABLE IF NOT EXISTS decisions (
    round_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    t REAL NOT NULL,
    wall REAL NOT NULL,
    speaker TEXT NOT NULL,
    addressee TEXT NOT NULL,
    text TEXT NOT NULL,
    permitted INTEGER NOT NULL,
    rule TEXT,
    rationale TEXT NOT NULL,
    deal INTEGER NOT NULL,
    message TEXT NOT NULL,
    PRIMARY KEY (round_id, seq)
);
CREATE TABLE IF NOT EXISTS purchases (
    round_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    seller TEXT NOT NULL,
    quantity TEXT NOT NULL,
    price_cents INTEGER NOT NULL,
    t REAL NOT NULL,
    cancelled INTEGER NOT NULL,
    PRIMARY KEY (round_id, seq)
);
"""


@dataclass
class RoundRecord:
    """A round's set-up and progress. Times ``active_end``/``post_end`` are seconds
    after the start (None: as scheduled); ``started_wall`` is epoch seconds."""

    round_id: str
    spec: dict[str, Any]
    status: Phase = Phase.CREATED
    """The last phase the round runner reached (``failed``: it broke; see ``error``)."""
    generation: int = 2
    created_wall: float = 0.0
    started_wall: float | None = None
    active_end: float | None = None
    post_end: float | None = None
    allocation: dict[str, Any] | None = None
    results: dict[str, Any] | None = None
    error: str | None = None


def _dump(obj: Any) -> str | None:
    return None if obj is None else json.dumps(obj, separators=(",", ":"))


class RoundStore:
    """Thread-safe access to one SQLite file (the one base,
    :class:`accord.tournament.sqlite.SqliteFile`: WAL, synchronous=NORMAL)."""

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        self.file = SqliteFile(self.path, schema=_SCHEMA)
        self._db = self.file.conn
        self._db.execute("PRAGMA secure_delete = ON")  # rewritten secrets leave no trace
        columns = {row[1] for row in self._db.execute("PRAGMA table_info(rounds)")}
        if "error" not in columns:  # a file written before failed rounds were kept
            self._db.execute("ALTER TABLE rounds ADD COLUMN error TEXT")
        self._lock = self.file.lock

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def _write(self, sql: str, rows: Iterable[tuple[Any, ...]]) -> None:
        with self._lock:
            self._db.executemany(sql, rows)

    def save_round(self, r: RoundRecord) -> None:
        self._write(
            "INSERT OR REPLACE INTO rounds VALUES (?,?,?,?,?,?,?,?,?,?,?)",
            [
                (
                    r.round_id,
                    _dump(r.spec),
                    r.status,
                    r.generation,
                    r.created_wall,
                    r.started_wall,
                    r.active_end,
                    r.post_end,
                    _dump(r.allocation),
                    _dump(r.results),
                    r.error,
                )
            ],
        )

    def add_decision(self, round_id: str, e: LogEntry, wall: float) -> None:
        self._write(
            "INSERT OR REPLACE INTO decisions VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
            [
                (
                    round_id,
                    e.seq,
                    e.t,
                    wall,
                    e.speaker,
                    e.addressee,
                    e.text,
                    int(e.permitted),
                    e.rule,
                    e.rationale,
                    int(e.deal),
                    _dump(e.message),
                )
            ],
        )

    def save_purchase(self, round_id: str, p: Purchase) -> None:
        self._write(
            "INSERT OR REPLACE INTO purchases VALUES (?,?,?,?,?,?,?)",
            [
                (
                    round_id,
                    p.seq,
                    p.seller,
                    _dump(p.quantity),
                    p.price_cents,
                    p.t,
                    int(p.cancelled),
                )
            ],
        )

    def load_rounds(self) -> list[RoundRecord]:
        with self._lock:
            rows = self._db.execute(
                "SELECT round_id, spec, status, generation, created_wall, started_wall, "
                "active_end, post_end, allocation, results, error FROM rounds "
                "ORDER BY created_wall"
            ).fetchall()
        return [
            RoundRecord(
                r[0],
                json.loads(r[1]),
                Phase(r[2]),
                r[3],
                r[4],
                r[5],
                r[6],
                r[7],
                None if r[8] is None else json.loads(r[8]),
                None if r[9] is None else json.loads(r[9]),
                r[10],
            )
            for r in rows
        ]

    def load_log(self, round_id: str) -> list[LogEntry]:
        with self._lock:
            rows = self._db.execute(
                "SELECT seq, t, speaker, addressee, text, permitted, rule, rationale, message, "
                "deal FROM decisions WHERE round_id=? ORDER BY seq",
                (round_id,),
            ).fetchall()
        return [
            LogEntry(
                r[0], r[1], r[2], r[3], r[4], bool(r[5]), r[6], r[7], json.loads(r[8]), bool(r[9])
            )
            for r in rows
        ]

    def load_purchases(self, round_id: str) -> list[Purchase]:
        with self._lock:
            rows = self._db.execute(
                "SELECT seq, seller, quantity, price_cents, t, cancelled FROM purchases "
                "WHERE round_id=? ORDER BY seq",
                (round_id,),
            ).fetchall()
        return [Purchase(r[0], r[1], json.loads(r[2]), r[3], r[4], bool(r[5])) for r in rows]
