"""A sandboxed entrant is a drop-in seat of the agent driver: same play as in-process
for a deterministic agent, and every way it can fail is a recorded failure."""

from __future__ import annotations

import json
from typing import Any

import pytest

from accord.agents.registry import get_agent
from accord.core.protocols.alternating import AOPRules
from accord.core.protocols.driver import AgentDriver
from accord.core.protocols.offers import NegotiatorSeat, OfferState, negotiation_views
from accord.core.protocols.result import SessionResult
from accord.core.protocols.ultimatum import UltimatumRules
from accord.drivers.seats import SandboxSeat
from accord.sandbox import AgentRaised, AgentTimeout, Limits

MODE = "process"  # the seat's contract does not depend on the OS sandbox (tests/sandbox has it)


def _play(rules: Any, sandboxed: bool, agent: str = "boulware") -> SessionResult:
    setup = rules.example()
    driver = AgentDriver(rules, setup, (), setup.names, seed=3)
    views = negotiation_views(driver.state)
    me = NegotiatorSeat(get_agent("conceder"), views[0], rules, setup.space)
    if sandboxed:
        other: Any = SandboxSeat.launch(
            rules, 1, agent, mode=MODE, limits=Limits(startup_timeout=60), timeout=30
        )
    else:
        other = NegotiatorSeat(get_agent(agent), views[1], rules, setup.space)
    driver.seats = (me, other)
    return driver.run()  # type: ignore[no-any-return]


@pytest.mark.parametrize("rules", [AOPRules(), UltimatumRules()], ids=["aop", "ultimatum"])
def test_a_sandboxed_agent_plays_as_it_does_in_process(rules: Any) -> None:
    inside = _play(rules, sandboxed=False)
    boxed = _play(rules, sandboxed=True)
    assert boxed.to_dict() | {"elapsed": 0} == inside.to_dict() | {"elapsed": 0}
    assert list(boxed.trace) == list(inside.trace)


class FakeBox:
    """A box answering ``act`` with what the test says (as a real one would carry it)."""

    def __init__(self, answer: Any) -> None:
        self.answer = answer
        self.closed = False

    def call(self, op: str, payload: Any, timeout: float | None = None) -> Any:
        json.dumps(payload)  # what crosses into the sandbox is JSON
        if op != "act":
            return None
        if isinstance(self.answer, BaseException):
            raise self.answer
        return self.answer

    def close(self) -> None:
        self.closed = True


def _with_box(answer: Any) -> tuple[SessionResult, FakeBox, OfferState]:
    rules = AOPRules()
    setup = rules.example()
    box = FakeBox(answer)
    driver = AgentDriver(rules, setup, (), setup.names)
    driver.seats = (
        SandboxSeat(rules, 0, box, "entrant"),
        SandboxSeat(rules, 1, FakeBox(None), "x"),
    )
    return driver.run(), box, driver.state


def test_an_answer_outside_legal_is_the_entrants_invalid_action() -> None:
    result, box, _ = _with_box({"kind": "accept", "args": {}})
    assert result.failure is not None
    assert (result.failure.party, result.failure.kind.value) == (0, "invalid")
    assert result.failure.message == "'accept' is not allowed now; allowed: offer, end"
    assert box.closed


def test_garbage_from_the_sandbox_is_refused_before_it_touches_the_play() -> None:
    result, _, state = _with_box({"kind": "offer", "args": {"food": "pizza", "price": 9}})
    assert result.failure is not None
    assert result.failure.message == "price must be in [1, 3]; got 9"
    assert state.steps == 0 and len(state.trace) == 0


def test_a_slow_sandbox_is_a_timeout_and_a_raising_one_an_exception() -> None:
    slow, _, _ = _with_box(AgentTimeout("no answer within 1 s"))
    assert slow.failure is not None
    assert (slow.failure.kind.value, slow.failure.message) == (
        "timeout",
        "act: no answer within 1 s",
    )
    raised, _, _ = _with_box(AgentRaised("ValueError: boom"))
    assert raised.failure is not None
    assert raised.failure.kind.value == "exception"
    assert raised.failure.message.startswith("AgentRaised: ")


def test_in_the_os_sandbox_the_play_is_the_same() -> None:
    from accord.sandbox import sandbox_available

    reason = sandbox_available()
    if reason is not None:
        pytest.skip(reason)
    global MODE
    old, MODE = MODE, "os"
    try:
        boxed = _play(AOPRules(), sandboxed=True)
    finally:
        MODE = old
    inside = _play(AOPRules(), sandboxed=False)
    assert list(boxed.trace) == list(inside.trace)
