"""Review findings: bad command-line input is a one-line error, before any game is played."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from accord.cli import app
from accord.core.errors import ConfigError
from accord.leagues.trails.tournament import run_tournament


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["play", "--board", "-1"], "a board seed is 0 or more; got -1"),
        (["play", "--seed", "-1"], "the agents' seed is 0 or more; got -1"),
        (["tournament", "--seed", "-1"], "the seed of the boards must be 0 or more; got -1"),
        (["tournament", "--boards", "0"], "boards per dependency class must be at least 1; got 0"),
        (["tournament", "--boards", "1", "-a", "purb purb"], "agent 'purb' is named twice"),
    ],
)
def test_bad_numbers_and_names_are_one_line_errors(args: list[str], said: str) -> None:
    r = CliRunner().invoke(app, ["trails", *args], env={"COLUMNS": "200"})
    assert r.exit_code == 2, r.output
    assert said in r.output and "Traceback" not in r.output


def test_a_bad_tournament_makes_no_results_file(tmp_path: Path) -> None:
    out = tmp_path / "t.sqlite"
    with pytest.raises(ConfigError, match="at least 1"):
        run_tournament(["purb"], boards=-2, out=out)
    assert not out.exists()


def _row(agent: str, score: int, promised: int = 0, sent: int = 0) -> dict[str, object]:
    return {
        "population": "p", "agent": agent, "partner": "x", "cls": "mutual", "score": score,
        "reached": False, "promised": promised, "sent": sent,
        "kept": round(sent / promised, 3) if promised else None, "reliability": 1.0,
    }  # fmt: skip


def test_compare_gives_the_score_interval_and_null_not_nan() -> None:
    import json

    from accord.leagues.trails.analysis import compare

    out = compare([_row("a", 10), _row("a", 20), _row("a", 30)])["p"]["a"]
    assert out["games"] == out["n"] == 3 and out["score"] == 20.0
    assert out["score_ci95"] == 24.84  # t with 2 df (4.30265) * sd 10 / sqrt(3)
    assert out["kept"] is None  # nobody promised: JSON null, never NaN
    one = compare([_row("a", 10)])
    assert "NaN" not in json.dumps(one) and one["p"]["a"]["score_ci95"] is None


@pytest.mark.parametrize("text", ["root:x:0:0:root:/root:/bin/bash\n", "a,b\n1,2\n"])
def test_a_file_that_is_not_a_study_export_is_refused_before_any_game(
    tmp_path: Path, text: str
) -> None:
    from accord.leagues.trails.analysis import population_report

    p = tmp_path / "events.csv"
    p.write_text(text)
    with pytest.raises(ConfigError, match="columns kind and data"):
        population_report(["no-such-agent"], ["reliable"], [], study=p, boards=1)


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--seed", "-1"], "the seed of the boards is 0 or more; got -1"),
        (["--opponent", ""], "at least one opponent"),
        (["-o", "purb", "-o", "purb"], "opponent 'purb' is named twice"),
    ],
)
def test_serve_refuses_bad_input_in_one_line(tmp_path: Path, args: list[str], said: str) -> None:
    folder = tmp_path / "study"
    r = CliRunner().invoke(
        app, ["trails", "serve", "--folder", str(folder), "--port", "0", *args],
        env={"COLUMNS": "200"},
    )  # fmt: skip
    assert r.exit_code == 2, r.output
    assert said in r.output and "Traceback" not in r.output
    assert not folder.exists()


def test_serve_on_a_taken_port_fails_before_the_study_is_made(tmp_path: Path) -> None:
    from accord.web.runner import bound_socket

    folder = tmp_path / "study"
    with bound_socket() as taken:
        taken.listen()
        port = taken.getsockname()[1]
        r = CliRunner().invoke(
            app, ["trails", "serve", "--folder", str(folder), "--port", str(port)],
            env={"COLUMNS": "200"},
        )  # fmt: skip
    assert r.exit_code == 2
    assert f"cannot listen on 127.0.0.1:{port}" in r.output
    assert not folder.exists()


def test_the_printed_server_address_leads_to_the_experimenters_page(tmp_path: Path) -> None:
    import httpx

    from accord.leagues.trails.server import create_trails_app, trails_design
    from accord.web.testing import ServerThread

    app_, _ = create_trails_app(tmp_path / "s", trails_design(["purb"]), password="pw-123456")
    with ServerThread(app_) as srv:
        r = httpx.get(srv.url + "/", follow_redirects=True, timeout=10)
        assert r.status_code == 200 and str(r.url).endswith("/study/admin.html")
        assert httpx.get(srv.url + "/trails/play.html", timeout=10).status_code == 200


def _junk(tmp_path: Path) -> Path:
    p = tmp_path / "junk.sqlite"
    p.write_text("this is not a database\n")
    return p


def test_a_results_file_that_is_not_sqlite_is_a_one_line_error(tmp_path: Path) -> None:
    junk = _junk(tmp_path)
    r = CliRunner().invoke(
        app, ["trails", "tournament", "--boards", "1", "-a", "purb", "--out", str(junk)],
        env={"COLUMNS": "200"},
    )  # fmt: skip
    assert r.exit_code == 2
    assert "expected an Accord SQLite file" in r.output and "Traceback" not in r.output


def test_a_study_folder_that_is_a_file_or_holds_junk_is_a_one_line_error(tmp_path: Path) -> None:
    junk = _junk(tmp_path)
    r = CliRunner().invoke(
        app, ["trails", "serve", "--folder", str(junk), "--port", "0"], env={"COLUMNS": "200"}
    )
    assert r.exit_code == 2 and "is a file" in r.output
    folder = tmp_path / "f"
    folder.mkdir()
    (folder / "study.sqlite").write_text("junk\n")
    r = CliRunner().invoke(
        app, ["trails", "serve", "--folder", str(folder), "--port", "0"], env={"COLUMNS": "200"}
    )
    assert r.exit_code == 2 and "expected a study folder" in r.output


def test_tournament_json_says_how_many_games_are_behind_each_mean() -> None:
    import json

    r = CliRunner().invoke(
        app, ["trails", "tournament", "--boards", "1", "-a", "purb reliable", "--json"]
    )
    assert r.exit_code == 0, r.output
    d = json.loads(r.output)
    assert d["games"] == 3 * 4  # 3 classes x 1 board x 4 ordered pairs
    assert d["n"]["purb"]["reliable"] == 3  # one unit a board: both seatings on it
    assert d["n"]["purb"]["purb"] == 3  # self-play: one unit a game (both seats' mean)
    assert d["by_class_n"]["mutual"]["purb"] == 1  # 2 games against reliable, 1 self-play
    # the 6 games differ (their class means do), so the half-width is positive and finite
    # (the ">= 0" it replaces was always true)
    pair = [d["by_class_pair"][c]["purb"]["reliable"] for c in d["by_class_pair"]]
    assert len(set(pair)) > 1
    assert 0.0 < d["ci"]["purb"]["reliable"] < float("inf")


def test_play_counts_turns_from_one_as_the_docs_and_the_page_do() -> None:
    import json

    args = ["trails", "play", "-a", "purb reliable", "--board", "3"]
    data = json.loads(CliRunner().invoke(app, [*args, "--json"]).output)
    r = CliRunner().invoke(app, args, env={"COLUMNS": "200"})
    rows = [ln for ln in r.output.splitlines() if ln.startswith("│")]
    assert [ln.split("│")[1].strip() for ln in rows] == [str(k + 1) for k in range(data["turns"])]
    n = data["turns"]
    assert f"after {n} turn{'' if n == 1 else 's'};" in r.output


def test_a_study_can_hide_the_other_players_chips(tmp_path: Path) -> None:
    import httpx

    from accord.leagues.trails.server import create_trails_app, trails_design
    from accord.web.testing import ServerThread

    with pytest.raises(ConfigError, match="visibility must be one of"):
        trails_design(["purb"], visibility="some")
    design = trails_design(["purb"], visibility="own")
    app_, study = create_trails_app(tmp_path / "s", design, password="pw-123456")
    with ServerThread(app_) as srv:
        (inv,) = study.invite(1)
        c = httpx.Client(base_url=srv.url, timeout=10)
        assert c.post(inv.path).status_code == 303
        c.post("/api/participant/consent", json={"agree": True, "version": "1"})
        s = c.get("/api/trails/state").json()
        assert s["chips"][0] is not None and s["chips"][1] is None
    # the setting survives a restart: the game's rules are stored with it
    app2, _ = create_trails_app(tmp_path / "s", design, password="pw-123456")
    assert next(iter(app2.state.trails.matches.values())).game.rules.visibility == "own"


def test_serve_refuses_an_unknown_visibility(tmp_path: Path) -> None:
    folder = tmp_path / "study"
    r = CliRunner().invoke(
        app, ["trails", "serve", "--folder", str(folder), "--port", "0", "--visibility", "x"],
        env={"COLUMNS": "200"},
    )  # fmt: skip
    assert r.exit_code == 2 and "visibility must be one of" in r.output
    assert not folder.exists()


def test_play_takes_the_rules_from_the_command_line() -> None:
    import json

    from accord.leagues.trails.board import Settings
    from accord.leagues.trails.generator import generate
    from accord.leagues.trails.match import play

    base = ["trails", "play", "-a", "purb reliable", "--board", "3", "--json"]
    rules = Settings(goal_bonus=50, chip_bonus=1, distance_penalty=7, dormant_limit=2, max_turns=50)
    want = play(generate("mutual", 3), ["purb", "reliable"], rules=rules)
    args = ["--goal-bonus", "50", "--chip-bonus", "1", "--distance-penalty", "7"]
    r = CliRunner().invoke(app, [*base, *args, "--dormant-limit", "2"])
    assert r.exit_code == 0, r.output
    got = json.loads(r.output)
    assert (got["scores"], got["end"], got["turns"]) == (want["scores"], want["end"], want["turns"])
    bad = CliRunner().invoke(app, [*base, "--dormant-limit", "0"], env={"COLUMNS": "200"})
    assert bad.exit_code == 2 and "dormant_limit must be >= 1; got 0" in bad.output


def test_a_win_inside_the_interval_is_not_claimed_beyond_it() -> None:
    from accord.leagues.trails.tournament import summarize

    def g(board: int, seat: int, me: str, score: int) -> dict[str, object]:
        agents = [me, "reliable"] if seat == 0 else ["reliable", me]
        scores = [score, 0] if seat == 0 else [0, score]
        return {"cls": "mutual", "board": board, "agents": agents, "scores": scores,
                "sent": [0, 0], "promised": [0, 0]}  # fmt: skip

    # purb - unreliable against reliable, paired by board and seat: +30, -10 (mean +10)
    games = [g(0, 0, "purb", 50), g(0, 0, "unreliable", 20),
             g(1, 0, "purb", 10), g(1, 0, "unreliable", 20)]  # fmt: skip
    games += [{"cls": "mutual", "board": 0, "agents": ["purb", "unreliable"], "scores": [0, 0],
               "sent": [0, 0], "promised": [0, 0]}]  # fmt: skip
    c = summarize(games)["checks"]
    # gaps +30, -10: sd 28.284; t with 1 df (12.7062) * 28.284 / sqrt(2) = 254.12
    assert c["vs_reliable"]["paired"] == {"pairs": 2, "gap": 10.0, "gap_ci": 254.12, "n": 2}
    assert c["purb_beats_unreliable_vs_reliable"] is True  # the means
    assert c["purb_beats_unreliable_vs_reliable_beyond_ci"] is False  # 10 - 254.12 < 0
