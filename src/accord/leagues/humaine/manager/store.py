"""SQLite persistence of the competition manager: contestants, plans, rounds, results.

Everything the manager knows lives in one SQLite file (WAL mode), so a restarted manager
carries on exactly where it stopped.

Example:
    >>> s = ManagerStore(":memory:")
    >>> s.add_agent("kleene", "127.0.0.1", 14007)
    >>> [a.name for a in s.agents()]
    ['kleene']
"""

from __future__ import annotations

import json
import re
import sqlite3
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from accord.core.errors import AccordError
from accord.leagues.humaine.manager.schedule import DUMMY_PREFIX, PlannedRound, StagePlan
from accord.leagues.humaine.manager.scores import RoundOutcome, agent_utilities_from_totals
from accord.tournament.sqlite import SqliteFile
from accord.web.auth import Auth

from .auth import SESSION_COOKIE

_SCHEMA = """
CREATE TABLE IF NOT EXISTS agents (
    name TEXT PRIMARY KEY, protocol TEXT NOT NULL, host TEXT NOT NULL, port INTEGER NOT NULL,
    created REAL NOT NULL, authenticated INTEGER NOT NULL DEFAULT 1);
CREATE TABLE IF NOT EXISTS humans (name TEXT PRIMARY KEY, created REAL NOT NULL);
CREATE TABLE IF NOT EXISTS settings (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS utilities (
    id INTEGER PRIMARY KEY, kind TEXT NOT NULL, stage TEXT NOT NULL, body TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS stages (
    name TEXT PRIMARY KEY, seq INTEGER NOT NULL, groups TEXT NOT NULL, byes TEXT NOT NULL,
    buyer_orders TEXT NOT NULL, created REAL NOT NULL);
CREATE TABLE IF NOT EXISTS rounds (
    number INTEGER PRIMARY KEY, stage TEXT NOT NULL, grp TEXT NOT NULL, slot INTEGER NOT NULL,
    meeting INTEGER NOT NULL, celia TEXT NOT NULL, watson TEXT NOT NULL,
    celia_utility INTEGER NOT NULL, watson_utility INTEGER NOT NULL, human TEXT NOT NULL,
    buyer_utility INTEGER NOT NULL, status TEXT NOT NULL DEFAULT 'scheduled',
    round_id TEXT UNIQUE, error TEXT, started REAL, finished REAL, totals TEXT);
CREATE TABLE IF NOT EXISTS results (
    number INTEGER NOT NULL, party TEXT NOT NULL, kind TEXT NOT NULL, utility REAL NOT NULL,
    PRIMARY KEY (number, party));
"""

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9 _.\-]{0,39}$")
RESERVED_NAMES = ("Human", "Celia", "Watson")


class StoreError(AccordError, ValueError):
    """A request the stored state cannot satisfy; the message says why."""


class NotFound(StoreError):
    """A named agent, human, utility or round does not exist."""


@dataclass(frozen=True)
class AgentEntry:
    """A registered seller agent service."""

    name: str
    protocol: str
    host: str
    port: int
    authenticated: bool = True
    """False: written for the original platform (cannot send a secret); its rounds admit
    it unauthenticated, the operator's explicit choice."""


@dataclass(frozen=True)
class RoundRow(PlannedRound):
    """A scheduled round with its state (utilities are stored utility ids)."""

    status: str
    round_id: str | None
    error: str | None
    started: float | None
    finished: float | None
    totals: dict[str, Any] | None

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def check_name(name: str, what: str) -> str:
    """A contestant name: 1-40 letters, digits, spaces, ``_.-``; not reserved."""
    name = str(name).strip()
    if not _NAME.match(name):
        raise StoreError(
            f"{what} name must be 1-40 characters of letters, digits, space, '_', '.', '-' "
            f"and start with a letter or digit; got {name!r}"
        )
    if name.startswith(DUMMY_PREFIX) or name in RESERVED_NAMES:
        raise StoreError(f"{what} name {name!r} is reserved (dummy-*, {', '.join(RESERVED_NAMES)})")
    return name


