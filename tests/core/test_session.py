"""The alternating-offers session: actions, endings, failures, variants."""

from __future__ import annotations

import time

import pytest

from accord.agents.timebased import Boulware, Conceder, Linear
from accord.core import (
    Action,
    ConfigError,
    Deadline,
    EndReason,
    FailureKind,
    Negotiator,
    Phase,
    Response,
    Session,
)


class Scripted(Negotiator):
    """Replays fixed answers: 'A' accept, 'R' reject then offer, 'E' end."""

    def __init__(self, answers: str, offer, name=None):
        super().__init__(name)
        self.answers = list(answers)
        self.offer = offer
        self.seen: list = []

    def propose(self, view):
        return self.offer

    def respond(self, view, offer):
        self.seen.append((view.step, offer, view.standing_proposer))
        code = self.answers.pop(0) if self.answers else "R"
        return {"A": Response.ACCEPT, "R": Response.REJECT, "E": Response.END}[code]


def test_bilateral_agreement_gives_each_party_its_utility(bilateral):
    space, us = bilateral
    o = space.outcome_at(7)
    a, b = Scripted("", o), Scripted("A", space.outcome_at(3))
    r = Session(space, [a, b], us, Deadline(rounds=10)).run()
    assert r.reason is EndReason.AGREEMENT and r.agreement == o
    assert r.utilities == (us[0](o), us[1](o))
    assert [(e.party, e.action) for e in r.trace] == [(0, Action.OFFER), (1, Action.ACCEPT)]
    assert b.seen == [(1, o, 0)]


def test_a_counter_offer_replaces_the_standing_offer(bilateral):
    space, us = bilateral
    first, second = space.outcome_at(1), space.outcome_at(2)
    a = Scripted("A", first)
    b = Scripted("R", second)
    r = Session(space, [a, b], us, Deadline(rounds=10)).run()
    assert r.agreement == second
    assert [e.action for e in r.trace] == [Action.OFFER, Action.OFFER, Action.ACCEPT]
    assert [e.party for e in r.trace] == [0, 1, 0]


def test_deadline_gives_discounted_reservation_values(make_scenario):
    space, us = make_scenario(2, 3, 2, seed=3, reservation=0.5, discount=0.8)
    a, b = Scripted("R" * 100, space.outcome_at(0)), Scripted("R" * 100, space.outcome_at(1))
    r = Session(space, [a, b], us, Deadline(rounds=4)).run()
    assert r.reason is EndReason.DEADLINE and r.agreement is None
    assert r.steps == 8 and r.rounds == 4 and r.time == 1.0
    assert r.utilities == pytest.approx((0.5 * 0.8, 0.5 * 0.8))


def test_agreement_utility_is_discounted_at_normalised_time_not_per_round(make_scenario):
    space, us = make_scenario(2, 3, 2, seed=3, discount=0.5)
    o = space.outcome_at(4)
    # Party 1 rejects 4 times then accepts at step 9 of 20 (t = 9/20).
    a = Scripted("RRRR", o)
    b = Scripted("RRRRA", o)
    r = Session(space, [a, b], us, Deadline(rounds=10)).run()
    assert r.reason is EndReason.AGREEMENT and r.steps == 10
    assert r.time == pytest.approx(9 / 20)
    assert r.utilities[0] == pytest.approx(us[0](o) * 0.5 ** (9 / 20))


def test_walkaway_ends_with_reservation_values(bilateral):
    space, us = bilateral
    r = Session(
        space, [Scripted("", space.outcome_at(0)), Scripted("E", None)], us, Deadline(rounds=5)
    ).run()
    assert r.reason is EndReason.WALKAWAY and r.ended_by == 1
    assert r.utilities == (us[0].reservation, us[1].reservation)


def test_multilateral_agreement_needs_every_other_party_to_accept(make_scenario):
    space, us = make_scenario(3, 4, 3, seed=5)
    o1, o2 = space.outcome_at(5), space.outcome_at(9)
    a = Scripted("AA", o1)
    b = Scripted("AA", o1)
    c = Scripted("R", o2)  # rejects o1 after b accepted: o2 replaces it
    r = Session(space, [a, b, c], us, Deadline(rounds=10)).run()
    assert r.agreement == o2
    assert [(e.party, e.action) for e in r.trace] == [
        (0, Action.OFFER),
        (1, Action.ACCEPT),
        (2, Action.OFFER),
        (0, Action.ACCEPT),
        (1, Action.ACCEPT),
    ]


class Raises(Negotiator):
    def propose(self, view):
        raise RuntimeError("boom")

    def respond(self, view, offer):
        raise RuntimeError("boom")


