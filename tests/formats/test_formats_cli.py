"""``accord scenarios list|show|convert`` through typer's test runner (a real CLI run)."""

from __future__ import annotations

import json
from pathlib import Path

from formats_data import shared_folder
from typer.testing import CliRunner

from accord.formats import load_scenario
from accord.formats.cli import app

runner = CliRunner()


def test_list_shows_every_bundled_scenario() -> None:
    result = runner.invoke(app, ["list"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    for name in ["lunch", "job_offer", "car_purchase", "supply_contract", "holiday", "meeting"]:
        assert name in result.output
    assert "1,000,000" in result.output


def test_list_dir_lists_loadable_folders() -> None:
    folder = shared_folder("geniusweb", "Party").parent
    result = runner.invoke(app, ["list", "--dir", str(folder)], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert "JapanTrip" in result.output and "geniusweb" in result.output


def test_show_lunch() -> None:
    result = runner.invoke(app, ["show", "lunch"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert "lunch: 2 parties, 2 issues, 4 outcomes" in result.output
    assert "Hamburger, Pizza" in result.output
    assert "0.350 .. 1.000" in result.output


def test_show_json_is_the_native_file() -> None:
    result = runner.invoke(app, ["show", "meeting", "--json"])
    assert result.exit_code == 0
    data = json.loads(result.output)
    assert data["format"] == "accord.scenario" and len(data["profiles"]) == 4


def test_show_unknown_fails_with_a_hint() -> None:
    result = runner.invoke(app, ["show", "lnch"])
    assert result.exit_code == 1
    assert "did you mean 'lunch'?" in result.output


def test_convert_genius_folder_to_native_and_back(tmp_path: Path) -> None:
    src = shared_folder("genius", "anac2013_DefensiveCharms")
    out = tmp_path / "charms.json"
    result = runner.invoke(app, ["convert", str(src), str(out), "--to", "native"])
    assert result.exit_code == 0, result.output
    native = load_scenario(out)
    assert native.name == "anac2013_DefensiveCharms"
    result = runner.invoke(app, ["convert", str(out), str(tmp_path / "g"), "--to", "genius"])
    assert result.exit_code == 0, result.output
    again = load_scenario(tmp_path / "g")
    o = ("Salvio Hexia", "Protego Duo", "Colloportus")
    assert abs(again.utilities[0](o) - 0.53) <= 1e-12


def test_convert_refuses_unknown_target(tmp_path: Path) -> None:
    result = runner.invoke(app, ["convert", "lunch", str(tmp_path / "x"), "--to", "xml"])
    assert result.exit_code == 1
    assert "--to must be native or genius" in result.output
