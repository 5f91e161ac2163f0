"""Organisers' own games: spec files checked with the seed's rules, values hidden from the
agent, emotions checked, offers shown to people in words."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from accord.core.errors import InvalidScenario
from accord.leagues.han.domain import (
    EXAMPLE_1,
    EXAMPLE_2,
    GameSpec,
    Offer,
    domain,
    load_game,
    offer_in_words,
)
from accord.leagues.han.isolation import isolated_factory
from accord.leagues.han.participants import Cooperative
from accord.leagues.han.play import play
from accord.leagues.han.tournament import run_tournament

HERE = Path(__file__).parent

GAME: dict[str, Any] = {
    "format": "accord-han-game/1",
    "name": "antiques",
    "issues": [
        {"name": "Clocks", "count": 4, "agent": 3, "person": 1},
        {"name": "Vases", "count": 3, "agent": 1, "person": 5},
        {"name": "Rugs", "count": 2, "agent": 4, "person": 2},
    ],
    "agent_batna": 7,
    "person_batna": 9,
    "total_time": 30,
}


@pytest.fixture(autouse=True)
def _importable(monkeypatch: pytest.MonkeyPatch) -> None:
    """``han_hostile`` importable here and in the agents' processes (they get sys.path)."""
    monkeypatch.syspath_prepend(str(HERE))


def _write(tmp_path: Path, data: dict[str, Any]) -> Path:
    f = tmp_path / "game.json"
    f.write_text(json.dumps(data))
    return f


def test_a_game_file_loads_with_its_values_and_batnas(tmp_path: Path) -> None:
    spec = load_game(_write(tmp_path, GAME))
    assert spec == GameSpec(
        "antiques", ("Clocks", "Vases", "Rugs"), (4, 3, 2), (3, 1, 4), (1, 5, 2), 7, 9, 30.0, 3.0
    )
    assert spec.max_points("agent") == spec.max_points("person") == 23
    assert domain(str(tmp_path / "game.json")) == spec  # any command that takes a game


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"agent_batna": -1}, "BATNAs are not negative; got -1 and 9"),
        ({"person_batna": 2.5}, "BATNAs are whole numbers of points; got 7 and 2.5"),
        (
            {"issues": [{**GAME["issues"][0], "agent": 1.5}, *GAME["issues"][1:]]},
            "issue 'Clocks', agent points: item counts and points per item are whole numbers; "
            "got 1.5",
        ),
        (
            {"issues": [*GAME["issues"][:2], {**GAME["issues"][2], "count": 2.0}]},
            "issue 'Rugs', item count: item counts and points per item are whole numbers; got 2.0",
        ),
        (
            {"issues": [{**GAME["issues"][0], "person": -1}, *GAME["issues"][1:]]},
            "issue 'Clocks', person points: points per item are not negative; got -1",
        ),
        (
            {"issues": [{**GAME["issues"][0], "agent": True}, *GAME["issues"][1:]]},
            "whole numbers; got True",
        ),
        (
            {"issues": [{**GAME["issues"][0], "person": 2}, *GAME["issues"][1:]]},
            "must be equal; agent 23 != person 27",
        ),
        ({"issues": GAME["issues"][:2]}, "a game has 3 to 5 issues; got 2"),
        (
            {"issues": [{**GAME["issues"][0], "count": 20}, *GAME["issues"][1:]]},
            "1 to 19 items",
        ),
        (
            {"issues": [{**GAME["issues"][0], "name": "<b>x</b>"}, *GAME["issues"][1:]]},
            "names are 1 to 40 letters",
        ),
        ({"format": "json"}, "expected \"format\": 'accord-han-game/1'; got 'json'"),
        ({"agent": 3}, "unknown ['agent'], missing []"),
        (
            {"issues": [{"name": "Clocks", "count": 4, "agent": 3}, *GAME["issues"][1:]]},
            "issue 1: expected exactly the keys ['agent', 'count', 'name', 'person']",
        ),
    ],
)
def test_a_wrong_game_file_is_one_clear_error(
    tmp_path: Path, change: dict[str, Any], message: str
) -> None:
    f = _write(tmp_path, {**GAME, **change})
    with pytest.raises(InvalidScenario, match="game.json: ") as err:
        load_game(f)
    assert message in str(err.value)


