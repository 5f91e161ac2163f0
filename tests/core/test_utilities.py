import math

import numpy as np
import pytest

from accord.core import (
    CallableUtility,
    CategoricalIssue,
    HyperRectangle,
    HyperRectangleUtility,
    IntegerIssue,
    InvalidScenario,
    LinearAdditiveUtility,
    LinearEvaluator,
    OutcomeSpace,
    RealIssue,
    effective_discount,
)
from accord.core.utilities import utility_from_dict


def lunch(reservation: float = 0.0, discount: float | None = None) -> LinearAdditiveUtility:
    space = OutcomeSpace(
        [
            CategoricalIssue("Food", ["Hamburger", "Pizza"]),
            CategoricalIssue("Drink", ["Cola", "Beer"]),
        ]
    )
    return LinearAdditiveUtility(
        space,
        weights=[0.3, 0.7],
        evaluators=[{"Hamburger": 0.7, "Pizza": 1.0}, {"Cola": 0.2, "Beer": 1.0}],
        reservation=reservation,
        discount=discount,
    )


def test_prianac_lunch_example_is_exact():
    u = lunch()
    assert u(("Hamburger", "Beer")) == pytest.approx(0.91, abs=1e-15)
    # The vector form beta^T w: beta = (0.21, 0.30, 0.14, 0.70).
    assert u(("Pizza", "Cola")) == pytest.approx(0.30 + 0.14, abs=1e-15)
    assert u(("Hamburger", "Cola")) == pytest.approx(0.21 + 0.14, abs=1e-15)
    assert u(("Pizza", "Beer")) == pytest.approx(1.0, abs=1e-15)


def test_batch_and_all_agree_with_scalar_evaluation():
    u = lunch()
    rows = u.space.enumerate_rows()
    scalar = [u(u.space.outcome_of_row(r)) for r in rows]
    assert np.allclose(u.batch(rows), scalar, atol=1e-15)
    assert np.allclose(u.all(), scalar, atol=1e-15)


def test_genius_normalisation_renormalises_weights_and_divides_by_issue_maximum():
    space = OutcomeSpace([CategoricalIssue("a", ["x", "y"]), CategoricalIssue("b", ["p", "q"])])
    u = LinearAdditiveUtility(space, [2.0, 6.0], [{"x": 5, "y": 10}, {"p": 40, "q": 80}])
    assert u.weights.tolist() == [0.25, 0.75]
    assert u(("x", "p")) == pytest.approx(0.25 * 0.5 + 0.75 * 0.5)
    assert u(("y", "q")) == pytest.approx(1.0)
    assert u.all().max() == pytest.approx(1.0)
    raw = LinearAdditiveUtility(
        space, [2.0, 6.0], [{"x": 5, "y": 10}, {"p": 40, "q": 80}], normalize=False
    )
    assert raw(("y", "q")) == pytest.approx(2 * 10 + 6 * 80)


def test_linear_evaluators_on_integer_and_real_issues_are_normalised_by_their_maximum():
    space = OutcomeSpace([IntegerIssue("n", 1, 10), RealIssue("r", 0.0, 2.0)])
    u = LinearAdditiveUtility(
        space, [0.5, 0.5], [LinearEvaluator(slope=-0.1, offset=1.1), LinearEvaluator(0.25, 0.5)]
    )
    # issue n: max is at n=1 -> 1.0; issue r: max at r=2 -> 1.0
    assert u((1, 2.0)) == pytest.approx(1.0)
    assert u((10, 0.0)) == pytest.approx(0.5 * 0.1 + 0.5 * 0.5)


@pytest.mark.parametrize(
    ("delta", "expected"), [(0.5, 0.5), (1.0, None), (1.5, None), (0.0, None), (-1.0, None)]
)
def test_discount_factor_outside_open_unit_interval_means_none(delta, expected):
    assert effective_discount(delta) == expected


