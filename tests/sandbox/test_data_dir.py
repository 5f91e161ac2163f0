"""An agent's learning-data directory in the ``os`` sandbox: it persists across sandboxes
and sessions, only that agent sees it, and it is capped (a write beyond the cap fails
in the agent only; a link out of it is never followed when it is saved)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from accord.sandbox import Limits, start_sandbox
from accord.tournament.config import TournamentConfig
from accord.tournament.runner import data_root, run_tournament

pytestmark = pytest.mark.needs_bwrap
ENTRIES = str(Path(__file__).parent / "entries")
LIMITS = Limits(data_mb=4, cpu_seconds=30, memory_mb=1024, call_timeout=20.0)


def _box(data: Path):  # type: ignore[no-untyped-def]
    return start_sandbox("accord.sandbox.host:EchoHost", "learning_fns:run",
                         code_paths=[ENTRIES], data_dir=str(data), limits=LIMITS)  # fmt: skip


def test_the_data_persists_is_capped_and_private(tmp_path: Path) -> None:
    mine, rival = tmp_path / "data" / "A", tmp_path / "data" / "B"
    mine.mkdir(parents=True)
    rival.mkdir()
    (rival / "model.json").write_text('{"secret": 1}')
    with _box(mine) as box:
        assert box.call("count") == 1 and box.call("count") == 2
        assert box.call("fill", 8) == "ENOSPC"  # 8 MB into a 4 MB directory
        assert box.call("link") == "linked"
        seen = box.call("peek", [str(rival), str(rival / "model.json"), str(mine.parent)])
    assert seen[str(rival)] == seen[str(rival / "model.json")] == "FileNotFoundError"
    assert seen[str(mine.parent)] == "listed ['A']"  # its own directory only
    assert sorted(p.name for p in mine.rglob("*")) == ["count.txt", "seen"]  # no link kept
    assert (mine / "seen" / "count.txt").read_text() == "2"
    with _box(mine) as box:  # a fresh sandbox starts from what the last one left
        assert box.call("count") == 3
    assert (mine / "seen" / "count.txt").read_text() == "3"
    assert (rival / "model.json").read_text() == '{"secret": 1}'


def test_a_learning_tournament_gives_each_entrant_its_own_directory(tmp_path: Path) -> None:
    out = tmp_path / "t.sqlite"
    rival = data_root(out) / "Learner"
    cfg = TournamentConfig(
        (
            "Learner=learning_fns:DataLearner",
            {"name": "Snoop", "type": "learning_fns:DataSnoop", "params": {"target": str(rival)}},
            "Boulware=boulware",
        ),
        ("builtin:tiny",), reps=2, learning=True, self_play=False, rotate=False,
        pairing="combinations", time_limit=1.0, memory_limit=256, sandbox="auto",
    )  # fmt: skip
    run = run_tournament(cfg, out, "serial")
    assert run.ran == run.total == 6
    assert (rival / "count.txt").read_text() == "4"  # its 4 sessions, kept across them
    with sqlite3.connect(out) as db:
        failed = db.execute("SELECT failure_agent, failure_message FROM sessions").fetchall()
    snooped = [m for a, m in failed if a == "Snoop"]
    assert len(snooped) == 4 and all("contained: no rival's data visible" in m for m in snooped)
    assert {a for a, _ in failed} == {None, "Snoop"}