class Invalid(Negotiator):
    def propose(self, view):
        return ("not", "an", "outcome")

    def respond(self, view, offer):
        return "yes"


class Slow(Negotiator):
    def propose(self, view):
        time.sleep(0.05)
        return view.best_outcome

    def respond(self, view, offer):
        return Response.REJECT


@pytest.mark.parametrize(
    ("bad", "kind", "message"),
    [
        (Raises(), FailureKind.EXCEPTION, "RuntimeError: boom"),
        (Invalid(), FailureKind.INVALID, "invalid offer: issue 'i0' got 'not'"),
        (Slow(), FailureKind.TIMEOUT, "propose took"),
    ],
)
def test_failures_end_the_session_recorded_against_the_negotiator(bilateral, bad, kind, message):
    space, us = bilateral
    r = Session(space, [bad, Linear()], us, Deadline(rounds=10), time_limit=0.02).run()
    assert r.reason is EndReason.FAILURE and r.ended_by == 0
    assert r.failure is not None and r.failure.kind is kind and r.failure.party == 0
    assert message in r.failure.message
    assert r.utilities == (us[0].reservation, us[1].reservation)


def test_an_invalid_response_is_a_failure(bilateral):
    space, us = bilateral
    r = Session(space, [Linear(), Invalid()], us, Deadline(rounds=10)).run()
    assert r.failure is not None and r.failure.party == 1
    assert "respond() must return a Response" in r.failure.message


def test_simultaneous_start_draws_one_of_the_first_proposals(bilateral):
    space, us = bilateral
    drawn = set()
    for seed in range(20):
        a, b = Scripted("A", space.outcome_at(0)), Scripted("A", space.outcome_at(1))
        s = Session(space, [a, b], us, Deadline(rounds=10), seed=seed, simultaneous_start=True)
        r = s.run()
        first_two = r.trace[:2]
        assert [e.action for e in first_two] == [Action.OFFER, Action.OFFER]
        assert r.steps == 3 and r.reason is EndReason.AGREEMENT
        drawn.add(r.agreement)
        # the acceptor is the party whose proposal was not drawn
        assert r.trace[2].party == (0 if r.agreement == space.outcome_at(1) else 1)
    assert drawn == {space.outcome_at(0), space.outcome_at(1)}


def test_same_seed_same_session(bilateral):
    space, us = bilateral
    runs = [
        Session(space, [Boulware(), Conceder()], us, Deadline(rounds=50), seed=4).run()
        for _ in range(2)
    ]
    assert runs[0].trace == runs[1].trace and runs[0].utilities == runs[1].utilities


def test_step_by_step_exposes_the_phase(bilateral):
    space, us = bilateral
    s = Session(space, [Boulware(), Boulware()], us, Deadline(rounds=3))
    assert s.phase is Phase.CREATED
    assert s.step() is None and s.phase is Phase.RUNNING and s.standing_offer is not None
    r = s.run()
    assert s.phase is Phase.ENDED and s.step() is r


def test_seconds_deadline_ends_the_session(make_scenario):
    space, us = make_scenario(2, 3, 2, seed=2)
    r = Session(
        space,
        [Scripted("R" * 10**6, space.outcome_at(0)), Scripted("R" * 10**6, space.outcome_at(1))],
        us,
        Deadline(seconds=0.05),
    ).run()
    assert r.reason is EndReason.DEADLINE and r.elapsed >= 0.05


def test_bad_configuration_is_refused(bilateral):
    space, us = bilateral
    with pytest.raises(ConfigError, match="at least 2"):
        Session(space, [Linear()], us[:1], Deadline(rounds=3))
    with pytest.raises(ConfigError, match="expected 2 utilities"):
        Session(space, [Linear(), Linear()], us[:1], Deadline(rounds=3))
    with pytest.raises(ConfigError, match="neither"):
        Deadline()


def test_names_are_made_unique(bilateral):
    space, us = bilateral
    r = Session(space, [Linear(), Linear()], us, Deadline(rounds=3)).run()
    assert r.names == ("Linear", "Linear@1")


class SlowStart(Negotiator):
    def on_start(self, view):
        time.sleep(0.05)

    def propose(self, view):
        return view.best_outcome

    def respond(self, view, offer):
        return Response.ACCEPT


def test_the_time_limit_applies_to_responses_not_to_start_up(bilateral):
    space, us = bilateral
    r = Session(space, [SlowStart(), SlowStart()], us, Deadline(rounds=5), time_limit=0.02).run()
    assert r.reason is EndReason.AGREEMENT and r.failure is None