def test_discount_is_applied_on_normalised_time_to_utility_and_reservation():
    u = lunch(reservation=0.4, discount=0.5)
    assert u.at(("Hamburger", "Beer"), 0.0) == pytest.approx(0.91)
    assert u.at(("Hamburger", "Beer"), 0.5) == pytest.approx(0.91 * 0.5**0.5, abs=1e-15)
    assert u.at(("Hamburger", "Beer"), 1.0) == pytest.approx(0.455, abs=1e-15)
    assert u.reservation_at(1.0) == pytest.approx(0.2, abs=1e-15)
    assert u.reservation_at(0.25) == pytest.approx(0.4 * 0.5**0.25, abs=1e-15)
    undiscounted = lunch(reservation=0.4, discount=1.0)
    assert undiscounted.reservation_at(1.0) == 0.4


def test_reservation_value_must_be_a_number():
    with pytest.raises(InvalidScenario, match="finite"):
        lunch(reservation=-math.inf)


def test_missing_evaluations_are_reported_with_the_issue():
    space = OutcomeSpace([CategoricalIssue("a", ["x", "y"])])
    with pytest.raises(InvalidScenario, match=r"issue 'a': no evaluation for values \['y'\]"):
        LinearAdditiveUtility(space, [1.0], [{"x": 1.0}])
    with pytest.raises(InvalidScenario, match="one weight per issue"):
        LinearAdditiveUtility(space, [1.0, 2.0], [{"x": 1.0, "y": 0.0}])


def test_hyper_rectangle_utility_sums_hit_boxes_over_max_utility():
    space = OutcomeSpace([IntegerIssue("a", 0, 9), IntegerIssue("b", 0, 9)])
    u = HyperRectangleUtility(
        space,
        [HyperRectangle(20.0, ((0, 0, 4),)), HyperRectangle(30.0, ((0, 2, 9), (1, 5, 5)))],
        max_utility=50.0,
    )
    assert u((3, 5)) == pytest.approx(1.0)
    assert u((3, 6)) == pytest.approx(0.4)
    assert u((9, 5)) == pytest.approx(0.6)
    assert u((9, 0)) == 0.0
    rows = space.enumerate_rows()
    assert np.allclose(u.batch(rows), [u(space.outcome_of_row(r)) for r in rows])


def test_callable_utility_batches_through_the_function():
    space = OutcomeSpace([IntegerIssue("n", 0, 4)])
    u = CallableUtility(space, lambda o: o[0] ** 2, reservation=1.0)
    assert u.all().tolist() == [0, 1, 4, 9, 16]


def test_dict_round_trip_preserves_every_utility():
    u = lunch(reservation=0.3, discount=0.9)
    again = utility_from_dict(u.space, u.to_dict())
    assert np.allclose(again.all(), u.all(), atol=1e-15)
    assert again.reservation == 0.3 and again.discount == 0.9


@pytest.mark.parametrize("issues", [1, 2, 3, 4])
def test_linear_utility_of_each_outcome_is_exactly_its_entry_in_all(issues: int) -> None:
    # the call (written out for 2 and 3 issues, a loop otherwise) and all() (tables added
    # in one shape) must give the same floats, bit for bit: agents compare them
    from accord.core.generate import random_linear_scenario

    u = random_linear_scenario(issues, 4, 2, seed=issues).utilities[1]
    every = u.all().tolist()
    for i, outcome in enumerate(u.space):
        assert u(outcome) == every[i]
        assert u(list(outcome)) == every[i]
    with pytest.raises(ValueError):
        u(tuple(outcome) + ("v0",))


def test_a_session_result_built_trusted_equals_the_constructed_one() -> None:
    from accord.core.protocols.result import EndReason, SessionResult

    fields = (("v0",), EndReason.AGREEMENT, None, 0.5, 3, 2, 0.01, (0.7, 0.2), ("a", "b"))
    made = SessionResult(*fields, None, [])
    trusted = SessionResult.trusted(*fields, None, [])
    assert trusted == made and repr(trusted) == repr(made) and trusted.to_dict() == made.to_dict()
    with pytest.raises(AttributeError):
        trusted.steps = 4  # type: ignore[misc]
