"""Many sandboxed sessions at once (:mod:`accord.tournament.multiplex`): each sandbox
answers all its pending calls in one request, and every session is exactly what it is
one at a time (real scenarios, session by session)."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

from accord.tournament.config import TournamentConfig
from accord.tournament.executors import ProcessExecutor, SerialExecutor
from accord.tournament.multiplex import Hub
from accord.tournament.runner import run_tournament

_SQL = (
    "SELECT s.id, s.agreement, s.reason, s.steps, s.rounds, s.failure_agent, t.actions, "
    "t.outcomes, t.utilities FROM sessions s JOIN traces t ON t.session_id = s.id ORDER BY s.id"
)


def _rows(path: Path) -> list[tuple[Any, ...]]:
    with sqlite3.connect(path) as db:
        return db.execute(_SQL).fetchall()


@pytest.mark.parametrize(("scenario", "protocol"), [("holiday", "aop"), ("lunch", "ultimatum")])
def test_many_at_once_plays_every_session_as_one_at_a_time(
    tmp_path: Path, scenario: str, protocol: str
) -> None:
    cfg = TournamentConfig(
        ("boulware", "conceder", "frequency"),
        (scenario,),
        sandbox="process",
        protocol=protocol,
        seed=3,
        rounds=12,
        self_play=False,
    )
    rows = {}
    for multiplex in (False, True):
        out = tmp_path / f"{multiplex}.sqlite"
        run_tournament(cfg, out, SerialExecutor(multiplex=multiplex), fresh=True)
        rows[multiplex] = _rows(out)
    assert len(rows[True]) == len(rows[False]) > 6
    for a, b in zip(rows[True], rows[False], strict=True):
        assert a == b  # session by session: agreement, steps, trace, utilities


def test_worker_processes_run_groups_at_once_with_the_same_sessions(tmp_path: Path) -> None:
    cfg = TournamentConfig(
        ("boulware", "linear"), ("lunch",), sandbox="process", rounds=12, self_play=False
    )
    ex = ProcessExecutor(2)
    run_tournament(cfg, tmp_path / "p.sqlite", ex)
    assert ex._grouped  # each worker ran its groups many sessions at once
    run_tournament(cfg, tmp_path / "s.sqlite", SerialExecutor(multiplex=False))
    assert _rows(tmp_path / "p.sqlite") == _rows(tmp_path / "s.sqlite")


def test_calls_travel_in_few_requests(tmp_path: Path) -> None:
    from accord.tournament.scenarios import resolve_scenarios
    from accord.tournament.schedule import schedule
    from accord.tournament.session import RunContext, Task

    cfg = TournamentConfig(("boulware", "linear"), ("lunch",), sandbox="process", reps=3)
    scenarios = resolve_scenarios(cfg.scenarios, cfg.discretize)
    hub = Hub(RunContext.from_config(cfg, scenarios))
    tasks = [Task(s) for s in schedule(cfg, scenarios)]
    records = [r for batch in hub.run(tasks) for r in batch]
    assert len(records) == len(tasks)
    assert all(r.session[6] in ("agreement", "deadline") for r in records)
    # every session's calls went through the hub, many per request
    assert hub.calls > 4 * hub.round_trips
    assert not hub.slots  # the sandboxes went back to the pool
