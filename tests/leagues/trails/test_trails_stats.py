"""Honest intervals in trails: Student t on independent units (the game), n shown."""

from __future__ import annotations

import json
import math

import pytest
from typer.testing import CliRunner

from accord.cli import app
from accord.leagues.trails.analysis import compare
from accord.leagues.trails.tournament import against, beyond, head_to_head, summarize


def _g(cls: str, board: int, agents: list[str], scores: list[int]) -> dict[str, object]:
    return {"cls": cls, "board": board, "agents": agents, "scores": scores,
            "sent": [0, 0], "promised": [0, 0]}  # fmt: skip


GAMES = [
    _g("mutual", 0, ["x", "x"], [10, 30]),  # self-play: one unit, 20
    _g("mutual", 1, ["x", "x"], [40, 40]),  # 40
    _g("mutual", 2, ["x", "x"], [0, 60]),  # 30
    _g("mutual", 0, ["x", "y"], [5, 0]),
    _g("mutual", 0, ["y", "x"], [0, 15]),
]


def test_the_unit_is_the_board_and_self_play_counts_one_score_a_game() -> None:
    s = summarize(GAMES)
    assert s["n"]["x"]["x"] == 3  # three games, not six seats
    assert s["table"]["x"]["x"] == 30.0  # units 20, 40, 30
    # sd of (20, 40, 30) = 10; t with 2 df = 4.302653; 4.302653 * 10 / sqrt(3) = 24.84
    assert s["ci"]["x"]["x"] == 24.84
    # x against y: two games on one board (both seatings share it): one unit, (5 + 15) / 2,
    # so no interval (as games, n = 2 and 63.53 would claim what one board cannot show)
    assert (s["table"]["x"]["y"], s["n"]["x"]["y"], s["ci"]["x"]["y"]) == (10.0, 1, None)
    # by class, x's boards: 0 -> (20 + 5 + 15) / 3, 1 -> 40, 2 -> 30; sd 13.4715, t(2)
    assert s["by_class"]["mutual"]["x"] == 27.78 and s["by_class_n"]["mutual"]["x"] == 3
    assert s["by_class_ci"]["mutual"]["x"] == round(4.302653 * 13.47151 / math.sqrt(3), 2)
    # one unit: no interval (None, JSON null), never 0 or NaN
    assert (s["table"]["y"]["x"], s["ci"]["y"]["x"], s["n"]["y"]["x"]) == (0.0, None, 1)
    one = summarize([_g("mutual", 0, ["a", "b"], [1, 2])])
    assert one["ci"]["a"]["b"] is None and one["n"]["a"]["b"] == 1
    assert "NaN" not in json.dumps(one)


def test_paired_gaps_use_t_and_show_n() -> None:
    games = [
        _g("mutual", 0, ["p", "q"], [10, 0]),
        _g("mutual", 0, ["q", "p"], [0, 30]),  # board 0 gap (10 + 30) / 2 = 20
        _g("mutual", 1, ["p", "q"], [0, 0]),
        _g("mutual", 1, ["q", "p"], [10, 0]),  # board 1 gap (0 - 10) / 2 = -5
        _g("mutual", 2, ["p", "q"], [5, 0]),
        _g("mutual", 2, ["q", "p"], [0, 5]),  # board 2 gap 5
    ]
    h = head_to_head(games, "p", "q")
    # gaps 20, -5, 5: mean 6.67, sd 12.583, t(2) 4.302653 -> 31.26
    assert (h["gap"], h["gap_ci"], h["n"], h["boards"]) == (6.67, 31.26, 3, 3)
    a = against(
        [_g("mutual", 0, ["p", "r"], [30, 0]), _g("mutual", 0, ["q", "r"], [10, 0]),
         _g("mutual", 1, ["p", "r"], [0, 0]), _g("mutual", 1, ["q", "r"], [10, 0])],
        "p", "q", "r",
    )  # fmt: skip
    assert a == {"pairs": 2, "gap": 5.0, "gap_ci": 190.59, "n": 2}  # 12.7062 * 21.2132 / sqrt 2
    assert beyond(5.0, None, above=True) is False and beyond(-1.0, None, above=False) is False
    assert beyond(5.0, 4.9, above=True) and not beyond(5.0, 5.1, above=True)


def test_compare_counts_a_game_once_when_both_seats_are_in_one_group() -> None:
    def row(game: str | None, score: float) -> dict[str, object]:
        return {"population": "people", "agent": "person", "game": game, "score": score,
                "reached": False, "kept": None, "reliability": 1.0}  # fmt: skip

    # a person-vs-person game (both rows "person", game "g1") is one unit: (10 + 50) / 2
    out = compare([row("g1", 10), row("g1", 50), row("g2", 0), row(None, 20)])["people"]
    v = out["person"]
    assert (v["n"], v["games"], v["score"]) == (3, 3, 16.67)  # units 30, 0, 20
    assert v["score_ci95"] == round(4.302653 * 15.27525 / math.sqrt(3), 2)


def test_tournament_text_shows_n_beside_each_interval() -> None:
    r = CliRunner().invoke(
        app, ["trails", "tournament", "--boards", "1", "-a", "purb reliable"],
        env={"COLUMNS": "200"},
    )  # fmt: skip
    assert r.exit_code == 0, r.output
    assert "(n=3)" in r.output  # purb's self-play cell: 3 games, one a board
    assert "(n=6)" not in r.output  # purb against reliable: both seatings on 3 boards
    assert "n boards: a board's games are one unit" in " ".join(r.output.split())


@pytest.mark.parametrize("cmd", [["report", "--boards", "1", "-a", "purb", "-p", "reliable",
                                  "-s", ""]])  # fmt: skip
def test_report_shows_n_and_t_interval(cmd: list[str]) -> None:
    r = CliRunner().invoke(app, ["trails", *cmd, "--json"])
    assert r.exit_code == 0, r.output
    d = json.loads(r.output)["agents-vs-pdas"]
    # reliable: 3 self-play games (one unit each) + nothing else; purb: 6 games vs reliable
    assert d["reliable"]["n"] == 3 and d["purb"]["n"] == 6
