"""Finding outcomes by utility without enumerating: exact against brute force on small spaces."""

from __future__ import annotations

import numpy as np
import pytest

from accord.core.analysis import analyze
from accord.core.finder import (
    AdditiveFinder,
    SortedOutcomes,
    finder_for,
    huge_space_note,
    sampled_finder,
)
from accord.core.generate import random_linear_scenario
from accord.core.inverse import UtilityInverse, inverse_of
from accord.core.outcomes import CategoricalIssue, IntegerIssue, OutcomeSpace
from accord.core.scenario import Scenario
from accord.core.utilities import (
    CallableUtility,
    HyperRectangle,
    HyperRectangleUtility,
    LinearAdditiveUtility,
)


def _lowest_at_least(values: np.ndarray, target: float) -> float:
    """Brute force: the lowest utility >= target (the maximum if none reaches it)."""
    ok = values[values >= target - 1e-12]
    return float(ok.min()) if ok.size else float(values.max())


def test_a_target_outcome_is_built_exactly_on_a_worked_example():
    # Weights 0.6 / 0.4; x: a 0, b 0.4, c 1; y: a 0, b 0.5, c 1. Utilities:
    # aa 0, ab 0.2, ac 0.4, ba 0.24, bb 0.44, bc 0.64, ca 0.6, cb 0.8, cc 1.
    space = OutcomeSpace(
        [CategoricalIssue("x", ["a", "b", "c"]), CategoricalIssue("y", ["a", "b", "c"])]
    )
    u = LinearAdditiveUtility(
        space, [0.6, 0.4], [{"a": 0.0, "b": 0.4, "c": 1.0}, {"a": 0.0, "b": 0.5, "c": 1.0}]
    )
    f = AdditiveFinder(u, half_limit=3)  # one issue per group: a real meet in the middle
    expected = {0.45: ("c", "a"), 0.41: ("b", "b"), 0.61: ("b", "c"), 0.21: ("b", "a")}
    for target, outcome in expected.items():
        assert f.at_least(target) == outcome
    assert [round(u(f.at_least(t)), 12) for t in expected] == [0.6, 0.44, 0.64, 0.24]
    assert f.at_least(0.0) == ("a", "a") and f.at_least(1.5) == ("c", "c")
    assert (f.min, f.max, f.best(), f.worst()) == (0.0, 1.0, ("c", "c"), ("a", "a"))


@pytest.mark.parametrize("half_limit", [1, 5, 30, 10**6])
def test_additive_finder_matches_brute_force(half_limit):
    s = random_linear_scenario(5, 4, 2, seed=21)  # 1024 outcomes
    u = s.utilities[0]
    assert isinstance(u, LinearAdditiveUtility)
    values = u.all()
    f = AdditiveFinder(u, half_limit=half_limit)
    for target in np.concatenate([np.linspace(-0.1, 1.1, 97), values[::37]]):
        got = u(f.at_least(float(target)))
        assert got == pytest.approx(_lowest_at_least(values, float(target)), abs=1e-12)
        assert got >= min(float(target), float(values.max())) - 1e-12
    assert f.min == pytest.approx(values.min()) and f.max == pytest.approx(values.max())
    assert u(f.best()) == pytest.approx(values.max()) and u(f.worst()) == pytest.approx(
        values.min()
    )


def test_additive_pool_is_distinct_above_the_floor_best_first():
    s = random_linear_scenario(6, 5, 2, seed=4)
    u = s.utilities[1]
    assert isinstance(u, LinearAdditiveUtility)
    rows, values = AdditiveFinder(u, half_limit=25).pool(500, 0.6, np.random.default_rng(0))
    assert len(rows) == len(np.unique(rows, axis=0)) <= 500
    assert (values >= 0.6 - 1e-12).all() and (np.diff(values) <= 1e-12).all()
    assert np.allclose(values, u.batch(rows))
    assert values[0] == pytest.approx(u.all().max())


