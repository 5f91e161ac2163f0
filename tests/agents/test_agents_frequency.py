"""The frequency opponent model and the frequency-model negotiator."""

from __future__ import annotations

import numpy as np
import pytest
from agent_scenarios import opposed, tradeoff

from accord.agents import FrequencyAgent, FrequencyModel, Hardliner
from accord.agents.timebased import Boulware, Conceder, TimeDependent
from accord.core import (
    Action,
    CategoricalIssue,
    Deadline,
    Negotiator,
    OutcomeSpace,
    RealIssue,
    Response,
    Session,
)
from accord.core.generate import random_linear_scenario
from accord.core.inverse import UtilityInverse

SPACE = OutcomeSpace([CategoricalIssue("a", ["x", "y", "z"]), CategoricalIssue("b", ["p", "q"])])


def test_model_counts_values_and_learns_weights_from_unchanged_issues():
    m = FrequencyModel(SPACE, learning_rate=0.5)
    for o in [("x", "p"), ("y", "p"), ("y", "q"), ("y", "q")]:
        m.update(o)
    # counts a: x1 y3 z0; b: p2 q2.  Unchanged: b (x->y), a (y->y), a and b (y,q)->(y,q)
    assert m.counts == [[1.0, 3.0, 0.0], [2.0, 2.0]]
    # raw weights 0.5 + 0.5*2 = 1.5 and 0.5 + 0.5*2 = 1.5 -> equal
    assert m.weights == pytest.approx([0.5, 0.5])
    assert m.evaluation(0, 1) == 1.0 and m.evaluation(0, 0) == 0.5 and m.evaluation(0, 2) == 0.25
    assert m.predict(("y", "q")) == pytest.approx(1.0)
    assert m.predict(("z", "p")) == pytest.approx(0.5 * 0.25 + 0.5 * 1.0)
    assert m.last_row == (1, 1) and m.observed == 4


def test_model_weighted_updates_and_vectorised_prediction_agree():
    m = FrequencyModel(SPACE, learning_rate=0.2)
    m.update(("z", "q"), weight=1.0)
    m.update(("z", "p"), weight=0.25)
    assert m.counts == [[0.0, 0.0, 1.25], [0.25, 1.0]]
    assert m.weights == pytest.approx([0.7 / 1.2, 0.5 / 1.2])
    rows = SPACE.enumerate_rows()
    fast = m.predict_rows(rows)
    slow = [m.predict(SPACE.outcome_at(i)) for i in range(SPACE.cardinality)]
    np.testing.assert_allclose(fast, slow)
    m.update(("x", "p"))  # tables are refreshed after an update
    np.testing.assert_allclose(
        m.predict_rows(rows), [m.predict(SPACE.outcome_at(i)) for i in range(6)]
    )


def test_model_needs_a_discrete_space():
    with pytest.raises(ValueError, match="discrete outcome space"):
        FrequencyModel(OutcomeSpace([RealIssue("r", 0.0, 1.0)]))


def offers_of(result, party):
    return [e.outcome for e in result.trace if e.party == party and e.action is Action.OFFER]


def test_agent_opens_with_its_best_and_never_offers_below_its_target(small):
    u0 = small.utilities[0]
    agent = FrequencyAgent()
    r = Session(small.space, [agent, Hardliner()], list(small.utilities), Deadline(rounds=40)).run()
    mine = [e for e in r.trace if e.party == 0 and e.action is Action.OFFER]
    assert mine[0].outcome == UtilityInverse(u0).best()
    for e in mine:
        assert u0(e.outcome) >= agent.target(e.time) - 1e-9


class Replay(Negotiator):
    """Offers a fixed list in turn and records whether the offers it got were accepted."""

    def __init__(self, offers):
        super().__init__()
        self.offers = offers
        self.k = 0

    def propose(self, view):
        o = self.offers[self.k % len(self.offers)]
        self.k += 1
        return o

    def respond(self, view, offer):
        return Response.REJECT


