"""One SQLite file (WAL mode) per tournament: config, schedule, sessions, parties, traces.

Tables::

    meta       key, value                 config (JSON), fingerprint, format version
    scenarios  name, n_parties, profiles, space (JSON issues), data (JSON scenario, or
               NULL when a utility cannot be written, e.g. a Python callable)
    specs      id, idx, scenario, agents, profiles, rep, rotation, seed   (the schedule)
    sessions   id, idx, scenario, rep, rotation, agreement, reason, ended_by, time,
               steps, rounds, failure_party, failure_agent, failure_kind,
               failure_message, failure_traceback, elapsed, started, finished, worker
    parties    session_id, position, agent, profile, profile_name, utility, reservation
    traces     session_id, n, parties, actions, times, outcomes, utilities

A trace row holds a session's events (offers, accepts, ends) column by column, to keep
writing cheap: ``parties`` one byte per event, ``actions`` one letter per event (``o``
offer, ``a`` accept, ``e`` end), ``times`` float64 bytes, ``outcomes`` JSON (flat
outcome indices with -1 for none on discrete spaces, value lists otherwise) and
``utilities`` float64 bytes (events x parties, undiscounted, NaN where no outcome).
:func:`decode_trace` unpacks one; ``Results.events`` gives them as a table.

Each session's rows go in one transaction, keyed by the session id (a primary key, so
a session can never be stored twice). A run killed at any moment leaves only whole
sessions behind; resuming skips the ids already in ``sessions``.

    >>> import tempfile, pathlib
    >>> with tempfile.TemporaryDirectory() as d:
    ...     store = Store(pathlib.Path(d) / "t.sqlite")
    ...     store.done_ids()
    set()
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import numpy as np

from accord.core.errors import ConfigError
from accord.core.scenario import Scenario
from accord.tournament.config import TournamentConfig
from accord.tournament.memory import PastSession
from accord.tournament.scenarios import scenario_to_dict
from accord.tournament.schedule import SessionSpec
from accord.tournament.session import SessionRecord
from accord.tournament.sqlite import SqliteFile

FORMAT = "accord-tournament/2"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS scenarios (
    name TEXT PRIMARY KEY, n_parties INTEGER NOT NULL, profiles TEXT NOT NULL,
    space TEXT NOT NULL, data TEXT);
CREATE TABLE IF NOT EXISTS specs (
    id TEXT PRIMARY KEY, idx INTEGER NOT NULL UNIQUE, scenario TEXT NOT NULL,
    agents TEXT NOT NULL, profiles TEXT NOT NULL, rep INTEGER NOT NULL,
    rotation INTEGER NOT NULL, seed INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS sessions (
    id TEXT PRIMARY KEY, idx INTEGER NOT NULL, scenario TEXT NOT NULL, rep INTEGER NOT NULL,
    rotation INTEGER NOT NULL, agreement TEXT, reason TEXT NOT NULL, ended_by INTEGER,
    time REAL NOT NULL, steps INTEGER NOT NULL, rounds INTEGER NOT NULL,
    failure_party INTEGER, failure_agent TEXT, failure_kind TEXT, failure_message TEXT,
    failure_traceback TEXT, elapsed REAL NOT NULL, started REAL NOT NULL, finished REAL NOT NULL, worker TEXT);
CREATE TABLE IF NOT EXISTS parties (
    session_id TEXT NOT NULL, position INTEGER NOT NULL, agent TEXT NOT NULL,
    profile INTEGER NOT NULL, profile_name TEXT NOT NULL, utility REAL NOT NULL,
    reservation REAL NOT NULL, PRIMARY KEY (session_id, position));
CREATE TABLE IF NOT EXISTS traces (
    session_id TEXT PRIMARY KEY, n INTEGER NOT NULL, parties BLOB NOT NULL,
    actions TEXT NOT NULL, times BLOB NOT NULL, outcomes TEXT NOT NULL,
    utilities BLOB NOT NULL);
CREATE INDEX IF NOT EXISTS parties_agent ON parties (agent);
"""

