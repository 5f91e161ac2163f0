"""CLI and tournament: play --json, a resumable tournament, bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

pytest.importorskip(
    "diplomacy", reason="needs the optional AGPL engine: pip install '.[diplomacy]'"
)

from accord.cli import app  # noqa: E402
from accord.leagues.diplomacy.tournament import make_jobs, run_tournament  # noqa: E402

runner = CliRunner()


def test_play_json(tmp_path: Path) -> None:
    out = tmp_path / "game.json"
    res = runner.invoke(
        app, ["diplomacy", "play", "--fast", "--last-year", "1901", "--json", "--out", str(out)]
    )
    assert res.exit_code == 0, res.output
    data = json.loads(res.output)
    assert data["end"] == "cap" and data["players"]["AUSTRIA"] == "alliance"
    assert sum(data["centres"].values()) <= 34
    stored = json.loads(out.read_text())
    assert stored["phases"][0]["phase"] == "S1901M"


def test_play_bad_negotiator() -> None:
    res = runner.invoke(app, ["diplomacy", "play", "--negotiators", "genius", "--fast"])
    assert res.exit_code != 0
    assert "genius" in res.output and "alliance" in res.output


def test_groups_of_seven_and_random_powers() -> None:
    jobs = make_jobs(["alliance"] * 8, games=3, seed=1)
    assert len(jobs) == 6  # two groups of 7, the second filled with six non-negotiators
    assert sorted(jobs[0][1]["seats"].values()) == sorted(f"alliance#{k}" for k in range(7))
    second = list(jobs[3][1]["players"].values())
    assert second.count("alliance") == 1 and second.count("none") == 6
    assert len({tuple(j[1]["seats"].values()) for j in jobs[:3]}) > 1


def test_tournament_resumes(tmp_path: Path) -> None:
    out = tmp_path / "t.sqlite"
    first = run_tournament(["alliance"], 2, out=out, last_year=1901, candidates=1, ticks=2)
    again = run_tournament(["alliance"], 2, out=out, last_year=1901, candidates=1, ticks=2)
    assert first == again and len(first) == 2
    res = runner.invoke(
        app,
        [
            "diplomacy",
            "tournament",
            "alliance",
            "--games",
            "2",
            "--last-year",
            "1901",
            "--json",
            "--out",
            str(tmp_path / "c.sqlite"),
        ],
    )
    assert res.exit_code == 0, res.output
    rows = json.loads(res.output)
    assert sum(r["games"] for r in rows) == 14
    # each player but the last carries the test against the next one in the ranking
    assert rows[-1]["vs_next"] is None
    for hi, lo in zip(rows, rows[1:], strict=False):
        t = hi["vs_next"]
        assert (t["upper"], t["lower"]) == (hi["player"], lo["player"])
        assert t["test"] == "paired sign-flip permutation" and t["games"] == 2
        assert 0.0 < t["p"] <= 1.0 and t["significant"] == (t["p"] < 0.05)
    text = runner.invoke(
        app,
        ["diplomacy", "tournament", "alliance", "--games", "2", "--last-year", "1901"]
        + ["--out", str(tmp_path / "c.sqlite")],
        env={"COLUMNS": "80"},
    )
    assert text.exit_code == 0 and "permutation test" in text.output
    bad = runner.invoke(app, ["diplomacy", "tournament", "alliance", "--alpha", "2"])
    assert bad.exit_code != 0 and "--alpha" in bad.output