def test_a_file_that_is_not_json_is_refused(tmp_path: Path) -> None:
    f = tmp_path / "game.json"
    f.write_text("{issues: 3")
    with pytest.raises(InvalidScenario, match="not valid JSON"):
        load_game(f)
    with pytest.raises(InvalidScenario, match="cannot read the game file"):
        load_game(tmp_path / "missing.json")


def test_the_seed_rules_hold_for_specs_made_in_code() -> None:
    with pytest.raises(InvalidScenario, match="whole numbers; got 1.5"):
        GameSpec("g", ("a", "b", "c"), (1, 1, 1), (1.5, 1, 1), (1, 1, 1), 0, 0)  # type: ignore[arg-type]
    with pytest.raises(InvalidScenario, match="BATNAs are not negative"):
        GameSpec("g", ("a", "b", "c"), (1, 1, 1), (1, 1, 1), (1, 1, 1), -4, 0)


def test_offers_are_put_in_words_for_each_side() -> None:
    offer = Offer.of([(2, 0, 3), (5, 0, 0), (0, 5, 0), (1, 0, 4)])
    assert offer_in_words(offer, EXAMPLE_1.issues, "person") == (
        "you get 3 Oil, 4 Lumber; the other side gets 2 Oil, 5 Iron, 1 Lumber; "
        "undecided: 5 Foodstuffs"
    )
    assert offer_in_words(offer.mirrored(), EXAMPLE_1.issues, "agent").startswith(
        "you get 3 Oil, 4 Lumber;"
    )


def test_an_agent_face_outside_the_allowed_set_is_refused() -> None:
    from han_hostile import Smug

    rec = play(EXAMPLE_1.with_time(20.0), Smug, Cooperative)
    faces = [e.emotion for _, e in rec.game.history if e.kind.name == "SEND_EXPRESSION"]
    assert "smug" not in faces and "happy" in faces
    assert any("emotion must be one of" in v.reason for v in rec.result.violations)


def _snooped(rec: Any) -> str:
    (said,) = [e.text for _, e in rec.game.history if e.owner == "agent" and e.text]
    return str(said)


def test_a_plain_process_can_find_a_game_file_which_is_why_competitions_sandbox() -> None:
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        f = _write(Path(tmp), GAME)
        weak = isolated_factory("han_hostile:Snoop", mode="process")  # the weaker mode
        said = _snooped(play(load_game(f), weak, Cooperative))
    assert said.startswith("snoop view=[] found=")  # its view: its own values only
    assert "(1, 5, 2)" not in said  # no copy of the game in its fresh process ...
    assert "file:" in said  # ... but the file on disk is there for the reading


def test_a_competition_on_a_game_file_whose_values_the_agent_cannot_read(
    tmp_path: Path,
) -> None:
    from accord.sandbox import sandbox_available

    if (why := sandbox_available()) is not None:
        pytest.skip(f"the OS sandbox cannot run here: {why}")
    f = _write(tmp_path, GAME)
    res = run_tournament(
        ["han_hostile:Snoop", "fair"], ["cooperative"], n=1, games=[str(f)], sandbox=True
    )
    rows = {g["agent"]: g for g in res["games"]}
    assert {g["game"] for g in res["games"]} == {"antiques"}
    assert rows["fair"]["invalid"] == 0 and rows["han_hostile:Snoop"]["invalid"] == 0
    snoop = isolated_factory("han_hostile:Snoop", mode="os")
    said = _snooped(play(load_game(f), snoop, Cooperative))
    assert said.startswith("snoop view=[] found=")
    assert "(1, 5, 2)" not in said and "[1, 5, 2]" not in said  # the person's points
    assert "file:" not in said and "parent-memory" not in said