_INSERT_SESSION = "INSERT INTO sessions VALUES (" + ",".join("?" * 20) + ")"
_INSERT_PARTY = "INSERT INTO parties VALUES (?,?,?,?,?,?,?)"
_INSERT_TRACE = "INSERT INTO traces VALUES (?,?,?,?,?,?,?)"
ACTIONS = {"o": "offer", "a": "accept", "e": "end", "r": "reject"}


class Store(SqliteFile):
    """A tournament's SQLite file. Opening creates the tables if they are missing."""

    SCHEMA = _SCHEMA

    # -- setting up ----------------------------------------------------------------------
    def prepare(
        self,
        config: TournamentConfig,
        scenarios: dict[str, Scenario],
        specs: Sequence[SessionSpec],
        agents: dict[str, Any] | None = None,
    ) -> None:
        """Write config, scenarios, schedule and the agents' fingerprints
        (:mod:`accord.tournament.fingerprint`) into a new file, or check they match."""
        fmt = self.meta("format")
        if fmt is not None and fmt != FORMAT:
            raise ConfigError(
                f"{self.path} was written by another version of Accord (format {fmt}, "
                f"this one writes {FORMAT}); use another output file, or --fresh to start over"
            )
        old = self.meta("fingerprint")
        fp = config.fingerprint()
        if old is not None:
            self._check_agents(agents or {})
        if old is not None and old != fp:
            raise ConfigError(
                f"{self.path} holds another tournament (fingerprint {old}, this one is {fp}"
                f"{self._changed_settings(config)}); "
                "use another output file to start a new tournament, the same settings "
                "to resume, or --fresh to start over"
            )
        if old is not None:
            n = self.conn.execute("SELECT COUNT(*) FROM specs").fetchone()[0]
            if n != len(specs):
                raise ConfigError(
                    f"{self.path} schedules {n} sessions; this run schedules {len(specs)}"
                )
            stored = dict(self.conn.execute("SELECT name, data FROM scenarios").fetchall())
            for s in scenarios.values():
                data = scenario_to_dict(s)
                now = None if data is None else json.dumps(data)
                if stored.get(s.name, now) != now:
                    raise ConfigError(
                        f"{self.path} holds scenario {s.name!r} with other profiles than the "
                        "one given now; use another output file for the changed scenario"
                    )
            return
        with self.transaction():
            self.set_meta("format", FORMAT)
            self.set_meta("fingerprint", fp)
            self.set_meta("config", json.dumps(config.to_dict()))
            self.set_meta("agents", json.dumps(agents or {}, sort_keys=True))
            for s in scenarios.values():
                data = scenario_to_dict(s)
                self.conn.execute(
                    "INSERT INTO scenarios VALUES (?,?,?,?,?)",
                    (
                        s.name,
                        s.n_parties,
                        json.dumps(list(s.profile_names)),
                        json.dumps(s.space.to_list()),
                        None if data is None else json.dumps(data),
                    ),
                )
            self.conn.executemany(
                "INSERT INTO specs VALUES (?,?,?,?,?,?,?,?)",
                [
                    (
                        sp.id,
                        sp.index,
                        sp.scenario,
                        json.dumps(list(sp.agents)),
                        json.dumps(list(sp.profiles)),
                        sp.rep,
                        sp.rotation,
                        sp.seed,
                    )
                    for sp in specs
                ],
            )

    def note_sessions_per_sandbox(self, mode: str) -> None:
        """Sessions of a resumed run ran in ``mode``: if the stored config says another,
        it says ``mixed`` from now on (some many at once, some one at a time)."""
        stored = json.loads(self.meta("config") or "{}")
        if "sessions_per_sandbox" in stored and stored["sessions_per_sandbox"] != mode:
            stored["sessions_per_sandbox"] = "mixed"
            with self.transaction():
                self.set_meta("config", json.dumps(stored))

    def _changed_settings(self, config: TournamentConfig) -> str:
        """``; settings changed: failure_score from 'reservation' to 'zero'`` (or "")."""
        stored = json.loads(self.meta("config") or "{}")
        now = config.to_dict()
        skip = {"agents", "scenarios", "name", "sessions_per_sandbox"}
        found = [
            f"{k} from {stored.get(k, '(unset)')!r} to {now.get(k, '(unset)')!r}"
            for k in sorted((set(stored) | set(now)) - skip)
            if stored.get(k, "(unset)") != now.get(k, "(unset)")
        ]
        return f"; settings changed: {', '.join(found)}" if found else ""

    def _check_agents(self, agents: dict[str, Any]) -> None:
        from accord.tournament.fingerprint import changes

        stored = json.loads(self.meta("agents") or "{}")
        found = [
            c for name in sorted(agents) for c in changes(name, stored.get(name, {}), agents[name])
        ]
        if found:
            raise ConfigError(
                f"{self.path} holds results of other agents than this run's: "
                + "; ".join(found)
                + ". Resuming would mix their sessions; use --fresh to start over "
                "(the stored results are deleted) or another output file"
            )

    def config(self) -> dict[str, Any]:
        """The stored configuration (as written by ``TournamentConfig.to_dict``)."""
        return self.json_meta("config", "a tournament results file")

    # -- writing results -----------------------------------------------------------------
    def write(self, records: Sequence[SessionRecord]) -> int:
        """Store whole sessions in one transaction (all or none); returns how many."""
        c = self.conn
        with self.transaction():
            for r in records:
                c.execute(_INSERT_SESSION, r.session)
                c.executemany(_INSERT_PARTY, r.parties)
                if r.trace is not None:
                    c.execute(_INSERT_TRACE, r.trace)
        return len(records)

    def done_ids(self) -> set[str]:
        """Ids of the sessions already stored."""
        return {row[0] for row in self.conn.execute("SELECT id FROM sessions")}

    # -- reading for learning ------------------------------------------------------------
    def past_sessions(self, rep: int) -> dict[str, list[PastSession]]:
        """Every agent's view of the stored sessions of repetition ``rep`` (schedule order)."""
        rows = self.conn.execute(
            "SELECT p.session_id, s.scenario, s.rep, p.position, p.profile_name, sp.agents, "
            "s.agreement, p.utility, s.reason, p.agent, t.n, t.parties, t.actions, t.times, "
            "t.utilities FROM parties p "
            "JOIN sessions s ON s.id = p.session_id JOIN specs sp ON sp.id = p.session_id "
            "LEFT JOIN traces t ON t.session_id = p.session_id "
            "WHERE s.rep = ? ORDER BY sp.idx, p.position",
            (rep,),
        ).fetchall()
        out: dict[str, list[PastSession]] = {}
        for sid, scen, r, pos, pname, agents, agreement, utility, reason, agent, *tr in rows:
            names = tuple(json.loads(agents))
            n, parties, actions, times, utils = tr
            if n is None:
                proposers = np.zeros(0, dtype=np.int64)
                t = own = np.zeros(0, dtype=np.float64)
            else:
                offer = np.frombuffer(actions.encode(), dtype=np.uint8) == ord("o")
                proposers = np.frombuffer(parties, dtype=np.uint8)[offer].astype(np.int64)
                t = np.frombuffer(times, dtype=np.float64)[offer].copy()
                table = np.frombuffer(utils, dtype=np.float64).reshape(n, len(names))
                own = table[offer, pos].copy()
            out.setdefault(agent, []).append(
                PastSession(
                    session_id=sid,
                    scenario=scen,
                    rep=r,
                    position=pos,
                    profile=pname,
                    names=names,
                    proposers=proposers,
                    times=t,
                    utilities=own,
                    agreement=None if agreement is None else tuple(json.loads(agreement)),
                    utility=float(utility),
                    reason=reason,
                )
            )
        return out


def decode_trace(row: Sequence[Any], n_parties: int) -> dict[str, Any]:
    """Unpack a ``traces`` row (``session_id, n, parties, actions, times, outcomes,
    utilities``) into arrays: ``party``, ``action`` (names), ``time``, ``outcome`` (codes
    as stored) and ``utilities`` (``n x n_parties``)."""
    _, n, parties, actions, times, outcomes, utils = row
    return {
        "party": np.frombuffer(parties, dtype=np.uint8).astype(np.int64),
        "action": [ACTIONS[a] for a in actions],
        "time": np.frombuffer(times, dtype=np.float64),
        "outcome": json.loads(outcomes),
        "utilities": np.frombuffer(utils, dtype=np.float64).reshape(n, n_parties),
    }
