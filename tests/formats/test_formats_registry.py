"""``load_scenario`` tells the formats apart: GENIUS, GeniusWeb, native file or folder, name."""

from __future__ import annotations

from pathlib import Path

import pytest
from formats_data import shared_folder

from accord.core.errors import FormatError
from accord.formats import detect_format, load_scenario, save_scenario


def test_detects_each_format(tmp_path: Path) -> None:
    assert detect_format(shared_folder("genius", "y2013_Kitchen")) == "genius"
    assert detect_format(shared_folder("geniusweb", "JapanTrip")) == "geniusweb"
    path = save_scenario(load_scenario("holiday"), tmp_path)
    assert path == tmp_path / "holiday.json"
    assert detect_format(path) == "native"
    assert detect_format(tmp_path) == "native"
    assert load_scenario(tmp_path).profile_names == ("alex", "billie", "casey")


def test_a_single_geniusweb_file_points_to_its_folder() -> None:
    profile = shared_folder("geniusweb", "JapanTrip") / "japantrip1.json"
    with pytest.raises(FormatError, match="this is a GeniusWeb file; load its folder"):
        load_scenario(profile)


def test_genius_folder_ignores_the_pareto_companion_file() -> None:
    s = load_scenario(shared_folder("genius", "y2014_10issueswithRV"))
    assert s.profile_names == ("profile-1", "profile-2")


def test_save_refuses_geniusweb_output(tmp_path: Path) -> None:
    with pytest.raises(FormatError, match="cannot write format 'geniusweb'"):
        save_scenario(load_scenario("lunch"), tmp_path, format="geniusweb")
