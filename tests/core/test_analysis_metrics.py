"""Scenario analysis and per-session metrics on hand-computed scenarios."""

from __future__ import annotations

import math

import numpy as np
import pytest

from accord.core import (
    CategoricalIssue,
    Deadline,
    IntegerIssue,
    LinearAdditiveUtility,
    LinearEvaluator,
    Negotiator,
    OutcomeSpace,
    RealIssue,
    Response,
    Session,
)
from accord.core.analysis import analyze, session_metrics, utility_columns
from accord.core.errors import InvalidScenario
from accord.core.generate import random_linear_scenario
from accord.core.scenario import Scenario
from accord.core.utilities import CallableUtility

FOOD = CategoricalIssue("Food", ["Hamburger", "Pizza"])
DRINK = CategoricalIssue("Drink", ["Cola", "Beer"])


def lunch(reservations=(0.0, 0.0), discount=None):
    space = OutcomeSpace([FOOD, DRINK])
    me = LinearAdditiveUtility(
        space,
        [0.3, 0.7],
        [{"Hamburger": 0.7, "Pizza": 1.0}, {"Cola": 0.2, "Beer": 1.0}],
        reservation=reservations[0],
        discount=discount,
    )
    you = LinearAdditiveUtility(
        space,
        [0.5, 0.5],
        [{"Hamburger": 1.0, "Pizza": 0.2}, {"Cola": 1.0, "Beer": 0.5}],
        reservation=reservations[1],
        discount=discount,
    )
    return Scenario("lunch", space, (me, you))


# utilities: (H,C) .35/1.0  (H,B) .91/.75  (P,C) .44/.6  (P,B) 1.0/.35


class Offers(Negotiator):
    """Offers one fixed outcome and accepts exactly that outcome."""

    def __init__(self, outcome):
        super().__init__()
        self.outcome = outcome

    def propose(self, view):
        return self.outcome

    def respond(self, view, offer):
        return Response.ACCEPT if offer == self.outcome else Response.REJECT


def agree_on(scenario, outcome, rounds=10):
    return Session(
        scenario.space,
        [Offers(outcome), Offers(outcome)],
        list(scenario.utilities),
        Deadline(rounds=rounds),
    ).run()


def test_lunch_analysis_points():
    a = analyze(lunch())
    assert a.frontier_outcomes() == [
        ("Pizza", "Beer"),
        ("Hamburger", "Beer"),
        ("Hamburger", "Cola"),
    ]
    np.testing.assert_allclose(a.frontier_utilities, [[1.0, 0.35], [0.91, 0.75], [0.35, 1.0]])
    assert a.nash.outcome == ("Hamburger", "Beer")
    assert a.kalai.outcome == ("Hamburger", "Beer")
    assert a.welfare.outcome == ("Hamburger", "Beer")
    assert a.welfare.utilities == pytest.approx((0.91, 0.75))
    assert a.point(2).outcome == ("Pizza", "Cola")


def test_reservation_values_move_nash_and_kalai():
    a = analyze(lunch(reservations=(0.95, 0.0)))
    assert a.nash.outcome == ("Pizza", "Beer")
    assert a.kalai.outcome == ("Pizza", "Beer")
    assert analyze(lunch(reservations=(0.95, 0.5))).nash is None


def test_metrics_of_a_dominated_agreement():
    s = lunch()
    result = agree_on(s, ("Pizza", "Cola"))
    m = session_metrics(result, s)
    assert m.agreement == ("Pizza", "Cola")
    assert m.utilities == pytest.approx((0.44, 0.6))
    assert m.welfare == pytest.approx(1.04)
    assert m.nash_product == pytest.approx(0.264)
    # nearest frontier point (0.35, 1.0): sqrt(0.09^2 + 0.4^2) = 0.41
    assert m.pareto_distance == pytest.approx(0.41)
    # Nash point (0.91, 0.75): sqrt(0.47^2 + 0.15^2)
    assert m.nash_distance == pytest.approx(math.sqrt(0.47**2 + 0.15**2))
    assert not m.pareto_optimal
    assert m.to_dict()["agreement"] == ["Pizza", "Cola"]


def test_metrics_of_the_nash_agreement_are_zero_distances():
    s = lunch()
    m = session_metrics(agree_on(s, ("Hamburger", "Beer")), s)
    assert m.pareto_distance == 0.0 and m.nash_distance == 0.0 and m.pareto_optimal


def test_discounted_session_reports_discounted_utilities_but_raw_distances():
    s = lunch(discount=0.5)

    class Late(Offers):
        def respond(self, view, offer):
            return Response.ACCEPT if view.time >= 0.5 else Response.REJECT

    result = Session(
        s.space,
        [Offers(("Hamburger", "Beer")), Late(("Pizza", "Cola"))],
        list(s.utilities),
        Deadline(rounds=2),
    ).run()
    assert result.agreement == ("Hamburger", "Beer") and result.time == 0.75
    m = session_metrics(result, s)
    factor = 0.5**0.75
    assert m.utilities == pytest.approx((0.91 * factor, 0.75 * factor))
    assert m.outcome_utilities == pytest.approx((0.91, 0.75))
    assert m.nash_product == pytest.approx(0.91 * 0.75 * factor**2)
    assert m.pareto_distance == 0.0


