"""Games of the study server, kept in the study's SQLite file.

A game is its setup, rules, seats and opponent (table ``trails_games``), with the agent's
random generator state (so that it continues where it stopped); what was played is the
game's play on the web driver, in its own stream of the study's event log (see
:mod:`accord.leagues.trails.server`). ``trails_steps`` (one row per action) is where games
were played before: such a game is read once and moved onto its play. Participants
waiting for a human partner are in ``trails_waiting``. The tables live beside the study's
own in its file (an :class:`accord.tournament.sqlite.SqliteFile`, the one SQLite base).

    >>> from accord.tournament.sqlite import SqliteFile
    >>> store = GameStore(SqliteFile(":memory:"))
    >>> action_from_json(action_to_json(Propose((1, 0), (0, 2))))
    Propose(give=(1, 0), take=(0, 2))
    >>> store.steps("g0001")
    []
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict
from typing import Any

from accord.core.errors import ConfigError
from accord.leagues.trails.board import Settings
from accord.leagues.trails.engine import (
    Action,
    EndMove,
    Move,
    Pass,
    Propose,
    Respond,
    Setup,
    Transfer,
)
from accord.tournament.sqlite import SqliteFile

__all__ = ["GameRow", "GameStore", "action_from_json", "action_to_json"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS trails_games (
    gid TEXT PRIMARY KEY,
    number INTEGER NOT NULL,
    seats TEXT NOT NULL,
    opponent TEXT NOT NULL,
    setup TEXT NOT NULL,
    rules TEXT NOT NULL,
    agent_rng TEXT,
    closed INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS trails_steps (
    gid TEXT NOT NULL,
    n INTEGER NOT NULL,
    player INTEGER NOT NULL,
    action TEXT NOT NULL,
    PRIMARY KEY (gid, n)
);
CREATE TRIGGER IF NOT EXISTS trails_steps_no_update BEFORE UPDATE ON trails_steps
BEGIN SELECT RAISE(ABORT, 'the steps of a game are append-only'); END;
CREATE TABLE IF NOT EXISTS trails_waiting (
    condition TEXT PRIMARY KEY,
    pid TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS trails_waiting_since (
    pid TEXT PRIMARY KEY,
    since REAL NOT NULL
);
"""


def action_to_json(action: Action) -> dict[str, Any]:
    """An action as a JSON object (``kind`` and its fields)."""
    if isinstance(action, Propose):
        return {"kind": "propose", "give": list(action.give), "take": list(action.take)}
    if isinstance(action, Respond):
        return {"kind": "respond", "accept": action.accept}
    if isinstance(action, Transfer):
        return {"kind": "transfer", "send": list(action.send)}
    if isinstance(action, Move):
        return {"kind": "move", "cell": action.cell}
    if isinstance(action, EndMove):
        return {"kind": "endmove"}
    if isinstance(action, Pass):
        return {"kind": "pass"}
    raise ConfigError(f"not a Colored Trails action: {action!r}")


def action_from_json(d: dict[str, Any]) -> Action:
    """The inverse of :func:`action_to_json`."""
    kind = d.get("kind")
    if kind == "propose":
        return Propose(tuple(d["give"]), tuple(d["take"]))
    if kind == "respond":
        return Respond(bool(d["accept"]))
    if kind == "transfer":
        return Transfer(tuple(d["send"]))
    if kind == "move":
        return Move(int(d["cell"]))
    if kind == "endmove":
        return EndMove()
    if kind == "pass":
        return Pass()
    raise ConfigError(f"unknown stored action kind {kind!r}; expected propose, respond, ...")


class GameRow:
    """One stored game (without its steps)."""

    def __init__(self, row: dict[str, Any]) -> None:
        self.gid: str = row["gid"]
        self.number: int = int(row["number"])
        self.seats: list[str | None] = json.loads(row["seats"])
        self.opponent: str = row["opponent"]
        self.setup = Setup.from_dict(json.loads(row["setup"]))
        self.rules = Settings(**json.loads(row["rules"]))
        raw = row["agent_rng"]
        self.agent_rng: dict[str, Any] | None = json.loads(raw) if raw else None
        self.closed = bool(row["closed"])


class GameStore:
    """The study server's games in ``file`` (shared with the study)."""

    def __init__(self, file: SqliteFile) -> None:
        self.file = file
        with file.lock:
            file.conn.executescript(_SCHEMA)

    def add_game(
        self,
        gid: str,
        number: int,
        seats: Sequence[str | None],
        opponent: str,
        setup: Setup,
        rules: Settings,
    ) -> None:
        self.file.execute(
            "INSERT INTO trails_games (gid, number, seats, opponent, setup, rules)"
            " VALUES (?, ?, ?, ?, ?, ?)",
            (
                gid,
                number,
                json.dumps(list(seats)),
                opponent,
                json.dumps(setup.to_dict()),
                json.dumps(asdict(rules)),
            ),
        )

    def set_agent_rng(self, gid: str, state: dict[str, Any]) -> None:
        self.file.execute(
            "UPDATE trails_games SET agent_rng = ? WHERE gid = ?", (json.dumps(state), gid)
        )

    def close_game(self, gid: str) -> None:
        self.file.execute("UPDATE trails_games SET closed = 1 WHERE gid = ?", (gid,))

    def games(self) -> list[GameRow]:
        """Every stored game, in the order they started."""
        return [GameRow(r) for r in self.file.rows("SELECT * FROM trails_games ORDER BY number")]

    def game_rows(self) -> list[dict[str, Any]]:
        """Every stored game's raw row (read each with :class:`GameRow`, which may refuse
        a damaged one), in the order they started."""
        return [dict(r) for r in self.file.rows("SELECT * FROM trails_games ORDER BY number")]

    def steps(self, gid: str) -> list[tuple[int, Action]]:
        """The steps of a game stored before games were plays of the web driver."""
        rows = self.file.rows(
            "SELECT player, action FROM trails_steps WHERE gid = ? ORDER BY n", (gid,)
        )
        return [(int(r["player"]), action_from_json(json.loads(r["action"]))) for r in rows]

    def waiting(self) -> dict[str, str]:
        """Condition -> the participant waiting there for a human partner."""
        return {r["condition"]: r["pid"] for r in self.file.rows("SELECT * FROM trails_waiting")}

    def waiting_since(self) -> dict[str, float]:
        """Participant -> the wall time they began to wait alone (their waiting clock)."""
        rows = self.file.rows("SELECT pid, since FROM trails_waiting_since")
        return {r["pid"]: float(r["since"]) for r in rows}

    def set_waiting_since(self, pid: str, since: float | None) -> None:
        """Start (a time) or stop (None) ``pid``'s waiting clock."""
        if since is None:
            self.file.execute("DELETE FROM trails_waiting_since WHERE pid = ?", (pid,))
        else:
            self.file.execute(
                "INSERT OR IGNORE INTO trails_waiting_since VALUES (?, ?)", (pid, since)
            )

    def set_waiting(self, condition: str, pid: str | None) -> None:
        if pid is None:
            self.file.execute("DELETE FROM trails_waiting WHERE condition = ?", (condition,))
        else:
            self.file.execute(
                "INSERT OR REPLACE INTO trails_waiting VALUES (?, ?)", (condition, pid)
            )
