"""Analysis: promised vs sent chips, trait trajectories, population comparison, report CLI."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from accord.cli import app
from accord.core.errors import ConfigError
from accord.leagues.trails.analysis import compare, player_rows, rows_from_study_csv, trajectories


def _turn(
    turn: int, proposer: int, give: list[int], take: list[int], sent: list[list[int]]
) -> dict:
    promised = [give, take] if proposer == 0 else [take, give]
    return {
        "turn": turn,
        "proposer": proposer,
        "give": give,
        "take": take,
        "accepted": True,
        "promised": promised,
        "sent": sent,
    }


def test_trajectories_and_rows_by_hand() -> None:
    history = [
        _turn(0, 0, [2, 0], [0, 1], [[2, 0], [0, 0]]),  # 0 keeps 2 of 2; 1 sends 0 of 1
        {
            "turn": 1,
            "proposer": 1,
            "give": None,
            "take": None,
            "accepted": False,
            "promised": [[0, 0], [0, 0]],
            "sent": [[0, 0], [0, 0]],
        },
        _turn(2, 0, [1, 0], [0, 1], [[0, 0], [0, 1]]),  # 0 breaks 1; 1 keeps 1
    ]
    traj = trajectories(history)
    assert traj[1][0]["reliability"] == pytest.approx(0.9 / 1.9)
    assert traj[1][1] == traj[1][0] | {"turn": 1}
    # player 0 after turn 2: sent 0.81 + 1.8 + 0, promised 0.81 + 1.8 + 1
    assert traj[0][2]["reliability"] == pytest.approx((0.81 + 1.8) / (0.81 + 1.8 + 1))
    assert traj[0][2]["helpfulness"] == pytest.approx((0.405 + 0.9 + 0) / (0.81 + 0.9 + 1))
    game = {"agents": ["a", "b"], "scores": [10, -5], "reached": [True, False], "history": history}
    rows = player_rows(game, cls="mutual")
    assert [(r["promised"], r["sent"], r["kept"]) for r in rows] == [(3, 2, 0.667), (2, 1, 0.5)]
    summary = compare(rows + rows)
    assert summary["agents"]["a"] == {
        "games": 2,
        "n": 2,
        "score": 10.0,
        "score_ci95": 0.0,
        "goal_rate": 1.0,
        "kept": 0.667,
        "reliability": round(traj[0][2]["reliability"], 3),
    }


def test_study_csv_must_exist(tmp_path) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ConfigError, match="study CSV"):
        rows_from_study_csv(tmp_path / "missing.csv")


def test_report_cli_json() -> None:
    r = CliRunner().invoke(
        app, ["trails", "report", "--boards", "1", "-p", "reliable unreliable", "-s", "", "--json"]
    )
    assert r.exit_code == 0, r.output
    data = json.loads(r.output)["agents-vs-pdas"]
    assert set(data) == {"purb", "reliable", "unreliable"}
    assert data["reliable"]["kept"] == 1.0 and data["unreliable"]["kept"] == 0.0
