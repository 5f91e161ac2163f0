"""The reverse direction: Accord agents inside NegMAS's ``SAOMechanism`` and tournaments."""

from __future__ import annotations

import warnings
from typing import Any

import pytest
from bridge_data import NO_EXTRA, genius

negmas = pytest.importorskip("negmas", reason=NO_EXTRA)

from negmas.inout import Scenario as NegmasScenario  # noqa: E402
from negmas.preferences import ExpDiscountedUFun  # noqa: E402
from negmas.sao import AspirationNegotiator, NaiveTitForTatNegotiator, SAOMechanism  # noqa: E402

from accord.agents import Boulware  # noqa: E402
from accord.bridges.negmas.reverse import (  # noqa: E402
    AccordSAONegotiator,
    accord_space,
    accord_utility,
    as_negmas,
)
from accord.core.negotiator import Negotiator, Response  # noqa: E402

ROUNDS = 30


def negmas_scenario(folder: str) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return NegmasScenario.from_genius_folder(genius(folder), ignore_discount=True)


def run(mechanism: Any) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return mechanism.run()


def test_an_accord_agent_plays_in_negmas_sao_mechanism_on_a_real_scenario() -> None:
    sc = negmas_scenario("anac2013_DefensiveCharms")
    m = SAOMechanism(outcome_space=sc.outcome_space, n_steps=ROUNDS)
    ours = AccordSAONegotiator(agent="boulware")
    m.add(ours, preferences=sc.ufuns[0])
    m.add(AspirationNegotiator(), preferences=sc.ufuns[1])
    state = run(m)
    assert not state.has_error, state.error_details
    assert isinstance(ours.accord, Boulware)
    mine = [tuple(o) for _, nid, o in m.extended_trace if nid == ours.id]
    assert len(mine) >= 2
    best = max(sc.outcome_space.enumerate(), key=lambda o: float(sc.ufuns[0](o)))
    assert mine[0] == tuple(best)  # a Boulware agent opens with its best outcome
    u = [float(sc.ufuns[0](o)) for o in mine]
    assert u == sorted(u, reverse=True)  # and concedes monotonically on its own utility
    view = ours._view
    assert view is not None and view.deadline is not None
    assert view.deadline.rounds == ROUNDS  # it knew NegMAS's deadline
    assert view.names[view.index] == ours.id


def test_the_accord_utility_is_the_negmas_one_on_every_outcome() -> None:
    sc = negmas_scenario("anac2011_Grocery")
    space = accord_space(sc.outcome_space)
    assert space.cardinality == sc.outcome_space.cardinality
    plain = accord_utility(sc.ufuns[0], space)
    discounted = ExpDiscountedUFun(
        ufun=sc.ufuns[1], discount=0.8, factor="relative_time", outcome_space=sc.outcome_space
    )
    converted = accord_utility(discounted, space)
    assert converted.discount == 0.8 and plain.discount is None
    for o in space:
        assert plain(o) == pytest.approx(float(sc.ufuns[0](o)), abs=1e-12)
        assert converted(o) == pytest.approx(float(sc.ufuns[1](o)), abs=1e-12)


class Quitter(Negotiator):
    """Ends at once when asked to respond; opens with its best outcome."""

    def propose(self, view: Any) -> Any:
        return view.best_outcome

    def respond(self, view: Any, offer: Any) -> Response:
        return Response.END


def test_accord_answers_map_to_negmas_responses() -> None:
    sc = negmas_scenario("anac2013_DefensiveCharms")
    m = SAOMechanism(outcome_space=sc.outcome_space, n_steps=ROUNDS)
    m.add(AspirationNegotiator(), preferences=sc.ufuns[0])
    m.add(AccordSAONegotiator(agent=f"{__name__}:Quitter"), preferences=sc.ufuns[1])
    state = run(m)
    assert state.broken and state.agreement is None and not state.has_error


def test_accord_agents_in_a_negmas_tournament() -> None:
    """NegMAS's own ``cartesian_tournament`` with two Accord agents among its competitors:
    every negotiation runs without an error and the Accord strategies are scored."""
    from negmas.tournaments.neg import cartesian_tournament

    scenarios = [negmas_scenario("anac2013_DefensiveCharms"), negmas_scenario("anac2012_LaptopB")]
    scenarios = [s for s in scenarios if len(s.ufuns) == 2] or scenarios[:1]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        results = cartesian_tournament(
            competitors=[
                as_negmas("boulware"),
                AccordSAONegotiator,
                AspirationNegotiator,
                NaiveTitForTatNegotiator,
            ],  # fmt: skip
            competitor_params=[{}, {"agent": "conceder"}, {}, {}],
            scenarios=scenarios,
            n_steps=ROUNDS,
            n_repetitions=1,
            njobs=-1,  # serial, in this process
            verbosity=0,
        )
    details = results.details
    assert len(details) >= 4 * 4 * len(scenarios) // 2
    assert not details["has_error"].any(), details[details["has_error"]].to_dict("records")[:2]
    strategies = set(results.final_scores["strategy"])
    assert any("Boulware" in s for s in strategies)
    assert any("conceder" in s for s in strategies)
    assert details["agreement"].notna().any()


def test_as_negmas_makes_a_class_with_the_parameters_bound() -> None:
    cls = as_negmas("accord.agents.timebased:TimeDependent", exponent=0.1)
    neg = cls()
    assert neg.accord.exponent == 0.1 and cls.__name__.startswith("Accord")
    names = [cls().accord_agent for _ in range(2)]
    assert names == ["accord.agents.timebased:TimeDependent"] * 2
