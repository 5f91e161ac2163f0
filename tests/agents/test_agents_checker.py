"""check_negotiator: passes the built-ins, names what a broken negotiator did wrong."""

from __future__ import annotations

import random
import time

import pytest
from agent_scenarios import tradeoff

from accord.agents import (
    Boulware,
    FrequencyAgent,
    Hardliner,
    RandomNegotiator,
    TitForTat,
    check_negotiator,
    default_scenario,
)
from accord.agents.timebased import Conceder, Linear
from accord.core import Negotiator, ProtocolViolation, Response


@pytest.mark.parametrize(
    "subject",
    [Boulware, Linear, Conceder, Hardliner, RandomNegotiator, TitForTat, FrequencyAgent],
)
def test_builtin_negotiators_pass(subject):
    report = check_negotiator(subject)
    assert report.sessions == 9
    assert all(r.failure is None for _, r in report.results)


def test_instances_and_factories_and_other_scenarios_work():
    report = check_negotiator(Boulware(exponent=0.5), scenario=tradeoff(3, 4, seed=1), rounds=10)
    assert report.sessions == 8  # bilateral scenario: no multilateral session
    assert check_negotiator(lambda: Conceder(exponent=3.0)).agreements > 0


def test_default_scenario_has_three_parties_and_mixed_issues():
    s = default_scenario()
    assert s.n_parties == 3 and s.space.cardinality == 72
    assert s.utilities[0]((6, "slow", "green")) == pytest.approx(1.0)


class Crashes(Negotiator):
    def propose(self, view):
        if view.step > 4:
            raise KeyError("boom")
        return view.best_outcome

    def respond(self, view, offer):
        return Response.REJECT


class InvalidOffer(Negotiator):
    def propose(self, view):
        return (99, "slow", "red")

    def respond(self, view, offer):
        return Response.REJECT


class BadResponse(Negotiator):
    def propose(self, view):
        return view.best_outcome

    def respond(self, view, offer):
        return True


class Slow(Negotiator):
    def propose(self, view):
        time.sleep(0.05)
        return view.best_outcome

    def respond(self, view, offer):
        return Response.REJECT


class GlobalRandom(Negotiator):
    def propose(self, view):
        return view.space.outcome_at(random.randrange(int(view.space.cardinality)))

    def respond(self, view, offer):
        return Response.REJECT


class NoRespond(Negotiator):
    def propose(self, view):
        return view.best_outcome


def test_an_exception_is_reported_with_the_session_and_message():
    with pytest.raises(
        ProtocolViolation, match=r"first vs Boulware .*failed \(exception\).*KeyError: 'boom'"
    ):
        check_negotiator(Crashes)


def test_an_invalid_offer_is_reported():
    with pytest.raises(ProtocolViolation, match=r"failed \(invalid\).*issue 'price' got 99"):
        check_negotiator(InvalidOffer)


def test_a_bad_response_is_reported():
    with pytest.raises(ProtocolViolation, match=r"must return a Response .*got True"):
        check_negotiator(BadResponse)


def test_a_slow_negotiator_is_reported():
    with pytest.raises(ProtocolViolation, match=r"failed \(timeout\).*propose took"):
        check_negotiator(Slow, time_limit=0.01, rounds=3)


def test_a_missing_method_is_reported():
    with pytest.raises(ProtocolViolation, match="NoRespond must implement respond"):
        check_negotiator(NoRespond)


def test_global_randomness_is_caught():
    random.seed(1)
    with pytest.raises(ProtocolViolation, match="draw random numbers from view.rng"):
        check_negotiator(GlobalRandom)


def test_non_negotiators_are_refused():
    with pytest.raises(ProtocolViolation, match="dict is not a subclass of"):
        check_negotiator(dict)
    with pytest.raises(ProtocolViolation, match="built a str"):
        check_negotiator(lambda: "agent")
