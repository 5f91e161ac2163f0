"""The CSV row, the tournament on the tournament layer (resumable) and the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from accord.cli import app
from accord.leagues.han.agents import FairSplitter, LyingAgent
from accord.leagues.han.domain import EXAMPLE_1, EXAMPLE_2
from accord.leagues.han.participants import Cooperative, Impatient
from accord.leagues.han.play import play
from accord.leagues.han.scoring import columns, csv_row, survey_score
from accord.leagues.han.tournament import run_tournament


def test_a_row_has_iagos_columns_and_counts() -> None:
    rec = play(EXAMPLE_2, LyingAgent, Impatient)
    row = csv_row(
        rec,
        "g7",
        "pilot",
        {
            "use_again": 7,
            "not_recommend": 1,
            "use_frequently": 4,
            "liked_partner": 5,
            "trusted_partner": 3,
        },
    )
    assert list(row) == columns()
    assert columns()[:7] == [
        "id",
        "agent0",
        "agent1",
        "userPoints",
        "vhPoints",
        "timedout",
        "formallyQuit",
    ]
    assert (row["agent0"], row["agent1"], row["studyName"]) == ("Impatient", "LyingAgent", "pilot")
    assert row["numVHLie"] == rec.game.counts["VHLie"] >= 2  # false BEST and inflated BATNA
    assert row["numVHBATNALies"] >= 1
    assert row["initialOfferVHAlloc4"] == -1  # three issues: a fourth has no allocation
    assert row["likeability"] == (7 + 7 + 4 + 5 + 3) / 5
    assert (
        survey_score(
            {
                "use_again": 1,
                "not_recommend": 7,
                "use_frequently": 1,
                "liked_partner": 1,
                "trusted_partner": 1,
            }
        )
        == 1.0
    )


def test_a_full_deal_row_has_the_allocations() -> None:
    rec = play(EXAMPLE_1, FairSplitter, Cooperative)
    row = csv_row(rec, "g1")
    deal = rec.result.offer
    assert deal is not None
    assert [row[f"finalOfferUserAlloc{i}"] for i in range(1, 5)] == [r[2] for r in deal.rows]
    assert [row[f"finalOfferVHAlloc{i}"] for i in range(1, 5)] == [r[0] for r in deal.rows]
    assert row["userPoints"] == EXAMPLE_1.points(deal, "person")


def test_the_tournament_resumes_from_its_sqlite_file(tmp_path: Path) -> None:
    out = tmp_path / "han.sqlite"
    first = run_tournament(
        ["fair", "liar"], ["cooperative", "greedy"], games=["example-1"], out=out
    )
    again = run_tournament(
        ["fair", "liar"], ["cooperative", "greedy"], games=["example-1"], out=out
    )
    assert first["agents"] == again["agents"]
    fair, liar = first["agents"]
    assert (fair["agent"], fair["games"], liar["games"]) == ("fair", 2, 2)
    assert liar["lies"] > 0 == fair["lies"]


def test_cli_play_and_tournament_json() -> None:
    runner = CliRunner()
    res = runner.invoke(app, ["han", "play", "fair", "cooperative", "--json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.output)
    assert data["outcome"] == "deal" and data["points"] == {"agent": 27, "person": 27}
    res = runner.invoke(app, ["han", "play", "tough", "fair", "--vs-agent", "--game", "example-2"])
    assert res.exit_code == 0 and "agent" in res.output
    res = runner.invoke(
        app, ["han", "tournament", "fair", "tough", "--participants", "greedy", "--json"]
    )
    assert res.exit_code == 0, res.output
    assert [r["agent"] for r in json.loads(res.output)["agents"]] == ["fair", "tough"]
    assert json.loads(res.output)["sandbox"] in ("os", "process")
    res = runner.invoke(app, ["han", "play", "nope", "cooperative"])
    assert res.exit_code == 2 and "unknown HAN agent 'nope'" in res.output


def test_serve_makes_a_pairs_study_and_prints_its_links(tmp_path: Path) -> None:
    import os
    import subprocess
    import sys
    import time

    import httpx

    from accord.web.testing import free_port

    port = free_port()
    cmd = [
        sys.executable, "-c", "from accord.cli import app; app()", "han", "serve",
        "--agents", "none", "--pairs", "--wait", "90", "--participants", "2",
        "--db", str(tmp_path / "pairs.sqlite"), "--port", str(port),
    ]  # fmt: skip
    env = {**os.environ, "COLUMNS": "80"}
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True, env=env)
    try:
        assert proc.stdout is not None
        lines = []
        while not (line := proc.stdout.readline()).startswith("admin page"):
            assert line, f"serve ended early: {lines}"
            lines.append(line.strip())
        links = [x for x in lines if "/s/" in x]
        assert len(links) == 2 and lines[0].startswith("experimenter password: ")
        c = httpx.Client(timeout=10)
        for _ in range(100):  # the server starts right after printing
            try:
                assert c.post(links[0]).status_code == 303
                break
            except httpx.ConnectError:
                time.sleep(0.1)
        base = f"http://127.0.0.1:{port}"
        me = c.post(base + "/api/participant/consent", json={"agree": True, "version": "1"})
        assert me.json()["condition"] == "pairs" and me.json()["params"] == {"partner": "person"}
        w = c.get(base + "/api/han/state").json()
        assert (w["waiting"], w["partner"], w["timeout"]) == (True, "person", 90.0)
        assert 80.0 < w["left"] <= 90.0
    finally:
        proc.terminate()
        proc.wait(timeout=20)


def test_the_tournament_says_which_sandbox_ran() -> None:
    runner = CliRunner()
    args = ["han", "tournament", "fair", "--participants", "greedy", "--games", "example-1"]
    res = runner.invoke(app, [*args, "--sandbox", "process"])
    assert res.exit_code == 0, res.output
    assert "sandbox: process (each game's agent in a plain child process); sandbox 'process'" in (
        " ".join(res.output.split())
    )
    res = runner.invoke(app, [*args, "--sandbox", "none"])
    assert res.exit_code == 0, res.output
    assert "sandbox: none (agents ran in the tournament's own processes" in " ".join(
        res.output.split()
    )


def test_a_path_that_builds_no_han_agent_is_refused_before_any_game(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from accord.sandbox import sandbox_available

    code = tmp_path / "code"
    code.mkdir()
    (code / "not_han.py").write_text("class NotHan:\n    pass\n")
    monkeypatch.syspath_prepend(str(code))
    mode = "os" if sandbox_available() is None else "process"
    res = CliRunner().invoke(
        app,
        [
            "han", "tournament", "not_han:NotHan", "--participants", "greedy", "--games",
            "example-1", "--sandbox", mode, "--out", str(tmp_path / "t.sqlite"),
        ],
        env={"COLUMNS": "80"},
    )  # fmt: skip
    assert res.exit_code == 2, res.output
    said = " ".join(res.output.split())
    assert "could not build agent 'not_han:NotHan'" in said, said
    assert "not a HanAgent subclass" in said
    assert not (tmp_path / "t.sqlite").exists()  # refused before any game or file
