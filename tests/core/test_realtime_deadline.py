"""Real-time deadlines: a session ends at its deadline, late actions do not count, an
action is discounted at the time it arrived, and the trace stays compact."""

from __future__ import annotations

import time
import tracemalloc

import pytest

from accord.agents.simple import Hardliner
from accord.agents.timebased import Boulware
from accord.core import Deadline, Session, columns
from accord.core.columns import CHUNK
from accord.core.negotiator import Negotiator, NegotiatorView, Response
from accord.core.outcomes import Outcome
from accord.core.protocols.tracelog import TraceLog
from accord.formats import load_scenario

#: Seconds a real-time session may run past its deadline before the test calls it late.
#: Generous on purpose: the session ends at its first step past the deadline, but on a
#: loaded machine (2 cores, many processes) that step may be scheduled seconds later.
LATE = 30.0


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
    assert 2.0 <= wall < 2.0 + LATE, wall
    assert result.steps > 200
    assert isinstance(result.trace, TraceLog) and len(result.trace) == result.steps
    assert result.trace.nbytes <= 32 * result.steps
    # bytes: the in-memory columns hold at most CHUNK rows (about 40 bytes a row, twice that
    # while an array grows) beside about 3 MB of session, scenario and chunk-spill overhead
    # (measured: an 8.0 MB peak at both 122,000 and 254,000 steps); tuples per step would
    # cost well over 100 bytes a row and keep growing with the steps
    assert peak < 80 * min(result.steps, CHUNK) + 3_000_000


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


def _timed_session(seconds: float) -> tuple[Session, float, int]:
    """A session of three fast agents that never agree: wall time and traced peak bytes."""
    sc = load_scenario("holiday")
    agents = [Hardliner(), Boulware(), Hardliner()]
    session = Session(sc.space, agents, sc.utilities, Deadline(seconds=seconds), seed=0)
    tracemalloc.start()
    t0 = time.perf_counter()
    session.run()
    wall = time.perf_counter() - t0
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return session, wall, peak


def test_a_long_timed_session_keeps_its_memory_bounded_and_every_offer_readable(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A small chunk (the default is 65,536 rows) so that a few seconds (slowed down by
    # tracemalloc) move many chunks to disk.
    chunk = 2048
    monkeypatch.setattr(columns, "CHUNK", chunk)
    short, _, peak_short = _timed_session(0.5)
    session, wall, peak = _timed_session(5.0)
    result = session.result
    assert result is not None and result.reason.value == "deadline"
    assert 5.0 <= wall < 5.0 + LATE, wall
    steps = result.steps
    # many chunks went to disk (not compared with the short run's count: the two runs may
    # meet different loads)
    assert steps > 4 * chunk and steps > short.steps, (steps, short.steps)
    trace, offers = result.trace, session.views[0].offers
    assert isinstance(trace, TraceLog) and len(trace) == steps
    # in memory: at most one chunk of each log, whatever the length
    assert trace.memory_nbytes <= 27 * chunk and offers.memory_nbytes <= 74 * chunk
    assert trace.nbytes == 27 * steps
    # the peak does not grow with the steps (it grew by about 100 bytes a step before)
    grew = peak - peak_short
    assert grew < 100 * chunk + 10 * (steps - short.steps) ** 0.5 + 200_000, (grew, steps)
    # every agent's view still shows every offer, the oldest ones (now on disk) included
    made = [(e.party, e.outcome) for e in trace if e.action.value == "offer"]
    assert len(offers) == len(made) and list(offers) == made
    for i in (0, 1, chunk - 1, chunk, len(made) // 2, -1):
        assert offers[i] == made[i]
    assert offers[3:6] == made[3:6]
    assert all(v.offers is offers for v in session.views)
    assert trace[5] == next(e for e in trace if e.step == 5)
    assert trace[-1].time < 1.0 and list(trace)[chunk + 1] == trace[chunk + 1]
