"""The same session in Accord (through the bridge) and in NegMAS's own SAO mechanism.

NegMAS's deterministic built-ins (time-based concession, tit-for-tat, the tough one) are
played on real GENIUS scenarios in an Accord ``Session`` and in ``negmas.sao.SAOMechanism``
with the same utilities; the offers (who offered what, in order) and the agreement must
be the same. Where the two platforms' rules differ, the test says how it lines them up:

* **time base**: NegMAS's ``relative_time`` is ``(step + 1) / (n_steps + 1)`` with a
  step = a round; Accord's ``t`` is actions / (rounds x parties). The Accord side runs
  with ``time_base="negmas"`` and the deadline in rounds, so the agents see NegMAS's time.
* **who starts**: both let the first party in the list propose first (Accord's
  ``first=0``, NegMAS's order of ``add``).
* **discounting**: Accord discounts on its ``t`` at the moment of the action; NegMAS's
  ``ExpDiscountedUFun`` on a state field. The NegMAS side is given Accord's rule
  (party ``k`` acting in round ``r`` is at ``t = (r * n + k) / (rounds * n)``). Accord
  calls ``on_start`` at ``t = 0`` for everyone, NegMAS evaluates that rule at round 0, so a
  time-based agent that sorts its discounted utilities at the start is put first.
* **scenario reading**: NegMAS's own GENIUS reader keeps raw evaluations (up to 9.0 on
  DefensiveCharms) where the spec normalises them per issue; both sides get the
  utilities as Accord reads them (converted by the bridge), so the protocol is compared,
  not the readers.
"""

from __future__ import annotations

import warnings
from typing import Any

import pytest
from bridge_data import NO_EXTRA, genius

negmas = pytest.importorskip("negmas", reason=NO_EXTRA)

from negmas import sao  # noqa: E402

from accord.bridges.negmas import adapt_class, outcome_space, utility  # noqa: E402
from accord.bridges.negmas.convert import Clock  # noqa: E402
from accord.core import Deadline, Session  # noqa: E402
from accord.formats import load_scenario  # noqa: E402

ROUNDS = 40


class AccordTime:
    """Accord's normalised time for party ``k`` in a NegMAS state (its discount exponent)."""

    def __init__(self, k: int, parties: int, rounds: int) -> None:
        self.k, self.n, self.rounds = k, parties, rounds

    def __call__(self, state: Any) -> float:
        return min(1.0, (state.step * self.n + self.k) / (self.rounds * self.n))


def accord_session(scenario: Any, names: list[str], rounds: int, time_base: str) -> Any:
    negotiators = [
        adapt_class(getattr(sao, n))(time_base=time_base, deadline_rounds=rounds) for n in names
    ]
    return Session(
        scenario.space, negotiators, scenario.utilities, Deadline(rounds=rounds), seed=0
    ).run()


def negmas_session(scenario: Any, names: list[str], rounds: int) -> tuple[Any, list[Any]]:
    os = outcome_space(scenario.space)
    mechanism = sao.SAOMechanism(outcome_space=os, n_steps=rounds)
    n = len(names)
    for k, (name, u) in enumerate(zip(names, scenario.utilities, strict=True)):
        ufun = utility(u, os, Clock())
        if u.discount is not None:
            ufun.factor = AccordTime(k, n, rounds)
        mechanism.add(getattr(sao, name)(), preferences=ufun)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        mechanism.run()
    ids = [neg.id for neg in mechanism.negotiators]
    offers = [(ids.index(nid), tuple(o)) for _, nid, o in mechanism.extended_trace]
    return mechanism, offers


def offers_of(result: Any) -> list[tuple[int, Any]]:
    return [(e.party, e.outcome) for e in result.trace if e.action.name == "OFFER"]


CASES = [
    ("anac2013_DefensiveCharms", ["AspirationNegotiator", "NaiveTitForTatNegotiator"]),
    ("anac2013_DefensiveCharms", ["ConcederTBNegotiator", "SimpleTitForTatNegotiator"]),
    ("anac2011_Grocery", ["ConcederTBNegotiator", "NaiveTitForTatNegotiator"]),  # discounted
    ("anac2011_Grocery", ["LinearTBNegotiator", "ToughNegotiator"]),  # discounted
    ("y2012_FitnessA", ["ConcederTBNegotiator", "SimpleTitForTatNegotiator"]),  # discounted
    ("anac2013_Animal", ["BoulwareTBNegotiator", "NaiveTitForTatNegotiator"]),  # discounted
    (
        "anac2015_dinner_3party",
        ["BoulwareTBNegotiator", "ConcederTBNegotiator", "AspirationNegotiator"],
    ),
    (
        "anac2015_dinner_3party",
        ["ConcederTBNegotiator", "NaiveTitForTatNegotiator", "LinearTBNegotiator"],
    ),
]


@pytest.mark.parametrize(
    ("folder", "names"),
    CASES,
    ids=lambda v: v if isinstance(v, str) else "-".join(n[:8] for n in v),
)
def test_accord_and_negmas_make_the_same_offers_and_agreement(
    folder: str, names: list[str]
) -> None:
    scenario = load_scenario(genius(folder))
    assert scenario.n_parties == len(names)
    result = accord_session(scenario, names, ROUNDS, "negmas")
    mechanism, offers = negmas_session(scenario, names, ROUNDS)
    assert result.failure is None
    assert offers_of(result) == offers
    assert result.agreement == mechanism.agreement
    if result.agreement is None:
        assert result.reason.value == "deadline" and mechanism.state.timedout


def test_the_discounted_scenario_is_discounted_and_the_rule_matters() -> None:
    """FitnessA is discounted: without Accord's time rule on the NegMAS side the sessions
    part ways, so the case above really compares the discounting."""
    scenario = load_scenario(genius("y2012_FitnessA"))
    assert all(u.discount is not None for u in scenario.utilities)
    names = ["BoulwareTBNegotiator", "ConcederTBNegotiator"]
    result = accord_session(scenario, names, ROUNDS, "negmas")
    os = outcome_space(scenario.space)
    mechanism = sao.SAOMechanism(outcome_space=os, n_steps=ROUNDS)
    for name, u in zip(names, scenario.utilities, strict=True):
        mechanism.add(getattr(sao, name)(), preferences=utility(u, os, Clock()))  # t stays 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        mechanism.run()
    assert len(offers_of(result)) != len(mechanism.extended_trace)


def test_on_accords_time_base_the_agents_concede_on_accords_clock() -> None:
    """With the default time base the NegMAS agent sees Accord's t, so a time-based agent
    reaches its lowest aspiration at Accord's deadline, not at NegMAS's (rounds/(rounds+1))."""
    scenario = load_scenario(genius("anac2013_DefensiveCharms"))
    names = ["LinearTBNegotiator", "ToughNegotiator"]
    ours = accord_session(scenario, names, ROUNDS, "accord")
    theirs = accord_session(scenario, names, ROUNDS, "negmas")
    assert ours.failure is None and theirs.failure is None
    u = scenario.utilities[0]
    mine_ours = [u(o) for p, o in offers_of(ours) if p == 0]
    mine_theirs = [u(o) for p, o in offers_of(theirs) if p == 0]
    assert len(mine_ours) == len(mine_theirs) == ROUNDS
    # Accord's t starts at 0 (NegMAS's at 1/(rounds+1)) and ends lower: concessions come
    # no earlier on Accord's clock at the start, and reach further by the end
    assert mine_ours[0] >= mine_theirs[0]
    assert min(mine_ours) <= min(mine_theirs)
    assert mine_ours != mine_theirs
