"""Every real scenario in ../shared/scenarios loads, keeps what it says, and round-trips."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import numpy as np
import pytest
from formats_data import folder_params

from accord.core.scenario import Scenario
from accord.core.utilities import HyperRectangleUtility, LinearAdditiveUtility
from accord.formats import (
    GeniusAdditiveUtility,
    load_scenario,
    read_genius_folder,
    read_geniusweb_folder,
    read_native,
    write_genius_folder,
    write_native,
)

GENIUS = folder_params("genius")
GENIUSWEB = folder_params("geniusweb")
ENUMERATE_LIMIT = 6_000_000


def _profile_files(folder: Path) -> list[Path]:
    """Profile files, told apart from the domain by their weights or boxes (by text)."""
    out = []
    for f in folder.glob("*.xml"):
        if f.name == "pareto.xml":
            continue
        text = f.read_text(encoding="utf-8", errors="replace")
        if "<weight" in text or "hyperRectangle" in text:
            out.append(f)
    return out


def _written(text: str, tag: str) -> float | None:
    m = re.search(rf'<{tag}\s+value="([^"]*)"', text)
    return float(m.group(1)) if m else None


def _samples(s: Scenario, rng: np.random.Generator, n: int = 2000) -> list[tuple[object, ...]]:
    return s.space.sample(n, rng)


@pytest.mark.parametrize("folder", GENIUS)
def test_genius_folder_loads_with_reservation_and_discount_as_written(folder: Path) -> None:
    s = load_scenario(folder)
    files = sorted(_profile_files(folder), key=lambda f: f.stem)
    assert s.n_parties == len(files) >= 2
    assert sorted(s.profile_names) == [f.stem for f in files]
    for name, u in zip(s.profile_names, s.utilities, strict=True):
        text = (folder / f"{name}.xml").read_text(encoding="utf-8")
        rv = _written(text, "reservation")
        assert u.reservation == (rv if rv is not None else 0.0)
        d = _written(text, "discount_factor")
        assert u.discount == (d if d is not None and 0.0 < d < 1.0 else None)


@pytest.mark.parametrize("folder", GENIUS)
def test_genius_linear_profiles_lie_in_unit_interval_with_maximum_one(folder: Path) -> None:
    s = read_genius_folder(folder)
    if not s.space.is_discrete or s.space.cardinality > ENUMERATE_LIMIT:
        pytest.skip(f"{s.space.cardinality} outcomes: checked through cells or sampling")
    for u in s.utilities:
        values = u.all()
        assert values.min() >= 0.0
        assert values.max() <= 1.0 + 1e-12
        assert values.max() == pytest.approx(1.0, abs=1e-12)


@pytest.mark.parametrize("folder", GENIUS)
def test_genius_xml_write_then_read_gives_the_same_scenario(folder: Path, tmp_path: Path) -> None:
    s = read_genius_folder(folder)
    write_genius_folder(s, tmp_path)
    back = read_genius_folder(tmp_path, name=s.name)
    assert back.space == s.space
    assert back.profile_names == s.profile_names
    rng = np.random.default_rng(7)
    outcomes = _samples(s, rng)
    for u, v in zip(s.utilities, back.utilities, strict=True):
        assert type(u) is type(v)
        assert (u.reservation, u.discount) == (v.reservation, v.discount)
        if isinstance(u, HyperRectangleUtility):
            assert isinstance(v, HyperRectangleUtility)
            assert (u.rectangles, u.max_utility) == (v.rectangles, v.max_utility)
        got = [v(o) for o in outcomes]
        assert got == pytest.approx([u(o) for o in outcomes], abs=1e-12)


@pytest.mark.parametrize("folder", GENIUS + GENIUSWEB)
def test_native_round_trip_is_exact(folder: Path, tmp_path: Path) -> None:
    s = load_scenario(folder)
    path = write_native(s, tmp_path / "s.json")
    back = read_native(path)
    assert back.name == s.name and back.profile_names == s.profile_names
    assert back.space == s.space
    for u, v in zip(s.utilities, back.utilities, strict=True):
        assert v.to_dict() == u.to_dict()
        if s.space.is_discrete:
            rows = s.space.sample_rows(5000, np.random.default_rng(3))
            assert np.array_equal(u.batch(rows), v.batch(rows))
        else:
            outcomes = _samples(s, np.random.default_rng(3), 500)
            assert [v(o) for o in outcomes] == [u(o) for o in outcomes]
    assert write_native(back, tmp_path / "again.json").read_text() == path.read_text()


def _geniusweb_utility(profile: dict, bid: dict) -> float:
    body = profile["LinearAdditiveUtilitySpace"]
    total = 0.0
    for issue, w in body["issueWeights"].items():
        table = body["issueUtilities"][issue]["discreteutils"]["valueUtilities"]
        total += w * table[bid[issue]]
    return total


@pytest.mark.parametrize("folder", GENIUSWEB)
def test_geniusweb_folder_loads_and_reservation_is_the_bids_utility(folder: Path) -> None:
    s = read_geniusweb_folder(folder)
    domain = next(
        json.loads(f.read_text())
        for f in folder.glob("*.json")
        if "LinearAdditiveUtilitySpace" not in f.read_text()
    )
    assert list(s.space.names) == list(domain["issuesValues"])
    assert s.n_parties == 2
    rng = np.random.default_rng(11)
    for name, u in zip(s.profile_names, s.utilities, strict=True):
        profile = json.loads((folder / f"{name}.json").read_text())
        bid = profile["LinearAdditiveUtilitySpace"]["reservationBid"]["issuevalues"]
        assert u.reservation == pytest.approx(_geniusweb_utility(profile, bid), abs=1e-12)
        assert u.discount is None
        for o in s.space.sample(50, rng):
            expected = _geniusweb_utility(profile, dict(zip(s.space.names, o, strict=True)))
            assert u(o) == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("folder", GENIUS)
def test_every_profile_has_a_known_utility_type(folder: Path) -> None:
    s = read_genius_folder(folder)
    kinds = {type(u) for u in s.utilities}
    assert kinds <= {LinearAdditiveUtility, HyperRectangleUtility, GeniusAdditiveUtility}
    for u in s.utilities:
        for o in s.space.sample(20, np.random.default_rng(0)):
            assert math.isfinite(u(o))
