"""Colored Trails agents named by path run in the sandbox by default: same game as in
process, no view of the organiser's files, and a hung or wrong agent is that player's
recorded failure (the null action is played) while the game goes on."""

from __future__ import annotations

from pathlib import Path

import pytest

from accord.core.errors import ConfigError
from accord.leagues.trails import sandboxed
from accord.leagues.trails.generator import generate
from accord.leagues.trails.match import play
from accord.sandbox import sandbox_available

ENTRIES = Path(__file__).parent / "entries"
needs_os = pytest.mark.skipif(
    sandbox_available() is not None, reason=f"no OS sandbox here: {sandbox_available()}"
)


@pytest.fixture(autouse=True)
def _importable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(ENTRIES))


@needs_os
def test_a_sandboxed_agent_plays_the_same_game_as_in_process() -> None:
    setup = generate("mutual", 4)
    inside = play(setup, ["purb", "trails_entries:Reliable"], seed=5)
    trusted = play(setup, ["purb", "trails_entries:Reliable"], seed=5, sandbox="off")
    builtin = play(setup, ["purb", "reliable"], seed=5)
    assert inside["history"] == trusted["history"] == builtin["history"]
    assert inside["scores"] == builtin["scores"] and inside["agents"] == ["purb", "reliable"]


@needs_os
def test_a_sandboxed_agent_cannot_read_the_organisers_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    secret = tmp_path / "results.sqlite"
    secret.write_text("every profile")
    monkeypatch.setenv("TRAILS_SECRET", str(secret))
    r = play(generate("mutual", 2), ["trails_entries:Snooper", "reliable"], seed=1)
    assert r["violations"] == []  # it never saw the file (it would have died with code 7)
    trusted = play(generate("mutual", 2), ["trails_entries:Snooper", "reliable"], seed=1,
                   sandbox="off")  # fmt: skip
    assert "SystemExit: 7" in trusted["violations"][0]["reason"]  # in process it reads it


@needs_os
def test_a_hung_or_wrong_agent_is_its_own_recorded_failure(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(sandboxed, "CALL_TIMEOUT", 1.0)
    r = play(generate("mutual", 3), ["trails_entries:Sleeper", "reliable"], seed=2)
    first = r["violations"][0]
    assert (first["player"], first["phase"]) == (0, "propose")
    assert "1 s" in first["reason"] or "timed out" in first["reason"]
    assert r["end"] in ("goal", "dormant", "max_turns") and len(r["scores"]) == 2
    g = play(generate("mutual", 3), ["reliable", "trails_entries:Garbage"], seed=2)
    assert g["violations"] and {v["player"] for v in g["violations"]} == {1}
    assert all(v["phase"] == "transfer" for v in g["violations"])


def test_a_bad_sandbox_mode_is_refused_before_the_game() -> None:
    with pytest.raises(ConfigError, match="sandbox must be one of os, process, none, off"):
        play(generate("mutual", 1), ["purb", "reliable"], sandbox="docker")


def test_none_is_the_in_process_mode_as_in_every_league() -> None:
    from accord.leagues.trails.sandboxed import agent_sandbox

    assert agent_sandbox("trails_entries:Reliable", "none") is None
    assert agent_sandbox("trails_entries:Reliable", "off") is None
    assert agent_sandbox("trails_entries:Reliable", "process") == "process"
