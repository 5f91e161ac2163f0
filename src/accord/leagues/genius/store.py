"""The league's SQLite store: sessions (agents or people) and every action with its time.

One file, WAL mode. ``sessions`` has one row per session (``status`` running, ended or
abandoned; ``population`` agents or people; the sides' names and types; the result);
``events`` one row per submitted action, valid or not (``ok``, ``error``), with the turn,
the seconds since the start and the wall-clock time. A session and its events are written
in one transaction, so a crash never leaves half a session. The KBAgent's database is read
from here (:meth:`GeniusStore.logs`).

    >>> import tempfile, pathlib
    >>> from accord.leagues.genius.loading import load_domain
    >>> from accord.leagues.genius.match import Match
    >>> from accord.leagues.genius.pdas import make_agent
    >>> d = load_domain("job_candidate")
    >>> m = Match(d, [make_agent("conceder"), make_agent("fair")], (0, 1), seed=1)
    >>> _ = m.run()
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     with GeniusStore(pathlib.Path(tmp) / "g.sqlite") as store:
    ...         store.save(m.session, "s1", ("conceder", "fair"))
    ...         [s["id"] for s in store.sessions("job_candidate")], len(store.logs("job_candidate"))
    (['s1'], 1)
"""

from __future__ import annotations

import json
import time
from typing import Any

from accord.core.errors import UsageError
from accord.leagues.genius.domain import Domain
from accord.leagues.genius.knowledge import SessionLog
from accord.leagues.genius.protocol import EndReason, GeniusSession, Kind, Phase
from accord.tournament.sqlite import SqliteFile

