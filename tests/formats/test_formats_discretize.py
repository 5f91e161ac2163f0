"""Scenarios with real issues become enumerable on a grid, keeping every utility."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from formats_data import shared_folder

from accord.core.outcomes import RealIssue
from accord.formats import discretize_scenario, load_scenario, read_native, write_native


def test_car_domain_on_a_grid_keeps_utilities(tmp_path: Path) -> None:
    s = load_scenario(shared_folder("genius", "genius_2nd_hand_car_real"))
    assert not s.space.is_discrete
    d = discretize_scenario(s, levels=7)
    assert d.space.is_discrete and d.space.cardinality == 5**4 * 7
    price = s.space.issues[4]
    assert isinstance(price, RealIssue)
    assert d.space.issues[4].values()[0] == price.lower
    assert d.space.issues[4].values()[-1] == price.upper
    for u, v in zip(s.utilities, d.utilities, strict=True):
        values = v.all()
        assert values.shape == (d.space.cardinality,)
        for flat in np.random.default_rng(2).integers(0, d.space.cardinality, 200):
            o = d.space.outcome_at(int(flat))
            assert values[flat] == pytest.approx(u(o), abs=1e-15)
    back = read_native(write_native(d, tmp_path / "car.json"))
    assert np.array_equal(back.utilities[1].all(), d.utilities[1].all())


def test_discrete_scenarios_are_returned_unchanged() -> None:
    s = load_scenario("lunch")
    assert discretize_scenario(s) is s