def test_agent_picks_what_the_model_says_the_opponent_likes():
    # Only issue a matters to the agent; the opponent keeps offering a=any, b="q".
    space = SPACE
    from accord.core import LinearAdditiveUtility

    me = LinearAdditiveUtility(
        space, [1.0, 0.0], [{"x": 1.0, "y": 0.5, "z": 0.0}, {"p": 1, "q": 1}]
    )
    you = LinearAdditiveUtility(space, [0.0, 1.0], [{"x": 1, "y": 1, "z": 1}, {"p": 0.0, "q": 1.0}])
    # weights 0 for an issue are fine: utilities still lie in [0, 1]
    agent = FrequencyAgent(exponent=1.0)
    r = Session(
        space, [Replay([("z", "q"), ("y", "q")]), agent], [you, me], Deadline(rounds=6)
    ).run()
    mine = offers_of(r, 1)
    # "x" is its best on the issue it cares about; of (x, p) and (x, q) it picks "q"
    assert mine[0] in {("x", "p"), ("x", "q")}
    assert all(o == ("x", "q") for o in mine[1:3])


def test_agent_accepts_by_the_next_offer_criterion():
    s = tradeoff(3, 5, seed=1)
    u1 = s.utilities[1]
    inv = UtilityInverse(u1)
    top = inv.best()
    r = Session(s.space, [Replay([top]), FrequencyAgent()], list(s.utilities), Deadline(rounds=5))
    assert r.run().agreement == top and r.steps == 2
    # Linear target; it responds at t = 0.05, 0.15, ... (gap 0.1 from its second turn on)
    # and accepts once the offer is worth its target at its next turn.
    for level in (0.8, 0.55, 0.3):
        o = inv.at_least(level)
        v = u1(o)
        agent = FrequencyAgent(exponent=1.0)
        result = Session(
            s.space, [Replay([o]), agent], list(s.utilities), Deadline(rounds=10)
        ).run()
        times = [0.05 + 0.1 * k for k in range(10)]
        expected = next(
            (k for k, t in enumerate(times) if v >= agent.target(min(1.0, t + (0.1 if k else 0)))),
            9,  # the last turn takes anything rational
        )
        assert result.agreement == o
        assert result.steps == 2 * expected + 2, (level, v)


def test_agent_takes_a_rational_offer_on_its_last_turn():
    s = tradeoff(3, 5, seed=1, reservation=0.2)
    u1 = s.utilities[1]
    ok = UtilityInverse(u1).at_least(0.3)
    r = Session(
        s.space, [Replay([ok]), FrequencyAgent()], list(s.utilities), Deadline(rounds=10)
    ).run()
    assert r.agreement == ok
    assert r.steps == 20  # accepted on the very last step, not before
    bad = UtilityInverse(u1).at_least(0.0)
    assert u1(bad) < 0.2
    r = Session(
        s.space, [Replay([bad]), FrequencyAgent()], list(s.utilities), Deadline(rounds=10)
    ).run()
    assert r.agreement is None


def test_agent_in_a_three_party_session_reaches_agreement():
    s = random_linear_scenario(3, 5, n_parties=3, seed=4)
    negs = [FrequencyAgent(), Boulware(), Conceder()]
    r = Session(s.space, negs, list(s.utilities), Deadline(rounds=60)).run()
    assert r.failure is None and r.agreement is not None


def test_agent_on_a_million_outcomes_uses_a_bounded_pool():
    s = random_linear_scenario(6, 10, seed=7)
    agent = FrequencyAgent(pool_size=5000)
    r = Session(s.space, [agent, TimeDependent(0.5)], list(s.utilities), Deadline(rounds=30)).run()
    assert r.failure is None
    flat = s.space.flat_of_rows(agent._rows)
    assert flat.size == 5000
    values = s.utilities[0].all()
    # the best half of the pool is exactly the 2500 best outcomes
    assert np.sort(values[flat[:2500]])[0] == np.sort(values)[-2500]


def test_agent_parameters_are_checked():
    with pytest.raises(ValueError, match="exponent must be > 0"):
        FrequencyAgent(exponent=0)
    with pytest.raises(ValueError, match="window must be >= 1"):
        FrequencyAgent(window=0)


def test_agent_is_deterministic():
    s = opposed(4, 5, seed=3)
    runs = [
        Session(s.space, [FrequencyAgent(), Boulware()], list(s.utilities), Deadline(rounds=50))
        .run()
        .trace
        for _ in range(2)
    ]
    assert [e[:4] for e in runs[0]] == [e[:4] for e in runs[1]]