def test_hyper_rectangle_finder_is_exact_by_cells():
    space = OutcomeSpace([IntegerIssue(f"i{k}", 0, 5) for k in range(4)])
    u = HyperRectangleUtility(
        space,
        [
            HyperRectangle(30.0, ((0, 0, 2), (1, 3, 5))),
            HyperRectangle(50.0, ((2, 1, 4),)),
            HyperRectangle(20.0, ((1, 0, 1), (3, 2, 5))),
            HyperRectangle(-10.0, ((0, 4, 5),)),
        ],
        100.0,
    )
    values = u.all()
    f = finder_for(u)
    assert f.exact and f.method == "exact, by hyper-rectangle cells"
    for target in np.linspace(-0.2, 1.1, 53):
        assert u(f.at_least(float(target))) == pytest.approx(
            _lowest_at_least(values, float(target)), abs=1e-12
        )
    assert (f.min, f.max) == (pytest.approx(values.min()), pytest.approx(values.max()))


def test_sampled_finder_reaches_its_targets_and_climbs_to_the_best():
    space = OutcomeSpace([IntegerIssue(f"i{k}", 0, 9) for k in range(6)])
    u = CallableUtility(space, lambda o: sum(o) / 54)
    f = sampled_finder(u, samples=200)
    assert not f.exact and f.method.startswith("approximate")
    assert f.best() == (9,) * 6 and f.worst() == (0,) * 6  # hill climbing finds the ends
    for target in (0.1, 0.5, 0.9):
        assert u(f.at_least(target)) >= target - 1e-12


def test_inverse_of_uses_a_finder_only_above_the_limit():
    small = random_linear_scenario(3, 4, 2, seed=1).utilities[0]
    assert isinstance(inverse_of(small), UtilityInverse)
    huge = random_linear_scenario(10, 10, 2, seed=1)
    inv = inverse_of(huge.utilities[0])
    assert isinstance(inv, SortedOutcomes) and isinstance(inv, AdditiveFinder)
    assert huge_space_note(huge.utilities) == (
        "10000000000 outcomes, too many to enumerate: the built-in agents find outcomes by "
        "utility without enumerating them (exact, from the linear additive structure)"
    )
    assert huge_space_note(random_linear_scenario(3, 4, 2).utilities) is None


def test_analysis_of_a_space_too_big_to_enumerate_is_approximate_and_says_so():
    s = random_linear_scenario(4, 6, 2, seed=9)  # 1296 outcomes: brute force is possible
    exact = analyze(s)
    approx = analyze(s, max_outcomes=100)  # pretend the space is too big
    assert exact.note is None and approx.note is not None
    assert approx.note.startswith("analysis approximated: 1296 outcomes are too many")
    # The best-welfare outcome is a weighted-sum optimum (weights 1/2, 1/2): exact.
    assert sum(approx.welfare.utilities) == pytest.approx(sum(exact.welfare.utilities))
    exact_front = {tuple(np.round(p, 12)) for p in exact.frontier_utilities}
    weighted = [p for p in approx.frontier_utilities if tuple(np.round(p, 12)) in exact_front]
    assert len(weighted) >= 2  # the supported frontier points are found exactly


def test_a_huge_additive_scenario_is_analysed_without_enumerating():
    s = random_linear_scenario(10, 10, 2, seed=3)
    a = analyze(Scenario("big", s.space, s.utilities))
    assert a.note is not None and "10000000000 outcomes" in a.note
    assert a.rows is not None and len(a.rows) < 50_000


def test_three_parties_above_a_million_outcomes_are_analysed_over_candidates():
    s = random_linear_scenario(8, 7, 3, seed=1)  # 5.8 x 10^6 outcomes, as ANAC 2016's grid
    a = analyze(s)
    assert a.note is not None and a.note.startswith("analysis approximated: 5764801 outcomes")
    assert a.rows is not None and len(a.frontier) >= 3
    small = random_linear_scenario(5, 10, 3, seed=1)  # 10^5: enumerated, exact
    assert analyze(small).note is None


def test_agents_play_on_a_space_beyond_64_bit_flat_indices():
    from accord.agents.registry import get_agent, known_agents
    from accord.core import Deadline, Session

    s = random_linear_scenario(20, 10, 2, seed=3)  # 10^20 > 2^63: no flat index fits
    assert huge_space_note(s.utilities) is not None and "approximate" in str(
        huge_space_note(s.utilities)
    )
    for name in known_agents():
        agents = [get_agent(name), get_agent("Frequency")]
        r = Session(s.space, agents, list(s.utilities), Deadline(rounds=10), seed=1).run()
        assert r.failure is None, (name, r.failure)
        offers = [e.outcome for e in r.trace if e.outcome is not None]
        assert offers and all(s.space.is_valid(o) for o in offers)
