"""Review findings: bad command-line input is refused before any game is played."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from accord.cli import app
from accord.core.errors import AccordError, ConfigError
from accord.leagues.han.api import HanAgent
from accord.leagues.han.events import Event
from accord.leagues.han.tournament import run_tournament


@pytest.mark.parametrize("n", [0, -2])
def test_a_tournament_of_no_games_is_refused(n: int) -> None:
    with pytest.raises(ConfigError, match=f"at least 1.*got {n}"):
        run_tournament(["fair"], ["cooperative"], n=n, games=["example-1"])


def test_an_agent_named_twice_is_refused_in_the_users_words() -> None:
    with pytest.raises(ConfigError, match="agent 'fair' is named twice"):
        run_tournament(["fair", "fair"], ["cooperative"], games=["example-1"])


def test_an_unknown_game_is_refused_before_the_results_file_is_made(tmp_path: Path) -> None:
    out = tmp_path / "t.sqlite"
    with pytest.raises(AccordError, match="example-7"):
        run_tournament(["fair"], ["cooperative"], games=["example-7"], out=out)
    assert not out.exists()


def test_cli_tournament_zero_games_is_a_one_line_error() -> None:
    r = CliRunner().invoke(app, ["han", "tournament", "fair", "--n", "0"])
    assert r.exit_code == 2
    assert "at least 1" in r.output and "Traceback" not in r.output


def test_cli_play_refuses_a_zero_time_limit() -> None:
    r = CliRunner().invoke(app, ["han", "play", "fair", "cooperative", "--time", "0"])
    assert r.exit_code == 2
    assert "time must be positive" in r.output


def test_tournament_points_have_an_interval() -> None:
    r = CliRunner().invoke(
        app, ["han", "tournament", "fair", "--games", "example-1", "--n", "2", "--json"]
    )
    assert r.exit_code == 0, r.output
    row = json.loads(r.output)["agents"][0]
    assert row["games"] == 8
    # an interval that can fail: these games do not all end with the same points, so each
    # half-width is positive and finite (the ">= 0" it replaces was always true); of the 8,
    # two pairs came out identical (against cooperative and impatient: the seed changed
    # nothing), and identical runs are one observation: n = 6
    for key in ("points", "person_points"):
        assert row[f"{key}_n"] == 6
        assert 0.0 < row[f"{key}_ci95"] < float("inf"), (key, row)


@pytest.mark.parametrize("count", ["0", "-3"])
def test_serve_refuses_no_links(tmp_path: Path, count: str) -> None:
    db = tmp_path / "s.sqlite"
    r = CliRunner().invoke(
        app, ["han", "serve", "--participants", count, "--db", str(db), "--port", "0"]
    )
    assert r.exit_code == 2
    assert f"--participants must be at least 1; got {count}" in r.output
    assert not db.exists()


def test_serve_on_a_taken_port_fails_before_the_study_is_made(tmp_path: Path) -> None:
    from accord.web.runner import bound_socket

    db = tmp_path / "s.sqlite"
    with bound_socket() as taken:
        taken.listen()
        port = taken.getsockname()[1]
        r = CliRunner().invoke(app, ["han", "serve", "--db", str(db), "--port", str(port)])
    assert r.exit_code == 2
    assert f"cannot listen on 127.0.0.1:{port}" in r.output and "Traceback" not in r.output
    assert not db.exists()


@pytest.mark.parametrize("bad", [5.5, "5", True, None])
def test_an_offer_count_that_is_not_a_whole_number_is_refused_not_rounded(bad: object) -> None:
    from accord.leagues.han.events import InvalidEvent, event_from_json

    raw = {"kind": "SEND_OFFER", "offer": [[0, 0, bad], [0, 5, 0], [0, 5, 0], [0, 5, 0]]}
    with pytest.raises(InvalidEvent, match="SEND_OFFER: an offer is a list of"):
        event_from_json(raw, "person")


def test_whole_counts_of_any_integer_type_are_accepted() -> None:
    import numpy as np

    from accord.leagues.han.domain import Offer

    assert Offer.of([[np.int64(2), 1.0, 2]]).rows == ((2, 1, 2),)


class _NoOnEvent(HanAgent):  # forgot on_event: abstract
    name = "no-on-event"


class _RaisesInInit(HanAgent):
    name = "raises"

    def __init__(self) -> None:
        raise ValueError("no model file")

    def on_event(self, event: Event) -> list[Event]:
        return []


@pytest.mark.parametrize(
    ("cls", "said"),
    [
        (_NoOnEvent, "cannot build agent _NoOnEvent: TypeError: Can't instantiate abstract class"),
        (_RaisesInInit, "cannot build agent _RaisesInInit: ValueError: no model file"),
    ],
)
def test_an_agent_that_cannot_be_built_is_a_clear_error(cls: type[HanAgent], said: str) -> None:
    from accord.leagues.han.domain import EXAMPLE_1
    from accord.leagues.han.participants import Cooperative
    from accord.leagues.han.play import play

    with pytest.raises(ConfigError) as info:
        play(EXAMPLE_1, cls, Cooperative)
    assert said in str(info.value)


@pytest.mark.parametrize("command", ["tournament", "serve"])
def test_a_file_that_is_not_sqlite_is_a_one_line_error(tmp_path: Path, command: str) -> None:
    junk = tmp_path / "junk.sqlite"
    junk.write_text("this is not a database\n")
    args = (
        ["tournament", "fair", "--games", "example-1", "--out", str(junk)]
        if command == "tournament"
        else ["serve", "--db", str(junk), "--port", "0"]
    )
    r = CliRunner().invoke(app, ["han", *args], env={"COLUMNS": "200"})
    assert r.exit_code == 2
    assert "expected an Accord SQLite file" in r.output and "Traceback" not in r.output


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--agents", "fair,fair"], "agent 'fair' is named twice"),
        (["--game", ""], "a HAN study needs at least one game"),
    ],
)
def test_serve_refuses_a_bad_design_before_making_the_file(
    tmp_path: Path, args: list[str], said: str
) -> None:
    db = tmp_path / "s.sqlite"
    r = CliRunner().invoke(
        app, ["han", "serve", "--db", str(db), "--port", "0", *args], env={"COLUMNS": "200"}
    )
    assert r.exit_code == 2 and said in r.output and "Traceback" not in r.output
    assert not db.exists()


def test_games_csv_carries_the_demographic_form(tmp_path: Path) -> None:
    import csv
    import io
    import time

    import httpx

    from accord.leagues.han.server import DEMOGRAPHIC_COLUMNS, create_han_app
    from accord.web.testing import ServerThread

    app_, study, _ = create_han_app(
        tmp_path / "h.sqlite", ["tough"], time_limit=1.5, password="secret-pw"
    )
    with ServerThread(app_) as srv:
        (inv,) = study.invite(1)
        p = httpx.Client(base_url=srv.url, timeout=10)
        assert p.post(inv.path).status_code == 303
        p.post("/api/participant/consent", json={"agree": True, "version": "1"})
        for _ in range(60):  # the clock runs out
            if "result" in p.get("/api/han/state").json():
                break
            time.sleep(0.1)
        survey = {
            "answers": {
                "use_again": 3, "not_recommend": 5, "use_frequently": 2,
                "liked_partner": 1, "trusted_partner": 2,
            },
            "age": 41, "gender": "non-binary", "english_first": False, "attention": "agree",
        }  # fmt: skip
        assert p.post("/api/han/survey", json=survey).status_code == 200
        admin = httpx.Client(base_url=srv.url, timeout=10)
        admin.post("/api/login", json={"username": "experimenter", "password": "secret-pw"})
        (row,) = csv.DictReader(io.StringIO(admin.get("/api/han/games.csv").text))
    assert DEMOGRAPHIC_COLUMNS == ("age", "gender", "english_first")
    assert (row["age"], row["gender"], row["english_first"]) == ("41", "non-binary", "0")
    assert row["timedout"] == "1" and row["liked_partner"] == "1"
