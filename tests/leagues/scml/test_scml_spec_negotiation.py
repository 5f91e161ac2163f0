"""Spec sections 3, 3.1, 3.2, 7.1 and A.1/Table 2: the negotiation protocol in the world.

Random first proposer (both propose in round one), walking away, invalid offers, single
valued (non-negotiable) issues, the per-offer, per-negotiation and per-world time limits,
the negotiation quota b x h and the horizon percentage of A.1.
"""

from __future__ import annotations

import time
from dataclasses import replace

from scml_spec_helpers import Fixed, Scripted, bare_world

from accord.core import Negotiator, NegotiatorView, Outcome, Response
from accord.leagues.scml.agents import DoNothingAgent
from accord.leagues.scml.contracts import Agenda
from accord.leagues.scml.generate import generate_config
from accord.leagues.scml.negotiation import outcome_space
from accord.leagues.scml.params import SimulationParams
from accord.leagues.scml.world import World

CATALOG = [10, 20, 40]


def _pair(requester_neg, partner_neg, n: int = 1, **params):
    """A (level 0) asks B (level 1) for ``n`` sell negotiations on day 0 (before_step)."""

    def ask(agent: Scripted) -> None:
        for _ in range(n):
            agent.awi.request_negotiation(
                False, 1, 1, (1, 100), 1, agent.awi.my_consumers[0], requester_neg()
            )

    a, b = Scripted({("before_step", 0): ask}), Scripted()
    b.respond_to_negotiation_request = lambda initiator, agenda: partner_neg()
    w = bare_world([a, b], [1, 1], [1000, 1000], [2, 3], 4, (), CATALOG, **params)
    return w, a, b


def test_both_parties_propose_first_and_one_proposal_is_drawn_at_random():
    # A always offers price 100, B price 1; both accept anything: the agreement is the
    # proposal drawn to open the negotiation
    w, a, _ = _pair(lambda: Fixed((100, 1, 1)), lambda: Fixed((1, 1, 1)), 40, negotiation_quota=40)
    w.step()
    prices = [args[0].unit_price for _, args in a.calls("on_negotiation_success")]
    assert len(prices) == 40 and set(prices) == {1, 100}
    assert 8 <= prices.count(100) <= 32  # both parties open about as often
    again, a2, _ = _pair(
        lambda: Fixed((100, 1, 1)), lambda: Fixed((1, 1, 1)), 40, negotiation_quota=40
    )
    again.step()
    assert [args[0].unit_price for _, args in a2.calls("on_negotiation_success")] == prices


class Leaver(Negotiator):
    """Walks away at its first chance."""

    def propose(self, view: NegotiatorView) -> Outcome | None:
        return None

    def respond(self, view: NegotiatorView, offer: Outcome) -> Response:
        return Response.END


def test_walking_away_ends_without_agreement():
    w, a, b = _pair(lambda: Fixed((50, 1, 1)), Leaver)
    w.step()
    assert a.calls("on_negotiation_success") == []
    assert [args[1] for _, args in a.calls("on_negotiation_failure")] == ["walkaway"]
    assert [args[1] for _, args in b.calls("on_negotiation_failure")] == ["walkaway"]
    assert not [c for c in w.book.contracts.values() if not c.exogenous]


def test_an_offer_outside_the_agenda_fails_the_negotiation():
    w, a, _ = _pair(lambda: Fixed((500, 1, 1), accept=False), lambda: Fixed((500, 1, 1)))
    w.step()
    ((_, (partner, reason)),) = a.calls("on_negotiation_failure")
    assert partner == w.names[1] and reason.startswith("failure: invalid offer")


def test_single_values_are_non_negotiable_and_offers_are_integer_triples():
    agenda = Agenda(False, "a", "b", 1, (7, 7), (1, 3), (2, 2))
    space = outcome_space(agenda)
    assert [(i.name, i.lower, i.upper) for i in space.issues] == [
        ("unit_price", 7, 7),
        ("quantity", 1, 3),
        ("time", 2, 2),
    ]
    assert space.cardinality == 3
    assert [space.outcome_at(k) for k in range(3)] == [(7, 1, 2), (7, 2, 2), (7, 3, 2)]
    assert space.is_valid((7, 2, 2)) and not space.is_valid((8, 2, 2))
    assert agenda.contains((7, 2, 2)) and not agenda.contains((8, 2, 2))
    assert (agenda.buyer, agenda.seller, agenda.n_outcomes) == ("b", "a", 3)


