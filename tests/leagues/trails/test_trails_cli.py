"""``accord trails play`` and ``accord trails tournament``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from accord.cli import app

runner = CliRunner()


def test_play_prints_turns_and_scores() -> None:
    r = runner.invoke(app, ["trails", "play", "--agents", "purb reliable", "--board", "1"])
    assert r.exit_code == 0, r.output
    assert "ended by" in r.output and "purb" in r.output
    js = runner.invoke(app, ["trails", "play", "--agents", "purb", "--agents", "greedy", "--json"])
    game = json.loads(js.output)
    assert game["agents"] == ["purb", "greedy"] and len(game["scores"]) == 2


def test_play_rejects_bad_input() -> None:
    r = runner.invoke(app, ["trails", "play", "--agents", "purb nobody"])
    assert r.exit_code == 2 and "unknown trails agent" in r.output
    r = runner.invoke(app, ["trails", "play", "--dependency", "cooperative"])
    assert r.exit_code == 2 and "dependency must be" in r.output


def test_tournament_json_and_resume(tmp_path: Path) -> None:
    out = tmp_path / "t.sqlite"
    args = [
        "trails",
        "tournament",
        "-a",
        "purb reliable unreliable",
        "--boards",
        "1",
        "--out",
        str(out),
    ]
    first = runner.invoke(app, [*args, "--json"])
    assert first.exit_code == 0, first.output
    data = json.loads(first.output)
    assert set(data["table"]) == {"purb", "reliable", "unreliable"}
    assert set(data["by_class"]) == {"mutual", "unilateral", "independent"}
    assert data["reliability"]["unreliable"] == 0.0 and data["reliability"]["reliable"] == 1.0
    assert {"purb_limits_exploitation", "purb_wins_head_to_head"} <= set(data["checks"])
    again = runner.invoke(app, [*args, "--json"])
    assert json.loads(again.output) == data and out.exists()
    text = runner.invoke(app, args)
    assert "mean score" in text.output


def test_tournament_longer_games_go_on_after_a_player_is_home() -> None:
    r = runner.invoke(
        app,
        ["trails", "tournament", "--agents", "purb,reliable", "--boards", "1", "--seed", "5",
         "--longer", "--visibility", "own", "--json"],
    )  # fmt: skip
    assert r.exit_code == 0, r.output
    games = json.loads(r.output)["games"]
    assert games == 12  # 3 classes x 4 ordered pairs, self-play once


def test_tournament_says_where_agents_ran_and_keeps_json_clean(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # the sandbox line goes to stderr: --json on stdout stays one JSON document
    monkeypatch.syspath_prepend(str(Path(__file__).parent / "entries"))
    args = ["trails", "tournament", "-a", "purb", "-a", "trails_entries:Reliable"]
    r = CliRunner().invoke(app, [*args, "--boards", "1", "--json", "--sandbox", "process"])
    assert r.exit_code == 0, r.output
    assert r.stderr.startswith("sandbox: process for trails_entries:Reliable")
    assert "gives up OS isolation" in " ".join(r.stderr.split())
    assert json.loads(r.stdout)["games"] > 0
