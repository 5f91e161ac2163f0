"""A REJECT and the counter-offer that follows it take one request: the host proposes
right after answering (:class:`~accord.sandbox.Then`) and the organiser reads that
answer with :meth:`~accord.sandbox.Sandbox.receive`. The sessions are the same as
in-process, exactly, and each answer is still checked and failed on its own."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

from accord.sandbox import AgentRaised, Limits, start_sandbox
from accord.tournament.config import TournamentConfig
from accord.tournament.runner import run_tournament

ENTRIES = str(Path(__file__).parent / "entries")
_SQL = (
    "SELECT s.agreement, s.reason, s.steps, t.actions, t.outcomes FROM sessions s "
    "JOIN traces t ON t.session_id = s.id ORDER BY s.id"
)


def _rows(path: Path) -> list[tuple[Any, ...]]:
    with sqlite3.connect(path) as db:
        return db.execute(_SQL).fetchall()


def test_then_sends_two_answers_read_in_order() -> None:
    limits = Limits(cpu_seconds=20, memory_mb=1024, call_timeout=5.0, startup_timeout=60)
    with start_sandbox(
        "accord.sandbox.host:EchoHost",
        "hostile_fns:run",
        code_paths=[ENTRIES],
        limits=limits,
        mode="process",
    ) as box:
        assert box.call("then", 7) == {"first": 7}
        assert box.receive("then") == {"second": 7}
        assert box.call("then", "raise") == {"first": "raise"}
        with pytest.raises(AgentRaised, match="follow failed"):
            box.receive("then")
        assert box.alive
        with pytest.raises(AgentRaised, match="cannot be sent as JSON"):
            box.call("then_set", None)
        assert box.call("echo", [1]) == [1]  # nothing left over in the channel


@pytest.mark.parametrize("protocol", ["aop", "ultimatum"])
def test_a_sandboxed_tournament_plays_exactly_as_in_process(tmp_path: Path, protocol: str) -> None:
    def run(sandbox: str) -> list[tuple[Any, ...]]:
        out = tmp_path / f"{sandbox}.sqlite"
        cfg = TournamentConfig(
            ("boulware", "conceder", "linear"),
            ("holiday",),
            self_play=False,
            sandbox=sandbox,
            protocol=protocol,
        )
        run_tournament(cfg, out, fresh=True)
        return _rows(out)

    inside = run("none")
    assert inside
    assert run("process") == inside
