"""Real-time deadlines: a session ends at its deadline, late actions do not count, an
action is discounted at the time it arrived, and the trace stays compact."""

from __future__ import annotations

import time
import tracemalloc

import pytest

from accord.agents.simple import Hardliner
from accord.core import Deadline, Session
from accord.core.negotiator import Negotiator, NegotiatorView, Response
from accord.core.outcomes import Outcome
from accord.core.protocols.tracelog import TraceLog
from accord.formats import load_scenario


class SlowAccepter(Negotiator):
    """Offers its best outcome; accepts anything, after sleeping ``seconds``."""

    def __init__(self, seconds: float) -> None:
        super().__init__()
        self.seconds = seconds

    def propose(self, view: NegotiatorView) -> Outcome | None:
        return view.best_outcome

    def respond(self, view: NegotiatorView, offer: Outcome) -> Response:
        time.sleep(self.seconds)
        return Response.ACCEPT


def test_a_timed_session_ends_at_its_deadline_with_a_compact_trace() -> None:
    sc = load_scenario("holiday")
    agents = [Hardliner(), Hardliner(), Hardliner()]
    session = Session(sc.space, agents, sc.utilities, Deadline(seconds=2.0), seed=0)
    tracemalloc.start()
    t0 = time.perf_counter()
    result = session.run()
    wall = time.perf_counter() - t0
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert result.reason.value == "deadline"
    assert 2.0 <= wall < 2.1, wall
    assert result.steps > 1000
    assert isinstance(result.trace, TraceLog) and len(result.trace) == result.steps
    assert result.trace.nbytes <= 32 * result.steps
    assert peak < 64 * result.steps + 2_000_000  # bytes: bounded per step, no tuples


def test_an_answer_arriving_after_the_deadline_does_not_count() -> None:
    sc = load_scenario("lunch")
    agents = [Hardliner(), SlowAccepter(0.7)]
    result = Session(sc.space, agents, sc.utilities, Deadline(seconds=0.5)).run()
    assert result.agreement is None
    assert result.reason.value == "deadline" and result.time == 1.0
    assert [e.action.value for e in result.trace] == ["offer"]  # the late accept is not there


def test_an_action_is_discounted_at_the_time_it_arrived() -> None:
    sc = load_scenario("lunch")
    agents = [Hardliner(), SlowAccepter(0.4)]
    result = Session(sc.space, agents, sc.utilities, Deadline(seconds=1.0)).run()
    assert result.agreement is not None
    accept = result.trace[-1]
    assert accept.action.value == "accept" and accept.time >= 0.4
    assert result.time == accept.time
    expected = tuple(u.at(result.agreement, accept.time) for u in sc.utilities)
    assert result.utilities == pytest.approx(expected)
