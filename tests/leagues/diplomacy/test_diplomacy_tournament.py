"""The ANAC 2017 tournament in full: unique seats, group winners, the final, default."""

from __future__ import annotations

import json
from typing import Any

import pytest
from typer.testing import CliRunner

pytest.importorskip(
    "diplomacy", reason="needs the optional AGPL engine: pip install '.[diplomacy]'"
)

from accord.cli import app  # noqa: E402
from accord.leagues.diplomacy.deals import POWERS  # noqa: E402
from accord.leagues.diplomacy.tournament import (  # noqa: E402
    final_jobs,
    group_winners,
    make_jobs,
    run_tournament,
    seat_names,
)

runner = CliRunner()


def test_seat_names_are_unique_across_groups() -> None:
    groups = seat_names(["alliance"] * 9 + ["random-deals"])
    seats = [s for g in groups for s in g]
    assert len(groups) == 2 and len(seats) == len(set(seats)) == 14
    assert groups[1][:3] == ["alliance#7", "alliance#8", "random-deals"]
    assert groups[1][3:] == ["none#1.3", "none#1.4", "none#1.5", "none#1.6"]


def _rec(centres: dict[str, int]) -> dict[str, Any]:
    from accord.leagues.diplomacy.scoring import game_points

    survivors = [p for p, n in centres.items() if n]
    return {"centres": centres, "survivors": survivors, "points": game_points(centres)}


def test_group_winner_is_best_on_points_then_total_centres() -> None:
    jobs = make_jobs(["a:A", "b:B"], games=2, seed=0)
    seats = [dict(j[1]["seats"]) for j in jobs]
    # both games: 7 survivors (1 point each); b:B has more centres in total
    recs = {}
    for (jid, _spec), seating in zip(jobs, seats, strict=True):
        by_seat = {"a:A": 5, "b:B": 6}
        centres = {p: by_seat.get(s, 3) for p, s in seating.items()}
        recs[jid] = _rec(centres)
    assert group_winners(recs, jobs) == ["b:B"]


def test_two_groups_send_their_best_to_a_final() -> None:
    players = ["alliance"] * 4 + ["random-deals"] * 4
    recs = run_tournament(players, 1, seed=2, last_year=1901, candidates=1, ticks=1)
    assert sorted(recs) == ["final-0", "g0-0", "g1-0"]
    jobs = make_jobs(players, 1, seed=2, last_year=1901, candidates=1, ticks=1)
    winners = group_winners(recs, jobs)
    assert len(winners) == 2 and len(set(winners)) == 2
    fj = final_jobs(winners, 1, seed=2)
    assert sorted(s for s in fj[0][1]["seats"].values() if not s.startswith("none")) == sorted(
        winners
    )
    assert set(fj[0][1]["seats"]) == set(POWERS)


def test_tournament_without_players_runs_the_documented_default() -> None:
    res = runner.invoke(
        app, ["diplomacy", "tournament", "--games", "1", "--last-year", "1901", "--json"]
    )
    assert res.exit_code == 0, res.output
    rows = json.loads(res.output)
    names = sorted(r["player"] for r in rows)
    assert names == [
        "alliance#0", "alliance#1", "none#0.4", "none#0.5", "none#0.6",
        "random-deals#2", "random-deals#3",
    ]  # fmt: skip
    assert [r["rank"] for r in rows] == list(range(1, 8))
    pts = [(r["points"], r["centres"]) for r in rows]
    assert pts == sorted(pts, reverse=True)  # points, ties broken on total centres


def test_cli_ranks_the_final_first_and_each_group() -> None:
    players = ["alliance"] * 4 + ["random-deals"] * 4
    res = runner.invoke(
        app,
        ["diplomacy", "tournament", *players, "--games", "1", "--last-year", "1901", "--json"],
    )
    assert res.exit_code == 0, res.output
    rows = json.loads(res.output)
    stages = [r["stage"] for r in rows]
    assert stages == ["final"] * 7 + ["group 0"] * 7 + ["group 1"] * 7
    finalists = {r["player"] for r in rows if r["stage"] == "final"} - {
        f"none#f.{i}" for i in range(7)
    }
    winners = [
        next(r["player"] for r in rows if r["stage"] == g and not r["player"].startswith("none"))
        for g in ("group 0", "group 1")
    ]
    assert finalists == set(winners)