def test_no_agreement_sits_at_the_reservation_values():
    s = lunch(reservations=(0.2, 0.3))

    class Never(Negotiator):
        def propose(self, view):
            return ("Pizza", "Beer")

        def respond(self, view, offer):
            return Response.REJECT

    result = Session(s.space, [Never(), Never()], list(s.utilities), Deadline(rounds=3)).run()
    m = session_metrics(result, s)
    assert m.agreement is None and m.utilities == (0.2, 0.3)
    assert m.outcome_utilities == (0.2, 0.3)
    assert m.pareto_distance == pytest.approx(math.hypot(0.35 - 0.2, 1.0 - 0.3))
    assert not m.pareto_optimal


def test_three_party_analysis_matches_brute_force():
    s = random_linear_scenario(3, 4, n_parties=3, seed=2)
    a = analyze(s)
    pts = np.column_stack([u.all() for u in s.utilities])
    prods = pts.prod(axis=1)
    assert a.nash.index == int(np.argmax(prods))
    assert a.welfare.index == int(np.argmax(pts.sum(axis=1)))
    for i in range(len(pts)):
        dominated = ((pts >= pts[i]).all(axis=1) & (pts > pts[i]).any(axis=1)).any()
        assert (i in set(a.frontier.tolist())) == (not dominated)


def test_real_issues_are_analysed_on_a_grid():
    space = OutcomeSpace([RealIssue("price", 0.0, 10.0), IntegerIssue("n", 1, 3)])
    buyer = LinearAdditiveUtility(
        space, [0.8, 0.2], [LinearEvaluator(-0.1, 1.0), LinearEvaluator(0.5)]
    )
    seller = CallableUtility(space, lambda o: 0.08 * o[0] + 0.2 * (o[1] == 1))
    s = Scenario("trade", space, (buyer, seller))
    grid, cols = utility_columns(s, levels=11)
    assert grid.cardinality == 33
    # buyer at price 0, n 3: 0.8 * 1 + 0.2 * 1 = 1; seller at price 10, n 1: 1.0
    assert cols[0][grid.flat_index((0.0, 3))] == pytest.approx(1.0)
    assert cols[1][grid.flat_index((10.0, 1))] == pytest.approx(1.0)
    a = analyze(s, levels=11)
    assert a.frontier.size > 1
    for o in a.frontier_outcomes():
        assert o[1] in (1, 3)


def test_size_limit_and_party_mismatch_are_explained():
    s = random_linear_scenario(3, 5, seed=0)
    with pytest.raises(InvalidScenario, match="125 outcomes; the analysis enumerates at most 100"):
        utility_columns(s, max_outcomes=100)
    # analyze() does not refuse a space too big to enumerate: it approximates and says so.
    note = analyze(s, max_outcomes=100).note
    assert note is not None and note.startswith("analysis approximated: 125 outcomes")
    three = random_linear_scenario(3, 5, n_parties=3, seed=0)
    result = agree_on(s, ("v0", "v0", "v0"))
    with pytest.raises(InvalidScenario, match="2 parties but scenario .* has 3 profiles"):
        session_metrics(result, three)


def test_analysis_exports_are_documented():
    import accord.core.analysis as analysis

    assert len(set(analysis.__all__)) == len(analysis.__all__)
    for name in analysis.__all__:
        assert getattr(analysis, name).__doc__, name


def test_cell_mode_agrees_with_enumeration_on_a_small_nonlinear_scenario():
    from accord.core.utilities import HyperRectangle, HyperRectangleUtility

    space = OutcomeSpace(
        [IntegerIssue("a", 0, 9), IntegerIssue("b", 0, 9), IntegerIssue("c", 0, 4)]
    )
    u1 = HyperRectangleUtility(
        space,
        [HyperRectangle(3.0, ((0, 0, 4),)), HyperRectangle(2.0, ((1, 3, 9), (2, 0, 1)))],
        5.0,
        reservation=0.1,
    )
    u2 = HyperRectangleUtility(
        space,
        [HyperRectangle(2.0, ((0, 3, 9), (1, 5, 9))), HyperRectangle(1.0, ((2, 2, 4),))],
        3.0,
    )
    s = Scenario("boxes", space, (u1, u2))
    full = analyze(s)
    cells = analyze(s, max_outcomes=10)
    assert full.rows is None and cells.rows is not None
    # distinct vectors only in cell mode; the same frontier values
    np.testing.assert_allclose(
        np.unique(full.frontier_utilities.round(12), axis=0),
        np.unique(cells.frontier_utilities.round(12), axis=0),
    )
    assert cells.nash.utilities == pytest.approx(full.nash.utilities)
    assert cells.kalai.utilities == pytest.approx(full.kalai.utilities)
    assert sum(cells.welfare.utilities) == pytest.approx(sum(full.welfare.utilities))
    assert (u1(cells.nash.outcome), u2(cells.nash.outcome)) == pytest.approx(cells.nash.utilities)
