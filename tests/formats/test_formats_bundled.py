"""The scenarios bundled with Accord: values, sizes, files in sync with their definitions."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from accord.core.outcomes import IntegerIssue
from accord.core.utilities import LinearAdditiveUtility
from accord.formats import load_scenario, read_genius_folder, save_scenario
from accord.formats.native import native_text
from accord.scenarios import bundled_path, list_bundled, load_bundled
from accord.scenarios.catalog import CATALOG, build

NAMES = ["car_purchase", "holiday", "job_offer", "lunch", "meeting", "supply_contract"]


def test_list_bundled() -> None:
    assert list_bundled() == NAMES


def test_lunch_hamburger_beer_is_091() -> None:
    s = load_scenario("lunch")
    alice = s.utilities[0]
    assert abs(alice(("Hamburger", "Beer")) - 0.91) <= 1e-12
    assert abs(alice(("Pizza", "Cola")) - (0.3 * 1.0 + 0.7 * 0.2)) <= 1e-12
    assert s.space.names == ("Food", "Drink")
    bob = s.utilities[1]
    # bob opposes alice: his best outcome is alice's worst and vice versa
    assert s.space.outcome_at(int(bob.all().argmax())) == ("Hamburger", "Cola")
    assert s.space.outcome_at(int(alice.all().argmax())) == ("Pizza", "Beer")


@pytest.mark.parametrize(
    ("name", "parties", "issues", "outcomes"),
    [
        ("lunch", 2, 2, 4),
        ("job_offer", 2, 3, 80),
        ("car_purchase", 2, 5, 2160),
        ("supply_contract", 2, 6, 10**6),
        ("holiday", 3, 4, 240),
        ("meeting", 4, 4, 300),
    ],
)
def test_bundled_sizes(name: str, parties: int, issues: int, outcomes: int) -> None:
    s = load_bundled(name)
    assert (s.n_parties, len(s.space), s.space.cardinality) == (parties, issues, outcomes)
    for u in s.utilities:
        values = u.all()
        assert values.min() >= 0.0
        assert values.max() == pytest.approx(1.0, abs=1e-12)


def test_some_bundled_profiles_are_discounted_and_have_reservation_values() -> None:
    discounted = [u for n in NAMES for u in load_bundled(n).utilities if u.discount is not None]
    reserved = [u for n in NAMES for u in load_bundled(n).utilities if u.reservation > 0]
    assert len(discounted) >= 4 and len(reserved) >= 10
    buyer = load_bundled("car_purchase").utilities[0]
    assert (buyer.reservation, buyer.discount) == (0.35, 0.8)
    assert buyer.at((22, "Comfort", "Black", "5 years", "1 week"), 1.0) == pytest.approx(0.8)


def test_car_price_is_an_integer_issue_with_linear_evaluations() -> None:
    s = load_bundled("car_purchase")
    assert isinstance(s.space.issues[0], IntegerIssue)
    buyer, seller = s.utilities
    assert isinstance(buyer, LinearAdditiveUtility)
    base = ("Base", "White", "1 year", "1 week")
    for price, b, sl in [(22, 1.0, 0.0), (26, 0.5, 0.5), (30, 0.0, 1.0)]:
        assert buyer((price, *base)) - buyer((30, *base)) == pytest.approx(0.4 * b, abs=1e-12)
        assert seller((price, *base)) - seller((22, *base)) == pytest.approx(0.5 * sl, abs=1e-12)


@pytest.mark.parametrize("name", NAMES)
def test_bundled_file_matches_its_definition(name: str) -> None:
    path = bundled_path(name)
    assert path is not None
    assert path.read_text(encoding="utf-8") == native_text(build(name), CATALOG[name][1])


@pytest.mark.parametrize("name", NAMES)
def test_bundled_scenarios_round_trip_through_genius_xml(name: str, tmp_path: Path) -> None:
    s = load_bundled(name)
    back = read_genius_folder(save_scenario(s, tmp_path / name, format="genius"))
    assert back.profile_names == s.profile_names
    assert back.space == s.space
    rows = s.space.sample_rows(3000, np.random.default_rng(1))
    for u, v in zip(s.utilities, back.utilities, strict=True):
        assert np.abs(u.batch(rows) - v.batch(rows)).max() <= 1e-12
        assert (u.reservation, u.discount) == (v.reservation, v.discount)


def test_bundled_loader_rejects_paths_as_names() -> None:
    assert bundled_path("../formats/genius") is None
    assert bundled_path("") is None
