"""``--sessions-per-sandbox many|one``: the CLI's choice reaches the executor, is printed
at start with what it gives up or costs, and is stored in the results' config."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
import yaml
from tournament_helpers import T
from typer.testing import CliRunner

import accord.tournament.runner as runner
from accord.tournament.cli import app, check_before_running
from accord.tournament.config import TournamentConfig
from accord.tournament.executors import Executor, make_executor


def _stored(out: Path) -> Any:
    with sqlite3.connect(out) as conn:
        row = conn.execute("SELECT value FROM meta WHERE key = 'config'").fetchone()
    return json.loads(row[0]).get("sessions_per_sandbox")


def _run(out: Path, *extra: str) -> tuple[int, str]:
    args = ["tournament", "--agents", f"{T}Boulware,{T}Linear", "--scenarios", "builtin:tiny"]
    args += ["--rounds", "5", "--executor", "serial", "--no-report", "--out", str(out)]
    result = CliRunner().invoke(app, [*args, *extra])
    return result.exit_code, result.output


@pytest.fixture
def made(monkeypatch: pytest.MonkeyPatch) -> list[Executor]:
    """The executors the runner builds (the real ones, recorded)."""
    seen: list[Executor] = []

    def spy(*args: Any, **kwargs: Any) -> Executor:
        ex = make_executor(*args, **kwargs)
        seen.append(ex)
        return ex

    monkeypatch.setattr(runner, "make_executor", spy)
    return seen


def test_one_reaches_the_executor_and_the_stored_config(tmp_path: Path, made: list[Any]) -> None:
    out = tmp_path / "one.sqlite"
    code, output = _run(out, "--sessions-per-sandbox", "one")
    assert code == 0, output
    assert [type(ex).__name__ for ex in made] == ["SerialExecutor"]
    assert made[0].multiplex is False
    assert _stored(out) == "one"
    assert "--sessions-per-sandbox one has no effect here: no agent runs in a sandbox" in output


def test_default_is_many_and_a_resume_in_the_other_mode_is_recorded_as_mixed(
    tmp_path: Path, made: list[Any]
) -> None:
    out = tmp_path / "t.sqlite"
    code, output = _run(out)
    assert code == 0, output
    assert made[0].multiplex is True and _stored(out) == "many"
    with sqlite3.connect(out) as conn:  # drop one session, resume it one at a time
        sid = conn.execute("SELECT id FROM sessions LIMIT 1").fetchone()[0]
        for table in ("parties", "traces", "sessions"):
            col = "id" if table == "sessions" else "session_id"
            conn.execute(f"DELETE FROM {table} WHERE {col} = ?", (sid,))
    code, output = _run(out, "--sessions-per-sandbox", "one")
    assert code == 0, output
    assert "(1 run now)" in output
    assert _stored(out) == "mixed"
    assert _run(out, "--sessions-per-sandbox", "many")[0] == 0  # nothing left to run
    assert _stored(out) == "mixed"


def test_a_bad_value_is_one_line_before_any_work(tmp_path: Path) -> None:
    out = tmp_path / "bad.sqlite"
    code, output = _run(out, "--sessions-per-sandbox", "two")
    assert code == 2
    assert output.strip() == "error: --sessions-per-sandbox must be 'many' or 'one'; got 'two'"
    assert not out.exists()


def test_the_configuration_file_takes_it_and_refuses_a_bad_one(tmp_path: Path) -> None:
    data = {"agents": [f"{T}Boulware"], "scenarios": ["builtin:tiny"]}
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump({**data, "sessions_per_sandbox": "one"}))
    cfg = TournamentConfig.from_yaml(path)
    assert cfg.sessions_per_sandbox == "one"
    assert cfg.fingerprint() == cfg.with_(sessions_per_sandbox="many").fingerprint()
    path.write_text(yaml.safe_dump({**data, "sessions_per_sandbox": 1}))
    with pytest.raises(Exception, match="'sessions_per_sandbox' must be str; got int 1"):
        TournamentConfig.from_yaml(path)
    with pytest.raises(Exception, match="must be 'many' or 'one', got 'all'"):
        cfg.with_(sessions_per_sandbox="all")


@pytest.mark.parametrize(
    ("mode", "executor", "seconds", "expected"),
    [
        ("many", "serial", None, "many at once (the default; fewer round trips): while a"),
        ("one", "processes", None, "one at a time (--sessions-per-sandbox one): a sandbox"),
        ("many", "ray", None, "many at once (the default; fewer round trips): while a"),
        ("many", "serial", 5.0, "one at a time (a deadline in seconds): a sandbox holds"),
    ],
)
def test_the_start_note_says_which_mode_runs(
    mode: str, executor: str, seconds: float | None, expected: str
) -> None:
    cfg = TournamentConfig(
        agents=(f"{T}Boulware", f"{T}Linear"),
        scenarios=("builtin:tiny",),
        sandbox="process",  # planned only: no sandbox starts in the checks
        sessions_per_sandbox=mode,
        seconds=seconds,
    )
    notes = [n for n in check_before_running(cfg, executor, None, None, 0.0) if "per sandbox" in n]
    assert len(notes) == 1 and notes[0].startswith("sessions per sandbox: " + expected)
    assert ("gives up" in notes[0] or "holds its agent's other live sessions" in notes[0]) == (
        expected.startswith("many")
    )
    assert ("costs one round trip per call" in notes[0]) == expected.startswith("one")
