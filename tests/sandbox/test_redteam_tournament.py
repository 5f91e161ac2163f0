"""Red team, negotiation tournaments: each hostile entrant (named by path, so sandboxed by
default) is contained, recorded against it with its reason, and the other agents'
session is identical to a run without it."""

from __future__ import annotations

import os
import socket
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import accord
from accord.tournament.config import TournamentConfig
from accord.tournament.runner import run_tournament

pytestmark = pytest.mark.needs_bwrap
H = "hostile_negotiators"
HONEST = ("Boulware=boulware", "Conceder=conceder")
SCENARIO = str(Path(accord.__file__).parent / "scenarios" / "holiday.json")


def _config(*extra: Any, **kw: Any) -> TournamentConfig:
    return TournamentConfig(
        (*HONEST, *extra),
        ("builtin:tiny",),
        self_play=False,
        rotate=False,
        pairing="combinations",
        time_limit=1.0,
        memory_limit=256,
        sandbox=kw.pop("sandbox", "auto"),
        **kw,
    )


def _rows(path: Path, sql: str) -> list[tuple[Any, ...]]:
    with sqlite3.connect(path) as db:
        return db.execute(sql).fetchall()


_HONEST_SQL = (
    "SELECT s.agreement, s.reason, s.steps, t.actions, t.outcomes FROM sessions s "
    "JOIN traces t ON t.session_id = s.id WHERE s.id IN (SELECT session_id FROM parties "
    "GROUP BY session_id HAVING SUM(agent IN ('Boulware', 'Conceder')) = 2)"
)


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> list[tuple[Any, ...]]:
    out = tmp_path_factory.mktemp("ref") / "r.sqlite"
    run_tournament(_config(), out)
    rows = _rows(out, _HONEST_SQL)
    assert len(rows) == 1
    return rows


@pytest.fixture(scope="module")
def listener() -> Iterator[int]:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    s.listen()
    yield s.getsockname()[1]
    s.close()


CASES = [
    ("Pickler", "mark", "frame of kind 80"),
    ("Partial", None, "the limit is 1.000 s"),  # a timeout; the process was killed
    ("Oversize", None, "1073741824 bytes"),
    ("FileSnoop", "files", "contained: no results or scenario file readable"),
    ("ProcSpy", "pid", "contained: no organiser process visible"),
    ("Signaller", "pid", "contained: kill: ProcessLookupError"),
    ("Network", "port", "contained: no network"),
    ("ForkBomb", None, "contained: fork failed after"),
    ("MemHog", None, "MemoryError"),
    ("CpuHog", None, "the limit is 1.000 s"),
    ("Lifter", None, "contained: limits stay"),
    ("KbInt", None, "KeyboardInterrupt"),
    ("SysExit", None, "SystemExit: 4"),
    ("Exiter", None, "exit code 5"),
    ("Flood", None, None),
    ("Threads", None, None),
]


@pytest.mark.parametrize(("cls", "needs", "reason"), CASES, ids=[c[0] for c in CASES])
def test_a_hostile_entrant_is_contained_and_recorded(
    tmp_path: Path,
    reference: list[tuple[Any, ...]],
    listener: int,
    cls: str,
    needs: str | None,
    reason: str | None,
) -> None:
    out = tmp_path / "results.sqlite"
    mark = tmp_path / "pwned"
    target = {
        "mark": str(mark),
        "files": [str(out), SCENARIO],
        "pid": os.getpid(),
        "port": listener,
        None: None,
    }[needs]
    agent = {"name": "X", "type": f"{H}:{cls}", "params": {"target": target}}
    run = run_tournament(_config(agent), out)
    assert run.ran == run.total == 3  # nothing stopped the tournament
    assert _rows(out, _HONEST_SQL) == reference  # the honest agents' session is untouched
    assert _rows(out, "PRAGMA integrity_check") == [("ok",)]
    failed = _rows(out, "SELECT failure_agent, failure_message FROM sessions")
    mine = [(a, m) for a, m in failed if a is not None]
    if reason is None:  # floods and threads break nothing: the sessions just run
        assert mine == []
    else:
        assert [a for a, _ in mine] == ["X", "X"], failed
        assert all(reason in m for _, m in mine), mine
    assert not mark.exists()
    assert Path(SCENARIO).stat().st_size > 100


def test_a_tournament_records_kill_and_interrupt_in_workers_and_in_process(
    tmp_path: Path,
) -> None:
    """In worker processes too, and without a sandbox: only the user's Ctrl-C stops a run."""
    agents = [{"name": n, "type": f"{H}:{n}", "params": {}} for n in ("KbInt", "SysExit")]
    for sandbox, executor in (("auto", "processes"), ("none", "serial"), ("none", "processes")):
        out = tmp_path / f"{sandbox}-{executor}.sqlite"
        run = run_tournament(_config(*agents, sandbox=sandbox), out, executor, workers=2)
        assert run.ran == run.total == 6
        failed = dict(_rows(out, "SELECT failure_agent, COUNT(*) FROM sessions GROUP BY 1"))
        assert failed == {None: 1, "KbInt": 3, "SysExit": 2}, (sandbox, executor, failed)
        assert run_tournament(_config(*agents, sandbox=sandbox), out, executor).ran == 0