class ManagerStore:
    """Thread-safe access to the manager's SQLite file (``":memory:"`` for a scratch one)."""

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        self.file = SqliteFile(self.path, schema=_SCHEMA)
        self._db = self.file.conn
        self._db.row_factory = sqlite3.Row
        columns = {row[1] for row in self._db.execute("PRAGMA table_info(agents)")}
        if "authenticated" not in columns:  # a file from before agents were authenticated
            self._db.execute(
                "ALTER TABLE agents ADD COLUMN authenticated INTEGER NOT NULL DEFAULT 1"
            )
        self._lock = self.file.lock
        self.auth = Auth(self.file, cookie=SESSION_COOKIE)
        """Admins, their passwords and sessions: the web layer's (users with role admin)."""
        self._adopt_old_admins()

    def _adopt_old_admins(self) -> None:
        """A file written before the web layer's users table kept its admins in
        ``admins``: they become users (same password hashes), once."""
        with self._lock:
            old = self._db.execute(
                "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'admins'"
            ).fetchone()
        if old is None:
            return
        with self._tx() as db:
            db.execute(
                "INSERT OR IGNORE INTO users (username, pw_hash, role, created) "
                "SELECT username, pw_hash, 'admin', ? FROM admins",
                (time.time(),),
            )
            db.execute("DROP TABLE admins")

    def close(self) -> None:
        with self._lock:
            self._db.close()

    @contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield self._db
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    def _all(self, sql: str, args: Sequence[Any] = ()) -> list[sqlite3.Row]:
        with self._lock:
            return list(self._db.execute(sql, args).fetchall())

    # -- admins (the web layer's users) -----------------------------------------------------
    def admin_hash(self, username: str) -> str | None:
        rows = self._all("SELECT pw_hash FROM users WHERE username = ?", (username,))
        return str(rows[0]["pw_hash"]) if rows else None

    def has_admin(self) -> bool:
        return self.auth.has_users()

    def set_admin(self, username: str, pw_hash: str) -> None:
        """Create ``username`` (an admin) or change its password, given its hash."""
        with self._tx() as db:
            db.execute(
                "INSERT INTO users VALUES (?, ?, 'admin', ?) "
                "ON CONFLICT(username) DO UPDATE SET pw_hash = excluded.pw_hash",
                (username, pw_hash, time.time()),
            )

    # -- contestants ---------------------------------------------------------------------
    def _check_unplanned(self, what: str) -> None:
        if self._all("SELECT 1 FROM stages LIMIT 1"):
            raise StoreError(f"cannot {what}: the competition is already scheduled; reset it first")

    def add_agent(
        self, name: str, host: str, port: int, protocol: str = "http", authenticated: bool = True
    ) -> None:
        name = check_name(name, "agent")
        if protocol not in ("http", "https"):
            raise StoreError(f"protocol must be 'http' or 'https'; got {protocol!r}")
        if not str(host).strip() or any(c in str(host) for c in "/ ?#@"):
            raise StoreError(f"host must be a host name or address like 127.0.0.1; got {host!r}")
        if isinstance(port, bool) or not isinstance(port, int) or not 1 <= port <= 65535:
            raise StoreError(f"port must be a whole number in 1..65535; got {port!r}")
        self._check_unplanned("register an agent")
        with self._tx() as db:
            if db.execute("SELECT 1 FROM agents WHERE name = ?", (name,)).fetchone():
                raise StoreError(f"an agent named {name!r} is already registered")
            db.execute(
                "INSERT INTO agents VALUES (?, ?, ?, ?, ?, ?)",
                (name, protocol, host.strip(), port, time.time(), int(authenticated)),
            )

    def agents(self) -> list[AgentEntry]:
        rows = self._all(
            "SELECT name, protocol, host, port, authenticated FROM agents ORDER BY created, name"
        )
        return [
            AgentEntry(
                r["name"], r["protocol"], r["host"], int(r["port"]), bool(r["authenticated"])
            )
            for r in rows
        ]

    def agent(self, name: str) -> AgentEntry:
        for a in self.agents():
            if a.name == name:
                return a
        raise NotFound(f"no agent named {name!r}; registered: {[a.name for a in self.agents()]}")

    def add_human(self, name: str) -> None:
        name = check_name(name, "human")
        self._check_unplanned("register a human")
        with self._tx() as db:
            if db.execute("SELECT 1 FROM humans WHERE name = ?", (name,)).fetchone():
                raise StoreError(f"a human named {name!r} is already registered")
            db.execute("INSERT INTO humans VALUES (?, ?)", (name, time.time()))

    def humans(self) -> list[str]:
        return [str(r["name"]) for r in self._all("SELECT name FROM humans ORDER BY created")]

    def remove(self, kind: str, name: str) -> None:
        """Unregister an agent or a human (only before the competition is scheduled)."""
        table = {"agent": "agents", "human": "humans"}.get(kind)
        if table is None:
            raise StoreError(f"kind must be 'agent' or 'human'; got {kind!r}")
        self._check_unplanned(f"remove a {kind}")
        with self._tx() as db:
            if not db.execute(f"DELETE FROM {table} WHERE name = ?", (name,)).rowcount:
                raise NotFound(f"no {kind} named {name!r}")

    # -- settings ------------------------------------------------------------------------
    def setting(self, key: str, default: Any = None) -> Any:
        rows = self._all("SELECT value FROM settings WHERE key = ?", (key,))
        return json.loads(rows[0]["value"]) if rows else default

    def set_setting(self, key: str, value: Any) -> None:
        with self._tx() as db:
            db.execute(
                "INSERT INTO settings VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = ?",
                (key, json.dumps(value), json.dumps(value)),
            )

    # -- plans -----------------------------------------------------------------------------
    def save_stage(
        self, plan: StagePlan, seller: Sequence[dict[str, Any]], buyer: Sequence[dict[str, Any]]
    ) -> None:
        """Store a stage plan with the utilities its indices refer to, all or nothing."""
        if len(seller) != plan.n_seller_utilities or len(buyer) != plan.n_buyer_utilities:
            raise StoreError(
                f"{plan.stage} needs {plan.n_seller_utilities} seller and "
                f"{plan.n_buyer_utilities} buyer utilities; got {len(seller)} and {len(buyer)}"
            )
        with self._tx() as db:
            if db.execute("SELECT 1 FROM stages WHERE name = ?", (plan.stage,)).fetchone():
                raise StoreError(f"stage {plan.stage!r} is already scheduled")
            seq = db.execute("SELECT COUNT(*) FROM stages").fetchone()[0]
            ids: dict[str, list[int]] = {"seller": [], "buyer": []}
            for kind, bodies in (("seller", seller), ("buyer", buyer)):
                for body in bodies:
                    cur = db.execute(
                        "INSERT INTO utilities (kind, stage, body) VALUES (?, ?, ?)",
                        (kind, plan.stage, json.dumps(body)),
                    )
                    ids[kind].append(int(cur.lastrowid or 0))
            db.execute(
                "INSERT INTO stages VALUES (?, ?, ?, ?, ?, ?)",
                (
                    plan.stage,
                    seq,
                    json.dumps(plan.groups),
                    json.dumps(list(plan.byes)),
                    json.dumps(plan.buyer_orders),
                    time.time(),
                ),
            )
            for r in plan.rounds:
                db.execute(
                    "INSERT INTO rounds (number, stage, grp, slot, meeting, celia, watson, "
                    "celia_utility, watson_utility, human, buyer_utility) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        r.number,
                        r.stage,
                        r.group,
                        r.slot,
                        r.meeting,
                        r.celia,
                        r.watson,
                        ids["seller"][r.celia_utility],
                        ids["seller"][r.watson_utility],
                        r.human,
                        ids["buyer"][r.buyer_utility],
                    ),
                )

    def stages(self) -> list[dict[str, Any]]:
        rows = self._all("SELECT * FROM stages ORDER BY seq")
        return [
            {
                "name": r["name"],
                "groups": json.loads(r["groups"]),
                "byes": json.loads(r["byes"]),
                "buyerOrders": json.loads(r["buyer_orders"]),
            }
            for r in rows
        ]

    def reset(self) -> None:
        """Forget plans, utilities, rounds and results (contestants stay)."""
        with self._tx() as db:
            for table in ("stages", "rounds", "results", "utilities"):
                db.execute(f"DELETE FROM {table}")

    def utility(self, uid: int) -> dict[str, Any]:
        rows = self._all("SELECT kind, body FROM utilities WHERE id = ?", (uid,))
        if not rows:
            raise NotFound(f"no utility with id {uid}")
        return {"id": uid, "kind": rows[0]["kind"], "body": json.loads(rows[0]["body"])}

    # -- rounds and results ----------------------------------------------------------------
    @staticmethod
    def _row(r: sqlite3.Row) -> RoundRow:
        d = dict(r)
        d["group"] = d.pop("grp")
        d["totals"] = json.loads(d["totals"]) if d["totals"] else None
        return RoundRow(**d)

    def rounds(self, stage: str | None = None) -> list[RoundRow]:
        if stage is None:
            return [self._row(r) for r in self._all("SELECT * FROM rounds ORDER BY number")]
        rows = self._all("SELECT * FROM rounds WHERE stage = ? ORDER BY number", (stage,))
        return [self._row(r) for r in rows]

    def round(self, number: int) -> RoundRow:
        rows = self._all("SELECT * FROM rounds WHERE number = ?", (number,))
        if not rows:
            raise NotFound(f"no round number {number}")
        return self._row(rows[0])

    def round_by_id(self, round_id: str) -> RoundRow:
        rows = self._all("SELECT * FROM rounds WHERE round_id = ?", (round_id,))
        if not rows:
            raise NotFound(f"no round with roundId {round_id!r}")
        return self._row(rows[0])

    def mark_started(self, number: int, round_id: str) -> None:
        with self._tx() as db:
            db.execute(
                "UPDATE rounds SET status = 'running', round_id = ?, error = NULL, started = ? "
                "WHERE number = ?",
                (round_id, time.time(), number),
            )

    def mark_failed(self, number: int, error: str) -> None:
        with self._tx() as db:
            db.execute(
                "UPDATE rounds SET status = 'failed', error = ? WHERE number = ?", (error, number)
            )

    def record_totals(self, number: int, totals: dict[str, Any]) -> RoundRow:
        """Store the orchestrator's ``roundTotals`` of a round and the utilities they give."""
        row = self.round(number)
        agents, human = agent_utilities_from_totals(totals, row.celia, row.watson)
        with self._tx() as db:
            db.execute("DELETE FROM results WHERE number = ?", (number,))
            for party, value in agents.items():
                db.execute("INSERT INTO results VALUES (?, ?, 'agent', ?)", (number, party, value))
            db.execute("INSERT INTO results VALUES (?, ?, 'human', ?)", (number, row.human, human))
            db.execute(
                "UPDATE rounds SET status = 'done', finished = ?, totals = ?, error = NULL "
                "WHERE number = ?",
                (time.time(), json.dumps(totals), number),
            )
        return self.round(number)

    def outcomes(self) -> list[RoundOutcome]:
        """Every finished round as a :class:`RoundOutcome` for the leaderboard."""
        results: dict[int, list[sqlite3.Row]] = {}
        for r in self._all("SELECT * FROM results ORDER BY number"):
            results.setdefault(int(r["number"]), []).append(r)
        out = []
        for row in self.rounds():
            rs = results.get(row.number)
            if not rs:
                continue
            agents = {r["party"]: float(r["utility"]) for r in rs if r["kind"] == "agent"}
            human = next((float(r["utility"]) for r in rs if r["kind"] == "human"), 0.0)
            out.append(RoundOutcome(row.number, row.stage, row.group, agents, row.human, human))
        return out
