"""Fast-mode HUMAINE tournaments and the agents' command line."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from accord.leagues.humaine.agents.cli import app
from accord.leagues.humaine.agents.tournament import leaderboard, run_tournament, seller_factory


def test_tournament_rows_and_leaderboard() -> None:
    rounds = run_tournament(["strong", "regex"], buyers=["fair", "lowball"], seeds=range(3))
    # 1 pair x 2 buyers x 3 seeds x 2 seats, two rows per round
    assert len(rounds) == 24
    assert set(rounds["seat"]) == {"Celia", "Watson"}
    per_agent_seat = rounds.groupby(["agent", "seat"]).size()
    assert (per_agent_seat == 6).all()
    board = leaderboard(rounds)
    assert list(board["agent"]) == ["strong", "regex"]
    strong = rounds[rounds.agent == "strong"]
    assert board.loc[0, "mean_utility"] == pytest.approx(round(strong["utility"].mean(), 3))
    assert board.loc[0, "rounds"] == 12


def test_same_entry_twice_gets_distinct_labels_and_equal_scores() -> None:
    rounds = run_tournament(["strong", "strong"], buyers=["impatient"], seeds=[0, 1])
    board = leaderboard(rounds).set_index("agent")
    assert set(board.index) == {"strong", "strong#2"}
    assert board.loc["strong", "total_utility"] == pytest.approx(
        board.loc["strong#2", "total_utility"]
    )


def test_process_pool_gives_the_same_rows() -> None:
    serial = run_tournament(["strong", "regex"], buyers=["fair"], seeds=[0, 1])
    pooled = run_tournament(["strong", "regex"], buyers=["fair"], seeds=[0, 1], workers=2)
    pd.testing.assert_frame_equal(serial, pooled)


def test_bad_entries_are_explained() -> None:
    with pytest.raises(ValueError, match="at least two seller entries"):
        run_tournament(["strong"])
    with pytest.raises(ValueError, match="unknown seller 'smart'; expected one of regex, strong"):
        run_tournament(["strong", "smart"])
    with pytest.raises(ValueError, match="unknown buyer strategy 'rich'"):
        run_tournament(["strong", "regex"], buyers=["rich"])
    with pytest.raises(ValueError, match="is not a SellerAgent subclass"):
        seller_factory("pathlib:Path")
    assert seller_factory("accord.leagues.humaine.agents.strong:StrongSeller").kind == "strong"


def test_cli_parse_fast_round_and_tournament(tmp_path: Path) -> None:
    runner = CliRunner()
    out = runner.invoke(app, ["parse", "Watson, a dozen eggs for 5 bucks", "--json"])
    assert out.exit_code == 0, out.output
    assert json.loads(out.output) == {
        "kind": "offer",
        "addressee": "Watson",
        "goods": {"egg": 12},
        "price": 5.0,
        "asks_price": False,
    }
    out = runner.invoke(app, ["fast-round", "--buyer", "impatient", "--seed", "2", "--json"])
    assert out.exit_code == 0, out.output
    result = json.loads(out.output)
    assert result["sellers"]["Celia"]["agent"] == "strong"
    csv = tmp_path / "rounds.csv"
    out = runner.invoke(app, ["tournament", "--seeds", "1", "--buyers", "fair", "--csv", str(csv)])
    assert out.exit_code == 0, out.output
    assert "strong" in out.output and len(pd.read_csv(csv)) == 4
    out = runner.invoke(app, ["tournament", "--agents", "strong,nope"])
    assert out.exit_code != 0 and "unknown seller 'nope'" in out.output


def test_rounds_are_stored_and_a_rerun_resumes(tmp_path: Path) -> None:
    out = tmp_path / "rounds.sqlite"
    seen: list[tuple[int, int]] = []
    first = run_tournament(
        ["strong", "regex"],
        buyers=["fair"],
        seeds=[0, 1],
        out=out,
        progress=lambda d, t: seen.append((d, t)),
    )
    assert seen[0] == (0, 4) and seen[-1] == (4, 4)  # 2 seeds x 2 seats
    with sqlite3.connect(out) as c:
        stored = c.execute("SELECT id, spec FROM tasks ORDER BY idx").fetchall()
    assert [i for i, _ in stored] == [
        "strong|regex|fair|0",
        "regex|strong|fair|0",
        "strong|regex|fair|1",
        "regex|strong|fair|1",
    ]
    assert json.loads(stored[1][1]) == {
        "celia": "regex",
        "watson": "strong",
        "buyer": "fair",
        "seed": 0,
    }
    again = run_tournament(["strong", "regex"], buyers=["fair"], seeds=[0, 1], out=out, workers=2)
    pd.testing.assert_frame_equal(first, again)  # nothing re-run: the stored rows
    fresh = run_tournament(["strong", "regex"], buyers=["fair"], seeds=[0, 1])
    pd.testing.assert_frame_equal(first, fresh)
    with pytest.raises(
        ValueError, match=r"different tournament \(seeds: stored \[0, 1\], now \[0, 1, 2\]"
    ):
        run_tournament(["strong", "regex"], buyers=["fair"], seeds=[0, 1, 2], out=out)
    with pytest.raises(ValueError, match="executor must be one of serial, processes, ray"):
        run_tournament(["strong", "regex"], executor="threads")


@pytest.mark.ray
def test_ray_gives_the_same_rows() -> None:
    ray = pytest.importorskip("ray")
    from accord.tournament.pools import local_ray_options

    ray.init(include_dashboard=False, log_to_driver=False, **local_ray_options(2))
    try:
        on_ray = run_tournament(["strong", "regex"], buyers=["fair"], seeds=[0], executor="ray")
    finally:
        ray.shutdown()
    serial = run_tournament(["strong", "regex"], buyers=["fair"], seeds=[0])
    pd.testing.assert_frame_equal(serial, on_ray)
