"""The NegMAS bridge: views built from Accord's view only, actions mapped back, failures
contained, the registry and the missing-extra error."""

from __future__ import annotations

import gc
import sys
import types
from typing import Any

import pytest
from bridge_data import NO_EXTRA, genius

negmas = pytest.importorskip("negmas", reason=NO_EXTRA)

from negmas.gb.common import ResponseType  # noqa: E402
from negmas.sao import AspirationNegotiator, SAONegotiator, SAOResponse  # noqa: E402

from accord.agents import Boulware, Conceder, check_negotiator, get_agent  # noqa: E402
from accord.bridges.negmas import (  # noqa: E402
    MissingExtra,
    NegmasNegotiator,
    adapt_class,
    require_negmas,
)
from accord.core import Deadline, Session  # noqa: E402
from accord.core.errors import ConfigError  # noqa: E402
from accord.formats import load_scenario  # noqa: E402


class Recorder(SAONegotiator):
    """Offers its best outcome, accepts above 0.8, and records every state it is given."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.states: list[Any] = []

    def propose(self, state: Any, dest: str | None = None) -> Any:
        self.states.append(state)
        return self.ufun.best()

    def respond(self, state: Any, source: str | None = None) -> ResponseType:
        self.states.append(state)
        if self.ufun(state.current_offer) >= 0.8:
            return ResponseType.ACCEPT_OFFER
        return ResponseType.REJECT_OFFER


class Scripted(SAONegotiator):
    """Answers every call with one fixed NegMAS response (or raises)."""

    def __init__(self, answer: Any = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.answer = answer

    def propose(self, state: Any, dest: str | None = None) -> Any:
        return self.ufun.best()

    def __call__(self, state: Any, dest: str | None = None) -> SAOResponse:
        if isinstance(self.answer, Exception):
            raise self.answer
        if self.answer == "bad-offer":
            return SAOResponse(ResponseType.REJECT_OFFER, ("not", "an", "outcome"))
        return SAOResponse(self.answer, self.ufun.best())


@pytest.fixture(scope="module")
def charms() -> Any:
    return load_scenario(genius("anac2013_DefensiveCharms"))


def _reachable(root: Any) -> list[Any]:
    """Every object reachable from ``root`` (not descending into modules, classes or code)."""
    skip = (types.ModuleType, type, types.FunctionType, types.CodeType, types.BuiltinFunctionType)
    seen: dict[int, Any] = {}
    stack = [root]
    while stack:
        obj = stack.pop()
        if id(obj) in seen or isinstance(obj, skip):
            continue
        seen[id(obj)] = obj
        stack.extend(gc.get_referents(obj))
    return list(seen.values())


def test_nothing_of_another_party_is_reachable_from_the_negmas_negotiator(charms: Any) -> None:
    bridged = NegmasNegotiator(Recorder())
    other = Boulware()
    session = Session(charms.space, [bridged, other], charms.utilities, Deadline(rounds=20), seed=0)
    session.step()  # started: the NegMAS negotiator has joined its view
    session.step()
    seen = {id(o) for o in _reachable(bridged.negmas)}
    mine = charms.utilities[0]
    assert id(mine) in seen  # its own utility is there (the traversal works)
    assert id(charms.utilities[1]) not in seen
    assert id(other) not in seen
    assert id(session) not in seen
    assert id(session.views[1]) not in seen
    # what its interface answers is built from its own view
    nmi = bridged.negmas.nmi
    assert nmi.n_negotiators == 2 and nmi.negotiator_ids[0] == bridged.negmas.id
    with pytest.raises(Exception, match="only its own utility"):
        _ = nmi.full_trace_with_utils


def test_the_negmas_view_follows_the_accord_view(charms: Any) -> None:
    rec = Recorder()
    bridged = NegmasNegotiator(rec, time_base="accord")
    result = Session(
        charms.space, [Conceder(), bridged], charms.utilities, Deadline(rounds=10), seed=0
    ).run()
    assert result.failure is None
    assert rec.states, "the NegMAS negotiator was called"
    first = rec.states[0]
    assert first.step == 0 and first.relative_time == pytest.approx(1 / 20)
    assert first.current_offer == result.trace[0].outcome
    assert first.n_acceptances == 1  # the proposer, by offering
    u = bridged.negmas.ufun
    o = result.trace[0].outcome
    assert u(o) == pytest.approx(charms.utilities[1](o), abs=1e-12)
    assert u.reserved_value == charms.utilities[1].reservation
    assert bridged.negmas.nmi is None  # on_end told it the negotiation ended


def test_deadline_rounds_tell_the_negotiator_nmi_n_steps(charms: Any) -> None:
    rec = Recorder()
    bridged = NegmasNegotiator(rec, time_base="negmas", deadline_rounds=10)
    Session(charms.space, [bridged, Boulware()], charms.utilities, Deadline(rounds=10)).run()
    assert [s.relative_time for s in rec.states[:2]] == [1 / 11, 2 / 11]


@pytest.mark.parametrize(
    ("answer", "reason", "kind"),
    [
        (ResponseType.END_NEGOTIATION, "walkaway", None),
        (ResponseType.LEAVE, "walkaway", None),
        (ResponseType.WAIT, "failure", "invalid"),
        (ResponseType.NO_RESPONSE, "failure", "invalid"),
        (RuntimeError("boom"), "failure", "exception"),
        ("bad-offer", "failure", "invalid"),
    ],
    ids=["end", "leave", "wait", "no-response", "exception", "bad-offer"],
)
def test_answers_are_mapped_and_failures_contained(
    charms: Any, answer: Any, reason: str, kind: str | None
) -> None:
    bridged = NegmasNegotiator(Scripted(answer))
    result = Session(
        charms.space, [Boulware(), bridged], charms.utilities, Deadline(rounds=10), seed=0
    ).run()
    assert result.reason.value == reason
    assert result.ended_by == 1
    if kind is not None:
        assert result.failure is not None and result.failure.party == 1
        assert result.failure.kind.value in (kind, "exception")
        if answer in (ResponseType.WAIT, ResponseType.NO_RESPONSE):
            assert answer.name in result.failure.message


def test_registry_builds_negmas_classes_with_their_parameters() -> None:
    neg = get_agent("negmas.sao:AspirationNegotiator", max_aspiration=0.9, time_base="negmas")
    assert isinstance(neg, NegmasNegotiator)
    assert isinstance(neg.negmas, AspirationNegotiator) and neg.time_base == "negmas"
    with pytest.raises(ConfigError, match="time_base"):
        get_agent("negmas.sao:AspirationNegotiator", time_base="wall")
    with pytest.raises(ConfigError, match="not a NegMAS SAO negotiator"):
        adapt_class(int)


def test_a_negmas_agent_passes_the_conformance_check_multilateral_included() -> None:
    report = check_negotiator(adapt_class(AspirationNegotiator), rounds=15)
    assert report.sessions == 9
    assert any(label == "multilateral" for label, _ in report.results)


def test_without_negmas_the_error_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "negmas", None)  # import negmas now fails
    # the hint works from a clone (no index serves 'accord[negmas]')
    with pytest.raises(MissingExtra, match=r"pip install '\.\[negmas\]' \(in the Accord clone\)"):
        require_negmas()
    monkeypatch.setitem(sys.modules, "negmas_negolog", None)
    with pytest.raises(ConfigError, match=r"pip install '\.\[negmas\]'"):
        get_agent("negmas_negolog:BoulwareAgent")


def test_a_negmas_class_that_cannot_play_is_refused_before_it_is_built() -> None:
    reasons = {
        "negmas.sao:SAONegotiator": "is a base class: propose() is abstract",
        "negmas.sao:SAOState": "is not a NegMAS SAO negotiator",
        # no abstract method, but ABC among its own bases: every session would fail
        "negmas_negolog:NegologNegotiatorWrapper": "is a base class: it derives from ABC",
    }
    for path, reason in reasons.items():
        with pytest.raises(ConfigError, match="cannot play") as info:
            get_agent(path)
        assert path in str(info.value) and "--package" in str(info.value)
        assert reason in str(info.value)


def test_base_classes_are_not_listed_as_agents_and_their_subclasses_are() -> None:
    from accord.agents.registry import agents_in_package
    from accord.bridges.negmas import why_not

    pytest.importorskip("negmas_negolog", reason=NO_EXTRA)
    from negmas_negolog.common import NegologNegotiatorWrapper

    found = agents_in_package("negmas_negolog")
    assert "NegologNegotiatorWrapper" not in found
    assert len(found) >= 20 and "BoulwareAgent" in found
    assert why_not(NegologNegotiatorWrapper) is not None
    # every listed class is one the bridge runs
    assert all(why_not(cls.negmas_class) is None for cls in found.values())


def test_a_negmas_agent_on_a_space_too_big_to_enumerate_fails_alone_at_start() -> None:
    # 10^10 outcomes (the ANAC 2014 size): a ported agent that enumerates the space would
    # take tens of GB; the bridge fails it at start, the session and process go on.
    from accord.core.outcomes import IntegerIssue, OutcomeSpace
    from accord.core.utilities import LinearAdditiveUtility

    space = OutcomeSpace([IntegerIssue(f"i{k}", 0, 9) for k in range(10)])
    up = LinearAdditiveUtility(space, [1.0] * 10, [{v: v / 9 for v in range(10)}] * 10)
    down = LinearAdditiveUtility(space, [1.0] * 10, [{v: 1 - v / 9 for v in range(10)}] * 10)
    agent = get_agent("negmas_genius_agents:HardHeaded")
    result = Session(space, [agent, Boulware()], [up, down], Deadline(rounds=10), seed=0).run()
    assert result.failure is not None and result.failure.party == 0
    assert "10000000000 outcomes" in result.failure.message
    assert "max_outcomes" in result.failure.message
    opened = get_agent("negmas_genius_agents:HardHeaded", max_outcomes=None)
    assert opened.max_outcomes is None  # the explicit open mode
