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
    # every session's calls went through the hub, many per request (one at a time is
    # one each; how many share a request depends on which answers come back together:
    # 3.5 to 6 a request measured on 2 cores at load 18, about 6 on a quiet machine)
    assert hub.calls > 2 * hub.round_trips
    assert not hub.slots  # the sandboxes went back to the pool


@pytest.mark.needs_bwrap
def test_a_session_past_its_cpu_time_fails_alone(tmp_path: Path) -> None:
    """Many at once, CPU time is counted per session call by call: each of the burner's
    sessions fails when it has used its quarter second, recorded against it; the others run."""
    entries = str(Path(__file__).parent / "entries")
    burner = {"name": "Burner", "type": "hostile_negotiators:Burner", "params": {"target": 0.1}}
    cfg = TournamentConfig(
        ("boulware", "conceder", burner),
        ("lunch",),
        sandbox="auto",  # the burner only (named by path), in its OS sandbox
        self_play=False,
        rotate=False,
        pairing="combinations",
        cpu_limit=0.25,
        time_limit=5,
        rounds=40,
    )
    out = tmp_path / "cpu.sqlite"
    import sys

    sys.path.insert(0, entries)
    try:
        run_tournament(cfg, out, SerialExecutor())
    finally:
        sys.path.remove(entries)
    with sqlite3.connect(out) as db:
        rows = db.execute("SELECT failure_agent, failure_kind, failure_message FROM sessions")
        found = rows.fetchall()
    assert sorted(str(r[0]) for r in found) == ["Burner", "Burner", "None"], found
    burnt = [r for r in found if r[0] == "Burner"]
    assert all(r[1] == "exception" for r in burnt), burnt
    assert all("CPU-time limit of 0.25 s exceeded in this session" in r[2] for r in burnt)


def test_phased_sessions_begin_one_side_at_a_time_and_play_as_unphased(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Sessions rotating profiles begin phased by their first party's profile
    (``multiplex._phase``): the first request goes only to the sandboxes of one side, not
    to every sandbox; only the order of calls across sessions changes, never a session."""
    from accord.tournament import multiplex

    cfg = TournamentConfig(
        ("boulware", "conceder", "linear"),
        ("holiday",),
        sandbox="process",
        seed=5,
        rounds=10,
        self_play=False,
    )
    flush = Hub._flush
    rows, first, calls = {}, {}, {}
    for phased in (True, False):
        queued: list[list[int]] = []

        def spy(hub: Hub, done: Any, live: Any, queued: list[list[int]] = queued) -> None:
            queued.append(sorted(len(s.queue) for s in hub._all() if s.queue))
            flush(hub, done, live)

        monkeypatch.setattr(Hub, "_flush", spy)
        if not phased:
            monkeypatch.setattr(multiplex, "_phase", lambda task: 0)
        ex = SerialExecutor()
        out = tmp_path / f"{phased}.sqlite"
        run_tournament(cfg, out, ex, fresh=True)
        assert ex.hub is not None
        rows[phased], first[phased], calls[phased] = _rows(out), queued[0], ex.hub.calls
    assert rows[True] == rows[False] and len(rows[True]) == 18
    assert calls[True] == calls[False]
    # 18 sessions, 9 sandboxes (3 agents x 3 sides), 6 sessions each. Phased, the 6
    # sessions whose first party plays profile 0 begin: each calls start on that party's
    # sandbox, 2 sessions for each of that side's 3. Unphased, all 18 call all 9.
    assert first == {True: [2] * 3, False: [2] * 9}
