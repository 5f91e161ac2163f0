"""The one offer-negotiator host, driven in this process behind a JSON round trip (what
the sandbox's channel carries): a seat of the agent driver plays exactly as the
negotiator in-process, and a call out of order is one clear error. (In a real sandbox:
tests/drivers/test_sandbox_seat.py and the tournament's tests/sandbox.)"""

from __future__ import annotations

import gc
import json
from typing import Any

import pytest

from accord.agents.registry import get_agent
from accord.core.errors import StateError, UsageError
from accord.core.protocols.alternating import AOPRules
from accord.core.protocols.driver import AgentDriver
from accord.core.protocols.offers import NegotiatorSeat, negotiation_views
from accord.core.protocols.result import SessionResult
from accord.core.protocols.ultimatum import UltimatumRules
from accord.drivers.negotiator_host import OfferNegotiatorHost
from accord.drivers.seats import SandboxSeat
from accord.sandbox import HostContext


def _json(x: Any) -> Any:
    return json.loads(json.dumps(x))


class JsonBox:
    """The host behind a JSON round trip each way, in this process."""

    def __init__(self, agent: str) -> None:
        self.host = OfferNegotiatorHost(agent, HostContext(agent, ".", None, lambda n, a: None))
        gc.unfreeze()  # the host freezes what exists at its start (its own process's)

    def call(self, op: str, payload: Any, timeout: float | None = None) -> Any:
        return _json(self.host.handle(op, _json(payload)))

    def close(self) -> None:
        pass


def _play(rules: Any, hosted: bool) -> SessionResult:
    setup = rules.example()
    driver = AgentDriver(rules, setup, (), setup.names, seed=3)
    views = negotiation_views(driver.state)
    me = NegotiatorSeat(get_agent("conceder"), views[0], rules, setup.space)
    if hosted:
        other: Any = SandboxSeat(rules, 1, JsonBox("boulware"), "boulware")
    else:
        other = NegotiatorSeat(get_agent("boulware"), views[1], rules, setup.space)
    driver.seats = (me, other)
    return driver.run()  # type: ignore[no-any-return]


@pytest.mark.parametrize("rules", [AOPRules(), UltimatumRules()], ids=["aop", "ultimatum"])
def test_a_seat_on_the_host_plays_as_the_negotiator_in_process(rules: Any) -> None:
    inside = _play(rules, hosted=False)
    hosted = _play(rules, hosted=True)
    assert hosted.to_dict() | {"elapsed": 0} == inside.to_dict() | {"elapsed": 0}
    assert list(hosted.trace) == list(inside.trace)
    assert len(inside.trace) > 1


def test_a_call_out_of_order_or_unknown_is_one_clear_error() -> None:
    box = JsonBox("boulware")
    with pytest.raises(StateError, match="^the play has not started: act before start$"):
        box.call("act", {"observation": {"offers": []}, "legal": {"actions": []}})
    with pytest.raises(UsageError, match="^unknown op 'exec'; expected check, start, propose"):
        box.call("exec", {"sid": 1, "state": (0.0, 0, 0, None, 0, [])})
    with pytest.raises(StateError, match="^session 7 has not started here$"):
        box.call("propose", {"sid": 7, "state": (0.0, 0, 0, None, 0, [])})


def test_a_profile_sent_pickled_to_many_sessions_is_one_object_while_they_live() -> None:
    """The tournament's batches send a profile pickled once for all its sessions: the
    host unpickles it once (its inverse then serves every session, as in-process), and
    forgets it when it holds no session."""
    import pickle

    from accord.core.protocols.result import EndReason
    from accord.formats import load_scenario
    from accord.tournament.config import AgentSpec

    host = JsonBox("boulware").host
    sc = load_scenario("lunch")
    mine, other = (pickle.dumps(u) for u in sc.utilities)
    state = (0.0, 0, 0, None, -1)

    def start(sid: int, utility: bytes) -> list[Any]:
        arg = {"spec": AgentSpec("B", "boulware"), "utility": utility, "memory": None,
               "index": 0, "names": ("B", "X"), "rng": (sid, 0), "deadline": None, "cpu": 60.0}  # fmt: skip
        return ["start", sid, state, (), arg]

    out = host._batch([start(1, mine), start(2, mine), start(3, other)])
    assert [e[1] for e in out] == [0, 0, 0]
    views = {sid: host.sessions[sid][1] for sid in (1, 2, 3)}
    assert views[1].utility is views[2].utility is not views[3].utility
    assert views[1].utility.space.names == sc.space.names
    result = pickle.dumps(
        SessionResult(None, EndReason.DEADLINE, None, 1.0, 0, 0, 0.0, (0.0, 0.0), ("B", "X"))
    )
    host._batch([["end", sid, state, (), result] for sid in (1, 2)])
    assert len(host.utilities) == 2  # session 3 still lives
    host._batch([["end", 3, state, (), result]])
    assert host.utilities == {}
