"""Hardliner, random negotiator and relative tit-for-tat."""

from __future__ import annotations

import pytest
from agent_scenarios import tradeoff

from accord.agents import Hardliner, RandomNegotiator, TitForTat
from accord.agents.timebased import Conceder
from accord.core import Action, Deadline, Negotiator, Response, Session
from accord.core.inverse import UtilityInverse


class Script(Negotiator):
    """Offers a fixed sequence of outcomes (the last one repeats) and never accepts."""

    def __init__(self, offers, name=None):
        super().__init__(name)
        self.offers = list(offers)
        self.k = 0

    def propose(self, view):
        o = self.offers[min(self.k, len(self.offers) - 1)]
        self.k += 1
        return o

    def respond(self, view, offer):
        return Response.REJECT


def run(s, a, b, rounds=20, seed=0):
    return Session(s.space, [a, b], list(s.utilities), Deadline(rounds=rounds), seed=seed).run()


def offers_of(result, party):
    return [e.outcome for e in result.trace if e.party == party and e.action is Action.OFFER]


def test_hardliner_only_offers_its_best_and_accepts_only_that(small):
    u0 = small.utilities[0]
    best = UtilityInverse(u0).best()
    worse = UtilityInverse(u0).at_least(0.5)
    r = run(small, Hardliner(), Script([worse, worse, best]), rounds=5)
    assert set(offers_of(r, 0)) == {best}
    # it turned `worse` down twice (countering with its best) and took `best`
    assert [e.action for e in r.trace if e.party == 0] == [Action.OFFER] * 3 + [Action.ACCEPT]
    assert r.agreement == best
    best1 = UtilityInverse(small.utilities[1]).best()
    r = run(small, Script([best1]), Hardliner(), rounds=5)
    assert r.agreement == best1 and r.steps == 2


def test_random_is_reproducible_from_the_seed_and_differs_across_seeds(small):
    a = offers_of(run(small, RandomNegotiator(0.0), Hardliner(), seed=3), 0)
    b = offers_of(run(small, RandomNegotiator(0.0), Hardliner(), seed=3), 0)
    c = offers_of(run(small, RandomNegotiator(0.0), Hardliner(), seed=4), 0)
    assert a == b and a != c
    assert len(set(a)) > 5


def test_random_offers_only_rational_outcomes():
    s = tradeoff(3, 5, seed=2, reservation=0.5)
    u0 = s.utilities[0]
    offers = offers_of(run(s, RandomNegotiator(0.0), Hardliner(), rounds=50), 0)
    assert offers and all(u0(o) >= 0.5 for o in offers)


def test_random_acceptance_probability_and_reservation():
    s = tradeoff(3, 5, seed=2, reservation=0.3)
    u1 = s.utilities[1]
    good = max(s.space, key=u1)
    bad = min(s.space, key=u1)
    assert run(s, Script([good]), RandomNegotiator(1.0)).agreement == good
    assert run(s, Script([good]), RandomNegotiator(0.0)).agreement is None
    assert run(s, Script([bad]), RandomNegotiator(1.0)).agreement is None  # below reservation
    with pytest.raises(ValueError, match=r"accept_probability must be in \[0, 1\], got 1.5"):
        RandomNegotiator(1.5)
    # with probability 0.5 it accepts some sessions and not others
    accepted = {run(s, Script([good]), RandomNegotiator(0.5), seed=k).steps for k in range(12)}
    assert len(accepted) > 1


def test_tit_for_tat_concedes_what_the_opponent_conceded_in_its_own_utility(small):
    u1 = small.utilities[1]  # tit-for-tat's own utility
    inv = UtilityInverse(u1)
    # the opponent's offers are worth 0.1, then 0.3, then 0.25 to tit-for-tat
    worth = [inv.at_least(x) for x in (0.1, 0.3, 0.25)]
    v = [u1(o) for o in worth]
    r = run(small, Script(worth), TitForTat(), rounds=4)
    mine = offers_of(r, 1)
    # after the opponent's k-th offer: target = top - (best so far - first)
    conceded = [0.0, max(v[:2]) - v[0], max(v) - v[0]]
    assert conceded[1] == conceded[2] > 0.15
    targets = [max(inv.min, inv.max - c) for c in conceded]
    assert mine[:3] == [inv.at_least(t) for t in targets]
    assert [u1(o) for o in mine[:3]] == sorted((u1(o) for o in mine[:3]), reverse=True)


def test_tit_for_tat_reciprocity_scales_the_concession(small):
    u1 = small.utilities[1]
    inv = UtilityInverse(u1)
    worth = [inv.at_least(0.1), inv.at_least(0.3)]
    gain = u1(worth[1]) - u1(worth[0])
    mine = offers_of(run(small, Script(worth), TitForTat(reciprocity=0.5), rounds=3), 1)
    assert mine[1] == inv.at_least(inv.max - 0.5 * gain)


def test_tit_for_tat_does_not_move_against_a_hardliner(small):
    r = run(small, Hardliner(), TitForTat(), rounds=10)
    best = UtilityInverse(small.utilities[1]).best()
    assert set(offers_of(r, 1)) == {best}
    assert r.agreement is None


def test_tit_for_tat_reaches_agreement_with_a_conceder(small):
    r = run(small, TitForTat(), Conceder(), rounds=50)
    assert r.agreement is not None


def test_tit_for_tat_parameters():
    with pytest.raises(ValueError, match="reciprocity must be >= 0"):
        TitForTat(reciprocity=-1)
    with pytest.raises(ValueError, match=r"initial concession must be in \[0, 1\]"):
        TitForTat(initial=2.0)
