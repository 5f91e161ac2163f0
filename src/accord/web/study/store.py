"""The study's SQLite file: its design, participants and (beside them) the event log.

One row per participant: its number (order of invitation), the hash of its personal
link, its plan (conditions per round), status, current round, the league's state for it
(a JSON object) and the times it was invited, opened its link, consented and finished.
Everything that happens is also an event in the file's append-only log
(:class:`accord.web.store.EventLog`); the CSV export reads that log.

    >>> from accord.web.study.design import Condition, StudyDesign
    >>> design = StudyDesign(id="s", title="S", conditions=[Condition(name="a")])
    >>> store = StudyStore(":memory:", design)
    >>> p = store.add("hash-of-link", label="pilot", wall=100.0)
    >>> (p.pid, p.number, p.plan, p.status.value)
    ('p001', 0, ['a'], 'invited')
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

from accord.tournament.sqlite import SqliteFile
from accord.web.errors import WebError
from accord.web.study.design import StudyDesign

__all__ = ["Participant", "Status", "StudyStore"]


class Status(StrEnum):
    """Where a participant is: invited, opened (link used), consented, declined, done."""

    INVITED = "invited"
    OPENED = "opened"
    CONSENTED = "consented"
    DECLINED = "declined"
    DONE = "done"


_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS participants (
    pid TEXT PRIMARY KEY, number INTEGER UNIQUE NOT NULL, link_hash TEXT UNIQUE NOT NULL,
    label TEXT NOT NULL, plan TEXT NOT NULL, status TEXT NOT NULL,
    round INTEGER NOT NULL DEFAULT 0, state TEXT NOT NULL DEFAULT '{}',
    invited REAL NOT NULL, opened REAL, consented REAL, finished REAL);
"""

_COLUMNS = "pid, number, label, plan, status, round, state, invited, opened, consented, finished"


@dataclass(frozen=True)
class Participant:
    """A participant as stored."""

    pid: str
    number: int
    label: str
    plan: list[str]
    status: Status
    round: int
    state: dict[str, Any]
    invited: float
    opened: float | None
    consented: float | None
    finished: float | None

    @property
    def condition(self) -> str | None:
        """The condition of the current round (None once done)."""
        return self.plan[self.round] if self.round < len(self.plan) else None

    def to_json(self) -> dict[str, Any]:
        return {
            "pid": self.pid,
            "number": self.number,
            "label": self.label,
            "plan": self.plan,
            "status": self.status.value,
            "round": self.round,
            "rounds": len(self.plan),
            "condition": self.condition,
            "state": self.state,
            "invited": self.invited,
            "opened": self.opened,
            "consented": self.consented,
            "finished": self.finished,
        }


def _participant(row: dict[str, Any]) -> Participant:
    return Participant(
        row["pid"],
        int(row["number"]),
        row["label"],
        json.loads(row["plan"]),
        Status(row["status"]),
        int(row["round"]),
        json.loads(row["state"]),
        row["invited"],
        row["opened"],
        row["consented"],
        row["finished"],
    )


class StudyStore(SqliteFile):
    """The study file at ``path``; its design is stored on first open and must match
    on every later open (a restarted server resumes the same study)."""

    SCHEMA = _SCHEMA

    def __init__(self, path: str | Path, design: StudyDesign) -> None:
        super().__init__(path)
        self.design = design
        stored = self.meta("design")
        mine = design.model_dump_json()
        if stored is None:
            with self.transaction(immediate=True):
                self.set_meta("design", mine)
        elif StudyDesign.model_validate_json(stored) != design:
            self.close()
            raise WebError(
                409,
                f"{path} holds study {json.loads(stored).get('id')!r} with another design; "
                "open it with the design it was made with, or use a new file",
                code="design_mismatch",
            )

    def add(self, link_hash: str, label: str, wall: float) -> Participant:
        """A new participant with the next number and its plan."""
        with self.transaction(immediate=True):
            number = int(self.rows("SELECT COUNT(*) AS n FROM participants")[0]["n"])
            pid = f"p{number + 1:03d}"
            plan = self.design.plan(number)
            self.execute(
                "INSERT INTO participants (pid, number, link_hash, label, plan, status, invited) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                (pid, number, link_hash, label, json.dumps(plan), Status.INVITED.value, wall),
            )
        return self.get(pid)

    def get(self, pid: str) -> Participant:
        rows = self.rows(f"SELECT {_COLUMNS} FROM participants WHERE pid = ?", (pid,))
        if not rows:
            raise WebError(404, f"no participant {pid!r} in study {self.design.id!r}")
        return _participant(rows[0])

    def by_link(self, link_hash: str) -> Participant | None:
        rows = self.rows(f"SELECT {_COLUMNS} FROM participants WHERE link_hash = ?", (link_hash,))
        return _participant(rows[0]) if rows else None

    def all(self) -> list[Participant]:
        rows = self.rows(f"SELECT {_COLUMNS} FROM participants ORDER BY number")
        return [_participant(r) for r in rows]

    def update(self, pid: str, **fields: Any) -> Participant:
        """Set columns of one participant (``status``, ``round``, ``state``, times)."""
        allowed = {"status", "round", "state", "opened", "consented", "finished"}
        wrong = sorted(set(fields) - allowed)
        if wrong:
            raise KeyError(f"cannot set {wrong}; settable: {sorted(allowed)}")
        values = [
            json.dumps(v) if k == "state" else (v.value if isinstance(v, Status) else v)
            for k, v in fields.items()
        ]
        sets = ", ".join(f"{k} = ?" for k in fields)
        self.execute(f"UPDATE participants SET {sets} WHERE pid = ?", (*values, pid))
        return self.get(pid)
