"""Shared helpers for the tournament tests: small configurations on generated scenarios."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from accord.agents.timebased import Linear
from accord.core.negotiator import Negotiator, NegotiatorView, Response
from accord.core.outcomes import Outcome
from accord.tournament.config import TournamentConfig

T = "accord.agents.timebased:"
F = "accord.tournament.faulty:"


def small_config(**changes: object) -> TournamentConfig:
    """Three time-based agents on two built-in scenarios (one of them 3-party)."""
    base = TournamentConfig(
        agents=(f"{T}Boulware", f"{T}Conceder", f"{T}Linear"),
        scenarios=("builtin:bilateral", "builtin:trilateral"),
        reps=2,
        seed=7,
    )
    return base.with_(**changes)


def table(path: Path, sql: str) -> list[tuple[object, ...]]:
    """Rows of a query on a results file."""
    with sqlite3.connect(path) as c:
        return c.execute(sql).fetchall()


DETERMINISTIC_SESSION_COLUMNS = (
    "id, idx, scenario, rep, rotation, agreement, reason, ended_by, time, steps, rounds, "
    "failure_party, failure_agent, failure_kind, failure_message"
)


def content(path: Path) -> dict[str, list[tuple[object, ...]]]:
    """Everything in a results file that must not depend on how or when it ran."""
    return {
        "sessions": table(
            path, f"SELECT {DETERMINISTIC_SESSION_COLUMNS} FROM sessions ORDER BY id"
        ),
        "parties": table(path, "SELECT * FROM parties ORDER BY session_id, position"),
        "traces": table(path, "SELECT * FROM traces ORDER BY session_id"),
        "specs": table(path, "SELECT * FROM specs ORDER BY idx"),
    }


class Recorder(Linear):
    """A linear concession agent that records the memory each session hands it."""

    seen: list[tuple[str, object]] = []

    def on_start(self, view: NegotiatorView) -> None:
        super().on_start(view)
        Recorder.seen.append((self.name, view.memory))


class AcceptsAnything(Negotiator):
    """Offers its own worst outcome and accepts every offer (an irrational agent)."""

    def propose(self, view: NegotiatorView) -> Outcome | None:
        values = view.utility.all()
        return view.space.outcome_at(int(values.argmin()))

    def respond(self, view: NegotiatorView, offer: Outcome) -> Response:
        return Response.ACCEPT