class Slow(Fixed):
    def __init__(self, pause: float, accept: bool = False) -> None:
        super().__init__((50, 1, 1), accept)
        self.pause = pause

    def propose(self, view: NegotiatorView) -> Outcome | None:
        time.sleep(self.pause)
        return super().propose(view)

    def respond(self, view: NegotiatorView, offer: Outcome) -> Response:
        time.sleep(self.pause)
        return super().respond(view, offer)


def test_offer_time_limit_ends_a_negotiation_with_a_slow_party():
    w, a, _ = _pair(lambda: Slow(0.03), lambda: Fixed((50, 1, 1)), neg_step_time_limit=0.01)
    w.step()
    ((_, (_, reason)),) = a.calls("on_negotiation_failure")
    assert reason.startswith("failure: propose took") and "the limit is 0.010 s" in reason


def test_negotiation_time_limit_ends_a_long_negotiation():
    w, a, b = _pair(
        lambda: Slow(0.004), lambda: Fixed((50, 1, 1), accept=False), neg_time_limit=0.02
    )
    w.step()
    assert [args[1] for _, args in a.calls("on_negotiation_failure")] == ["timeout"]
    assert [args[1] for _, args in b.calls("on_negotiation_failure")] == ["timeout"]


def test_total_simulation_time_limit_stops_the_world():
    cfg = generate_config(n_steps=10, factories_per_level=[2, 2], seed=0)
    cfg = replace(cfg, params=SimulationParams(time_limit=0.0))
    w = World(cfg, [DoNothingAgent] * 4).run()
    assert (w.day, w.ended_early) == (1, True)


def test_negotiation_quota_is_partners_times_horizon_and_limits_requests():
    cfg = generate_config(n_steps=20, factories_per_level=[2, 3], seed=2)
    w = World(cfg, [DoNothingAgent] * 5)
    h = cfg.horizon
    assert h >= 2
    assert w.negotiations.quota.tolist() == [3 * h, 3 * h, 2 * h, 2 * h, 2 * h]  # b x h (Table 2)
    assert [ag.awi.quota_left for ag in w.agents] == w.negotiations.quota.tolist()

    def ask(agent: Scripted) -> list[bool]:
        p = agent.awi.my_consumers[0]
        return [agent.awi.request_negotiation(False, 1, 1, 20, 3, p, Fixed(None)) for _ in range(3)]

    a, b = Scripted(), Scripted()
    w = bare_world([a, b], [1, 1], [1000, 1000], [2, 3], 6, (), CATALOG, negotiation_quota=2)
    assert ask(a) == [True, True, False] and a.awi.quota_left == 0
    w.step()
    assert a.awi.quota_left == 2  # a new day, a new quota


def test_a_refused_request_registers_nothing():
    a, b = Scripted(), DoNothingAgent()
    w = bare_world([a, b], [1, 1], [1000, 1000], [2, 3], 6, (), CATALOG)
    ok = a.awi.request_negotiation(False, 1, 1, 20, 3, w.names[1], Fixed(None))
    assert (
        ok is False and w.negotiations.pending == [] and a.awi.quota_left == w.negotiations.quota[0]
    )


def test_horizon_is_a_fraction_of_the_days_as_in_appendix_a1():
    # "a value of 10% in a 500 day game means ... at most 50 days in the future"
    params = SimulationParams(horizon_range=(0.1, 0.1))
    cfg = generate_config(n_steps=500, factories_per_level=[2, 2], seed=1, params=params)
    assert cfg.horizon == 50
    ex = cfg.exogenous
    assert int((ex.delivery - ex.reveal).max()) == 50
    assert ((ex.delivery - ex.reveal == 50) | (ex.reveal == 0)).all()