__all__ = [
    "GeniusStore",
]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS sessions (
    id TEXT PRIMARY KEY,
    domain TEXT NOT NULL,
    population TEXT NOT NULL,
    party0 TEXT NOT NULL,
    party1 TEXT NOT NULL,
    type0 INTEGER NOT NULL,
    type1 INTEGER NOT NULL,
    status TEXT NOT NULL,
    reason TEXT,
    turn INTEGER,
    ended_by INTEGER,
    u0 REAL,
    u1 REAL,
    agreement TEXT,
    full INTEGER,
    invalid0 INTEGER,
    invalid1 INTEGER,
    rules TEXT NOT NULL,
    study TEXT,
    started REAL,
    meta TEXT,
    updated REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS participants (
    token TEXT PRIMARY KEY,
    study TEXT NOT NULL,
    idx INTEGER NOT NULL,
    key TEXT,
    status TEXT NOT NULL,
    session TEXT,
    side INTEGER,
    updated REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS events (
    session TEXT NOT NULL,
    seq INTEGER NOT NULL,
    turn INTEGER NOT NULL,
    elapsed REAL NOT NULL,
    party INTEGER NOT NULL,
    kind TEXT NOT NULL,
    offer INTEGER,
    payload TEXT,
    ok INTEGER NOT NULL,
    error TEXT,
    PRIMARY KEY (session, seq)
);
"""


class GeniusStore(SqliteFile):
    """Sessions and events of the GENIUS league in one SQLite file.

    The connection may be used from any thread (:class:`SqliteFile` holds a lock)."""

    SCHEMA = _SCHEMA

    def save(
        self,
        session: GeniusSession,
        sid: str,
        names: tuple[str, str],
        population: str = "agents",
        study: str | None = None,
        status: str | None = None,
        meta: dict[str, Any] | None = None,
    ) -> None:
        """Write (or rewrite) a session and all its events in one transaction.

        ``meta`` is kept as JSON (what is needed to resume: agents, seed, ...)."""
        r = session.result
        status = status or ("ended" if session.phase is Phase.ENDED else "running")
        rules = session.rules
        row = (
            sid,
            session.domain.name,
            population,
            names[0],
            names[1],
            session.types[0],
            session.types[1],
            status,
            None if r is None else r.reason.value,
            None if r is None else r.turn,
            None if r is None else r.ended_by,
            None if r is None else r.utilities[0],
            None if r is None else r.utilities[1],
            json.dumps(list(session.domain.values_of(session.agreement_row))),
            None if r is None else int(r.full),
            session.invalid[0],
            session.invalid[1],
            json.dumps(rules.__dict__),
            study,
            None if session.phase is Phase.CREATED else session.started,
            json.dumps(meta or {}),
            time.time(),
        )
        with self.transaction(immediate=True):
            self.conn.execute(
                "INSERT OR REPLACE INTO sessions VALUES (" + ",".join("?" * 22) + ")", row
            )
            self.conn.execute("DELETE FROM events WHERE session = ?", (sid,))
            self.conn.executemany(
                "INSERT INTO events VALUES (?,?,?,?,?,?,?,?,?,?)",
                [
                    (
                        sid,
                        e.seq,
                        e.turn,
                        e.elapsed,
                        e.party,
                        e.kind,
                        e.offer,
                        json.dumps(e.values if e.values is not None else e.index),
                        int(e.ok),
                        e.error,
                    )
                    for e in session.events
                ],
            )

    def sessions(
        self, domain: str | None = None, population: str | None = None
    ) -> list[dict[str, Any]]:
        """Session rows as dicts, oldest first, optionally filtered."""
        return self._rows("sessions", "updated, id", domain=domain, population=population)

    def session(self, sid: str) -> dict[str, Any] | None:
        """One session row (``meta`` decoded), or None."""
        cur = self.conn.execute("SELECT * FROM sessions WHERE id = ?", (sid,))
        row = cur.fetchone()
        if row is None:
            return None
        out = dict(zip([c[0] for c in cur.description], row, strict=True))
        out["meta"] = json.loads(out["meta"] or "{}")
        return out

    def set_status(self, sid: str, status: str) -> None:
        """Change a session's status (e.g. ``abandoned``)."""
        with self.transaction(immediate=True):
            self.conn.execute(
                "UPDATE sessions SET status = ?, updated = ? WHERE id = ?",
                (status, time.time(), sid),
            )

    # -- participants of studies ----------------------------------------------------------
    def add_participant(self, token: str, group: str, idx: int) -> None:
        """A participant (``token``: the study's participant id) of ``group`` (a condition),
        status ``waiting``."""
        with self.transaction(immediate=True):
            self.conn.execute(
                "INSERT INTO participants VALUES (?,?,?,?,?,?,?,?)",
                (token, group, idx, None, "waiting", None, None, time.time()),
            )

    def participants(
        self, study: str | None = None, token: str | None = None
    ) -> list[dict[str, Any]]:
        """Participant rows of a group (``study`` column) or the one with ``token``, in order."""
        return self._rows("participants", "study, idx", study=study, token=token)

    def _rows(self, table: str, order: str, **equal: Any) -> list[dict[str, Any]]:
        """The rows of ``table`` (ordered by ``order``) as dicts, filtered on the columns
        given a value (None: any); table and column names are ours, never a caller's."""
        where = {k: v for k, v in equal.items() if v is not None}
        sql = "".join(f" AND {k} = ?" for k in where)
        cur = self.conn.execute(
            f"SELECT * FROM {table} WHERE 1=1{sql} ORDER BY {order}", list(where.values())
        )
        cols = [c[0] for c in cur.description]
        return [dict(zip(cols, r, strict=True)) for r in cur.fetchall()]

    def update_participant(self, token: str, **fields: Any) -> None:
        """Set some columns of one participant row."""
        names = sorted(fields)
        unknown = set(names) - {"key", "status", "session", "side"}
        if unknown:
            raise UsageError(
                f"unknown participant fields {sorted(unknown)}; expected key, status, session, side"
            )
        sets = ", ".join(f"{n} = ?" for n in names)
        with self.transaction(immediate=True):
            self.conn.execute(
                f"UPDATE participants SET {sets}, updated = ? WHERE token = ?",  # noqa: S608 - fixed names
                [*(fields[n] for n in names), time.time(), token],
            )

    def events(self, sid: str) -> list[dict[str, Any]]:
        """The events of one session in order."""
        cur = self.conn.execute("SELECT * FROM events WHERE session = ? ORDER BY seq", (sid,))
        cols = [c[0] for c in cur.description]
        return [dict(zip(cols, r, strict=True)) for r in cur.fetchall()]

    def logs(
        self, domain: str, population: str | None = None, domain_obj: Domain | None = None
    ) -> list[SessionLog]:
        """Finished sessions of ``domain`` as the KBAgent's database (abandoned ones excluded)."""
        from accord.leagues.genius.loading import load_domain

        d = domain_obj if domain_obj is not None else load_domain(domain)
        out: list[SessionLog] = []
        for s in self.sessions(domain, population):
            if s["status"] != "ended":
                continue
            offers: dict[int, tuple[int, ...]] = {}
            proposed: list[tuple[int, int, tuple[int, ...]]] = []
            accepted: list[tuple[int, tuple[int, ...]]] = []
            for e in self.events(s["id"]):
                if not e["ok"]:
                    continue
                if e["kind"] == Kind.OFFER:
                    row = tuple(int(x) for x in d.row_of(json.loads(e["payload"])))
                    offers[int(e["offer"])] = row
                    proposed.append((int(e["party"]), int(e["turn"]), row))
                elif e["kind"] == Kind.ACCEPT and e["offer"] in offers:
                    accepted.append((int(e["party"]), offers[int(e["offer"])]))
            agreed = any(v is not None for v in json.loads(s["agreement"]))
            out.append(
                SessionLog(
                    types=(int(s["type0"]), int(s["type1"])),
                    offers=tuple(proposed),
                    accepted=tuple(accepted),
                    agreement=agreed and s["reason"] != EndReason.OPT_OUT,
                    utilities=(float(s["u0"]), float(s["u1"])),
                )
            )
        return out
