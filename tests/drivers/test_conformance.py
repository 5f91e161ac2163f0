"""The conformance check runs over every protocol of the registry, and catches what it
claims to catch."""

from __future__ import annotations

import random
from typing import Any

import pytest
from drivers_helpers import WITH_RULES, rules_of

from accord.core.protocols.alternating import AOPRules
from accord.core.protocols.offers import OfferState
from accord.core.protocols.registry import TABLE, TableEntry, protocol_ids
from accord.drivers.replay import ConformanceError, check_rules

# Protocols of the table whose rules are not written yet (issue 24: the leagues port
# theirs). The test below fails when one of these gains rules (take it off the list)
# or when a protocol without rules is not on it.
NOT_YET_PORTED = {
    "colored-trails-oneshot-v1",
}


def test_every_protocol_of_the_table_is_known_by_id() -> None:
    assert {e.id for e in TABLE} <= set(protocol_ids())
    assert len(protocol_ids()) >= 8


def test_the_not_yet_ported_list_is_exact() -> None:
    without = {e.id for e in TABLE if e.rules is None}
    assert without == NOT_YET_PORTED


@pytest.mark.parametrize("entry", WITH_RULES, ids=[e.id for e in WITH_RULES])
def test_every_protocol_with_rules_conforms(entry: TableEntry) -> None:
    rules = rules_of(entry)
    assert rules.info.id == entry.id
    report = check_rules(rules)
    assert report.problems == []
    assert report.plays == 10
    assert report.steps >= 10


class Sloppy(AOPRules):
    """AOP with the bugs ``bugs`` names."""

    def __init__(self, *bugs: str) -> None:
        super().__init__()
        self.bugs = set(bugs)

    def apply(self, state: OfferState, party: int, action: Any, now: float) -> Any:
        if "mutates-then-raises" in self.bugs and action is not None:
            state.accepts += 1  # touched before the checks below may refuse
        return super().apply(state, party, action, now)

    def restore(self, data: Any) -> OfferState:
        if "loses-steps" in self.bugs:
            data = {**data, "steps": 0}
        return super().restore(data)

    def initial(self, setup: Any, seed: int) -> OfferState:
        state = super().initial(setup, seed)
        if "unseeded" in self.bugs:
            state.turn = random.randrange(2)  # noqa: S311 - the bug under test
        return state

    def result(self, state: OfferState) -> Any:
        if "early-result" in self.bugs and not state.over:
            return "already?"
        return super().result(state)

    def to_act(self, state: OfferState) -> tuple[int, ...]:
        if "to-act-list" in self.bugs and not state.over:
            return [state.turn]  # type: ignore[return-value]
        return super().to_act(state)


def _problems(*bugs: str) -> list[str]:
    return check_rules(Sloppy(*bugs), seeds=range(6)).problems


def test_the_check_passes_the_real_rules() -> None:
    assert check_rules(AOPRules()).ok


def test_a_state_changed_by_a_refused_action_is_caught() -> None:
    assert any("changed the state although refused" in p for p in _problems("mutates-then-raises"))


def test_a_lossy_serialize_is_caught() -> None:
    problems = _problems("loses-steps")
    assert any("restore(serialize(state)) serializes differently" in p for p in problems)


def test_a_result_before_the_end_is_caught() -> None:
    problems = _problems("early-result")
    assert problems[0].startswith("step 0: result() must be None exactly while someone is")
    assert problems[1].startswith("seed 0: AttributeError: 'str' object has no attribute")


def test_a_to_act_that_is_not_a_tuple_is_caught() -> None:
    assert any("to_act() must be a tuple" in p for p in _problems("to-act-list"))


def test_nondeterminism_is_caught() -> None:
    random.seed(1)
    problems = check_rules(Sloppy("unseeded"), seeds=range(20)).problems
    assert any("two plays with the same seed differ" in p for p in problems)


def test_raise_on_problem_lists_every_problem() -> None:
    with pytest.raises(ConformanceError, match=r"aop-v1: \d+ problem\(s\):\n- "):
        check_rules(Sloppy("early-result"), seeds=(0,), raise_on_problem=True)


@pytest.mark.parametrize("entry", WITH_RULES, ids=[e.id for e in WITH_RULES])
def test_offer_rules_conform_under_a_deadline_in_seconds(entry: TableEntry) -> None:
    from dataclasses import replace

    from accord.core import Deadline
    from accord.core.protocols.offers import OfferRules

    rules = rules_of(entry)
    if not isinstance(rules, OfferRules):
        pytest.skip(f"{entry.id} is not an offer protocol")
    setup = replace(rules.example(), deadline=Deadline(seconds=0.004))  # 4 actions' time
    report = check_rules(rules, setup)
    assert report.problems == []
    assert report.steps <= 4 * report.plays