def test_the_game_file_in_the_guide_loads(tmp_path: Path) -> None:
    import re

    guide = Path(__file__).resolve().parents[3] / "docs" / "han.md"
    block = re.search(r"```json\n(.*?)```", guide.read_text(), re.S)
    assert block is not None
    spec = load_game(_write(tmp_path, json.loads(block.group(1))))
    assert (spec.name, spec.max_points("agent"), spec.total_time) == ("antiques", 23, 120.0)


def test_han_play_sandboxes_a_submitted_agent_by_default(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # `accord han play` on an organiser's game file: a pkg.module:Class agent runs in the OS
    # sandbox unless told otherwise (before: always in the organiser's process, where it
    # found the game in memory)
    from typer.testing import CliRunner

    from accord.cli import app
    from accord.sandbox import sandbox_available

    f = str(_write(tmp_path, GAME))
    monkeypatch.chdir(tmp_path)  # where the snoop searches for files: kept small
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    args = ["han", "play", "han_hostile:Snoop", "cooperative", "--game", f, "--time", "20"]
    runner = CliRunner()
    trusted = runner.invoke(app, [*args, "--sandbox", "none"])
    assert trusted.exit_code == 0, trusted.output
    assert "spec:(1, 5, 2)" in trusted.output.replace("\n", "")  # in this process: found
    # the weaker choice says what it gives up
    note = "note: han_hostile:Snoop runs in this process (--sandbox none): it can read the game"
    assert note in " ".join(trusted.output.split())
    if (why := sandbox_available()) is not None:
        pytest.skip(f"the OS sandbox cannot run here: {why}")
    res = runner.invoke(app, args)
    assert res.exit_code == 0, res.output
    out = res.output.replace("\n", "")
    assert "sandbox: os (the agent in a fresh bubblewrap sandbox)" in out
    assert "snoop view=[] found=" in out
    assert "(1, 5, 2)" not in out and "file:" not in out
    smug = runner.invoke(app, ["han", "play", "han_hostile:Smug", "cooperative", "--time", "5"])
    assert "violation: AgentError: han_hostile:Smug sent an invalid event: SEND_EXPRESSION: " in (
        " ".join(smug.output.split())
    )


def test_a_game_file_may_name_one_item_so_people_read_1_rug_not_1_rugs(tmp_path: Path) -> None:
    issues = [{**GAME["issues"][0], "one": "Clock"}, *GAME["issues"][1:]]
    spec = load_game(_write(tmp_path, {**GAME, "issues": issues}))
    assert spec.singular == ("Clock", "Vases", "Rugs")  # an issue without "one": its name
    offer = Offer.of([(1, 0, 3), (2, 0, 1), (1, 0, 1)])
    assert offer_in_words(offer, spec.issues, "person", spec.singular) == (
        "you get 3 Clocks, 1 Vases, 1 Rugs; the other side gets 1 Clock, 2 Vases, 1 Rugs"
    )
    assert spec.with_time(60.0).singular == spec.singular
    assert offer_in_words(Offer.of([(6, 0, 0), (0, 0, 6), (1, 0, 0)]), EXAMPLE_2.issues,
                          "agent", EXAMPLE_2.singular).endswith("gets 6 Paintings")  # fmt: skip
    mixed = Offer.of([(5, 0, 1), (0, 0, 6), (1, 0, 0)])
    assert offer_in_words(mixed, EXAMPLE_2.issues, "person", EXAMPLE_2.singular) == (
        "you get 1 Luxury car, 6 Paintings; the other side gets 5 Luxury cars, 1 Mansion"
    )
    bad = [{**GAME["issues"][0], "one": "<b>"}, *GAME["issues"][1:]]
    with pytest.raises(InvalidScenario, match="names are 1 to 40 letters"):
        load_game(_write(tmp_path, {**GAME, "issues": bad}))
    with pytest.raises(InvalidScenario, match="one singular name per issue"):
        GameSpec("g", ("a", "b", "c"), (1, 1, 1), (1, 1, 1), (1, 1, 1), 0, 0, singular=("x",))
