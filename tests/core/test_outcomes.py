import itertools
import math

import numpy as np
import pytest

from accord.core import (
    CategoricalIssue,
    IntegerIssue,
    InvalidOutcome,
    InvalidScenario,
    OutcomeSpace,
    RealIssue,
)


@pytest.fixture
def space() -> OutcomeSpace:
    return OutcomeSpace(
        [
            CategoricalIssue("food", ["Hamburger", "Pizza", "Sushi"]),
            IntegerIssue("guests", 2, 5),
            CategoricalIssue("drink", ["Cola", "Beer"]),
        ]
    )


def test_cardinality_is_the_product_of_issue_sizes(space):
    assert space.cardinality == 3 * 4 * 2


def test_flat_index_is_mixed_radix_with_last_issue_fastest(space):
    assert space.flat_index(("Hamburger", 2, "Cola")) == 0
    assert space.flat_index(("Hamburger", 2, "Beer")) == 1
    assert space.flat_index(("Hamburger", 3, "Cola")) == 2
    assert space.flat_index(("Pizza", 2, "Cola")) == 8
    assert space.flat_index(("Sushi", 5, "Beer")) == 23


def test_enumeration_round_trips_through_rows_and_flat_indices(space):
    rows = space.enumerate_rows()
    assert rows.shape == (24, 3)
    assert np.array_equal(space.flat_of_rows(rows), np.arange(24))
    outcomes = list(space)
    assert len(set(outcomes)) == 24
    for flat, outcome in enumerate(outcomes):
        assert space.outcome_at(flat) == outcome
        assert space.outcome_of_row(rows[flat]) == outcome
        assert space.flat_index(outcome) == flat


def test_sampling_is_seeded_and_valid(space):
    a = space.sample_rows(50, np.random.default_rng(7))
    b = space.sample_rows(50, np.random.default_rng(7))
    assert np.array_equal(a, b)
    assert (a >= 0).all() and (a < space.radices).all()
    for outcome in space.sample(20, np.random.default_rng(1)):
        assert space.is_valid(outcome)


def test_validation_names_issue_value_and_allowed_values(space):
    with pytest.raises(InvalidOutcome, match=r"issue 'food' got 'Tacos'; allowed: 'Hamburger'"):
        space.validate(("Tacos", 2, "Cola"))
    with pytest.raises(InvalidOutcome, match=r"issue 'guests' got 9; allowed: integers 2..5"):
        space.validate(("Pizza", 9, "Cola"))
    with pytest.raises(InvalidOutcome, match=r"needs 3 values .*got 2"):
        space.validate(("Pizza", 3))
    with pytest.raises(InvalidOutcome, match=r"must be a tuple .*got str"):
        space.validate("Pizza")
    assert not space.is_valid(("Pizza", 3.0, "Cola"))
    assert not space.is_valid(("Pizza", True, "Cola"))


def test_dict_conversion_requires_exactly_the_issues(space):
    o = ("Pizza", 4, "Beer")
    assert space.from_dict(space.to_dict(o)) == o
    with pytest.raises(InvalidOutcome, match=r"missing \['drink'\]"):
        space.from_dict({"food": "Pizza", "guests": 4})


def test_real_issues_make_a_continuous_space_that_discretizes():
    space = OutcomeSpace([RealIssue("price", 0.0, 1.0), IntegerIssue("n", 0, 1)])
    assert space.cardinality == math.inf and not space.is_discrete
    assert space.is_valid((0.5, 1))
    assert not space.is_valid((1.5, 1))
    with pytest.raises(InvalidScenario, match="discretize"):
        space.enumerate_rows()
    grid = space.discretize(5)
    assert grid.cardinality == 10
    assert grid.outcome_at(3) == (0.25, 1)


def test_bad_issue_definitions_are_refused():
    with pytest.raises(InvalidScenario, match="repeats values: a"):
        CategoricalIssue("x", ["a", "a"])
    with pytest.raises(InvalidScenario, match="below lower bound"):
        IntegerIssue("n", 5, 1)
    with pytest.raises(InvalidScenario, match="unique"):
        OutcomeSpace([IntegerIssue("n", 0, 1), IntegerIssue("n", 0, 2)])


def test_spaces_serialise_and_compare(space):
    again = OutcomeSpace.from_list(space.to_list())
    assert again == space and hash(again) == hash(space)


def test_a_million_outcome_space_enumerates_as_arrays():
    big = OutcomeSpace([CategoricalIssue(f"i{k}", list(range(10))) for k in range(6)])
    rows = big.enumerate_rows()
    assert rows.shape == (10**6, 6)
    assert tuple(rows[123456]) == (1, 2, 3, 4, 5, 6)


@pytest.mark.parametrize("n_issues", [1, 2, 3, 4])
def test_outcome_at_is_the_product_order_for_every_issue_count(n_issues):
    issues = [IntegerIssue(f"i{k}", k, k + 2 - (k % 2)) for k in range(n_issues)]
    space = OutcomeSpace(issues)
    expected = list(itertools.product(*[i.values() for i in issues]))
    assert [space.outcome_at(f) for f in range(int(space.cardinality))] == expected


@pytest.mark.parametrize("issues", [2, 3, 4])
def test_categorical_offer_check_rejects_a_bad_value_at_any_position(issues: int) -> None:
    # written out for two and three issues, a loop otherwise: the same answers
    space = OutcomeSpace([CategoricalIssue(f"i{k}", ["a", "b"]) for k in range(issues)])
    good = ("a",) * issues
    assert space.is_valid(good) and space.is_valid(("b",) * issues)
    for k in range(issues):
        for bad in ("c", None, 1, ["a"]):  # unknown, None, another type, unhashable
            outcome = good[:k] + (bad,) + good[k + 1 :]
            assert not space.is_valid(outcome), outcome
    assert not space.is_valid(good[:-1]) and not space.is_valid(good + ("a",))
