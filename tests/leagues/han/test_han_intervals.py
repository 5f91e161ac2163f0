"""Honest intervals: Student t on independent units with n shown (a game for an agent,
a pair for person-vs-person), exact on small hand-made data; n in the CLI and JSON."""

from __future__ import annotations

import json
import math

from typer.testing import CliRunner

from accord.cli import app
from accord.leagues.han.pairs import PAIRS
from accord.leagues.han.server import results_table
from accord.leagues.han.summary import interval_fields
from accord.leagues.han.tournament import summarize
from accord.web.study import Condition

T2 = 4.302652729749462  # the two-sided 95 % t quantile with 2 degrees of freedom


def _half(sd: float, n: int = 3) -> float:
    return round(T2 * sd / math.sqrt(n), 3)


def test_interval_fields_use_t_with_n_minus_one_degrees_and_show_n() -> None:
    assert interval_fields("x", [20.0, 30.0, 40.0]) == {"x": 30.0, "x_ci95": 24.841, "x_n": 3}
    assert _half(10.0) == 24.841  # sd 10, n 3: 4.3027 * 10 / sqrt 3
    assert interval_fields("x", [5.0]) == {"x": 5.0, "x_ci95": None, "x_n": 1}
    assert interval_fields("x", []) == {"x": None, "x_ci95": None, "x_n": 0}


def _agent_row(points: int, like: float, passed: int = 1) -> dict[str, object]:
    return {"condition": "fair", "agent1": "fair", "vhPoints": points, "userPoints": 0,
            "likeability": like, "attentionPassed": passed}  # fmt: skip


def _pair_row(pair: str, mine: int, theirs: int, like: float) -> dict[str, object]:
    return {"condition": "pairs", "agent1": "person", "pairId": pair, "userPoints": mine,
            "vhPoints": theirs, "likeability": like, "attentionPassed": 1}  # fmt: skip


def test_results_count_a_game_per_agent_and_a_pair_per_pair() -> None:
    rows = [
        _agent_row(20, 5.0), _agent_row(30, 6.0), _agent_row(40, 7.0),
        _agent_row(99, 1.0, passed=0),  # failed the attention check: not counted
        _pair_row("p1", 30, 5, 5.0), _pair_row("p1", 5, 30, 6.0),  # joint 35, liked 5.5
        _pair_row("p2", 20, 20, 4.0), _pair_row("p2", 20, 20, 2.0),  # joint 40, liked 3
        _pair_row("p3", 10, 15, 7.0),  # the partner left without a survey: joint 25, liked 7
    ]  # fmt: skip
    conds = [
        Condition(name="fair", params={"agent": "fair"}),
        Condition(name="pairs", params=dict(PAIRS)),
    ]
    agent, pairs = results_table(conds, rows)
    assert agent == {
        "agent": "fair", "games": 3, "played": 4, "unsurveyed": 0,
        "points": 30.0, "points_ci95": _half(10.0), "points_n": 3,  # 20, 30, 40
        "likeability": 6.0, "likeability_ci95": _half(1.0), "likeability_n": 3,  # 5, 6, 7
    }  # fmt: skip
    # pairs: joint 35, 40, 25 (mean 33.333, sd 7.6376); per person 17.5, 20, 12.5
    # (sd 3.8188); liked 5.5, 3, 7 (mean 5.1667, sd 2.0207): n is 3 pairs, not 5 people
    assert pairs == {
        "agent": "pairs", "games": 5, "pairs": 3, "played": 5, "unsurveyed": 0,
        "points": 16.667, "points_ci95": 9.486, "points_n": 3,
        "joint_points": 33.333, "joint_points_ci95": 18.973, "joint_points_n": 3,
        "likeability": 5.167, "likeability_ci95": 5.02, "likeability_n": 3,
    }  # fmt: skip
    assert (_half(3.8188130791298667), _half(7.637626158259733), _half(2.0207259421636903)) == (
        9.486, 18.973, 5.02,
    )  # fmt: skip


def test_tournament_summary_has_t_intervals_over_games_with_n() -> None:
    recs = [
        {"agent": "a", "points": p, "person_points": q, "likeability": lk, "outcome": o,
         "lies": 0}
        for p, q, lk, o in ((20, 10, 5.0, "deal"), (30, 10, 6.0, "deal"), (40, 10, 7.0, "timeout"))
    ]  # fmt: skip
    recs.append({"agent": "b", "points": 8, "person_points": 9, "likeability": 4.0,
                 "outcome": "deal", "lies": 2})  # fmt: skip
    a, b = summarize(recs)
    assert a == {
        "agent": "a", "games": 3,
        "points": 30.0, "points_ci95": 24.841, "points_n": 3,
        "person_points": 10.0, "person_points_ci95": 0.0, "person_points_n": 3,
        "deals": 2, "likeability": 6.0, "likeability_ci95": 2.484, "likeability_n": 3, "lies": 0,
    }  # fmt: skip
    assert (b["points"], b["points_ci95"], b["points_n"], b["lies"]) == (8.0, None, 1, 2)


def test_cli_tournament_shows_n_beside_each_interval() -> None:
    args = ["han", "tournament", "fair", "--participants", "cooperative,greedy",
            "--games", "example-1"]  # fmt: skip
    r = CliRunner().invoke(app, [*args, "--json"], env={"COLUMNS": "80"})
    assert r.exit_code == 0, r.output
    (row,) = json.loads(r.output)["agents"]
    assert row["points_n"] == row["person_points_n"] == row["likeability_n"] == 2
    r = CliRunner().invoke(app, args, env={"COLUMNS": "80"})
    assert r.exit_code == 0, r.output
    assert r.output.count("(n=2)") == 3 and "95 % t interval" in r.output
