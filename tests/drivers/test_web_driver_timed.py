"""The web driver with rules where people act at any time and the play moves by itself:
an agent's answer is kept when a person acts while it thinks, the time a server was down
counts when asked to, a fresh agent's memory is rebuilt from the questions it heard, the
play wakes itself when the rules say it is due, and every seat hears the end once.

The rules are "tally" (below): a person pings at any time, the agent must answer each
ping with a pong that counts them; the play ends at ``limit`` seconds."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import pytest

from accord.core.protocols.base import ProtocolInfo, TurnStyle
from accord.core.protocols.result import Failure, FailureKind
from accord.core.protocols.rules import (
    ActionField,
    ActionSpec,
    Event,
    FieldKind,
    IllegalAction,
    Legal,
    Rules,
)
from accord.tournament.sqlite import SqliteFile
from accord.web.clock import VirtualClock
from accord.web.driver import RulesGame
from accord.web.live import Live
from accord.web.store import EventLog
from accord.web.testing import asleep_until, sse_event

PING = {"kind": "ping", "args": {}}


@dataclass
class Tally:
    limit: float
    pings: int = 0
    pongs: list[int] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    over: bool = False


class TallyRules(Rules[float, Tally, Any]):
    info = ProtocolInfo("tally-test-v1", "tally", TurnStyle.SEQUENTIAL, frozenset())

    def initial(self, setup: float, seed: int) -> Tally:
        return Tally(setup)

    def to_act(self, s: Tally) -> tuple[int, ...]:
        if s.over:
            return ()
        return (0, 1) if len(s.pongs) < s.pings else (1,)

    def legal(self, s: Tally, party: int) -> Legal:
        if party not in self.to_act(s):
            return Legal(party, ())
        if party == 1:
            return Legal(party, (ActionSpec("ping", ()),))
        n = ActionField("n", FieldKind.INTEGER, low=0, high=10**6)
        return Legal(party, (ActionSpec("pong", (n,)),))

    def apply(self, s: Tally, party: int, action: Any, now: float) -> tuple[Tally, Sequence[Event]]:
        if party not in self.to_act(s):
            raise IllegalAction(party, action, "not asked now")
        if party == 1:
            s.pings += 1
            return s, (Event("ping", 1, {"t": now}),)
        if not isinstance(action, int) or action != len(s.pongs) + 1:
            raise IllegalAction(party, action, f"the next pong is {len(s.pongs) + 1}")
        s.pongs.append(action)
        return s, (Event("pong", 0, {"n": action}),)

    def due(self, s: Tally) -> float | None:
        return None if s.over else s.limit

    def tick(self, s: Tally, now: float) -> tuple[Tally, Sequence[Event]]:
        if s.over or now < s.limit:
            return s, ()
        s.over = True
        return s, (Event("time", None, {"t": now}),)

    def fail(
        self, s: Tally, party: int, failure: Failure, now: float
    ) -> tuple[Tally, Sequence[Event]]:
        s.failures.append(f"{party}:{failure.message}")
        if party == 0:
            s.pongs.append(len(s.pongs) + 1)  # the question is answered with nothing
        return s, (Event("failure", party, {"message": failure.message}),)

    def observe(self, s: Tally, party: int | None) -> dict[str, Any]:
        return self.serialize(s)

    def result(self, s: Tally) -> Any:
        return {"pongs": len(s.pongs)} if s.over else None

    def serialize(self, s: Tally) -> dict[str, Any]:
        return {"limit": s.limit, "pings": s.pings, "pongs": list(s.pongs),
                "failures": list(s.failures), "over": s.over}  # fmt: skip

    def restore(self, data: Mapping[str, Any]) -> Tally:
        return Tally(**{**data, "pongs": list(data["pongs"]), "failures": list(data["failures"])})

    def action_to_json(self, s: Tally, action: Any) -> dict[str, Any]:
        return {"kind": "pong", "args": {"n": action}} if isinstance(action, int) else PING

    def action_from_json(self, s: Tally, party: int, data: Any) -> Any:
        self.legal(s, party).require(party, data)
        return int(data["args"]["n"]) if data["kind"] == "pong" else "ping"


class Counter:
    """An agent that remembers every ping count it was asked about, and says the next pong.
    ``gate``: it waits for it before answering (an agent thinking)."""

    name = "counter"

    def __init__(self, gate: threading.Event | None = None) -> None:
        self.gate = gate
        self.thinking = threading.Event()
        self.heard: list[int] = []
        self.calls = 0
        self.ended: list[Any] = []

    def start(self, state: Any) -> None: ...

    def prepare(self, s: Tally, party: int) -> Any:
        question = (s.pings, len(s.pongs) + 1)  # read under the play's lock
        self.heard.append(question[0])

        def call() -> int:
            self.calls += 1
            self.thinking.set()
            if self.gate is not None:
                assert self.gate.wait(30), "the test never let the agent answer"
            return question[1]

        return call

    def act(self, s: Tally, party: int) -> int:
        answer: int = self.prepare(s, party)()
        return answer

    def recall(self, s: Tally, party: int, action: Any) -> None:
        self.heard.append(s.pings)

    def end(self, result: Any) -> None:
        self.ended.append(result)


def _game(log: EventLog, clock: VirtualClock, agent: Counter, **kw: Any) -> RulesGame:
    return RulesGame(TallyRules(), 60.0, [1], lambda s: {0: agent}, log, clock=clock,
                     names=["agent", "person"], **kw)  # fmt: skip


def _log(clock: VirtualClock | None = None) -> EventLog:
    return EventLog(SqliteFile(":memory:"), clock)


class Thinking(NamedTuple):
    """A game with one ping played whose agent, asked on ``runner``, holds its answer
    until ``gate`` is set."""

    gate: threading.Event
    clock: VirtualClock
    agent: Counter
    game: RulesGame
    runner: threading.Thread


@pytest.fixture
def thinking() -> Iterator[Thinking]:
    gate, clock = threading.Event(), VirtualClock()
    agent = Counter(gate)
    game = _game(_log(), clock, agent)
    game.act(1, PING)
    runner = threading.Thread(target=game.run_agents, daemon=True)
    runner.start()
    assert agent.thinking.wait(30)
    yield Thinking(gate, clock, agent, game, runner)
    gate.set()  # a test that failed half-way leaves no thread waiting on the gate
    runner.join(30)


def test_an_agent_answer_is_kept_when_a_person_acts_while_it_thinks(thinking: Thinking) -> None:
    gate, _, agent, game, runner = thinking
    game.act(1, PING)  # the person acts meanwhile: allowed, and not waiting on the agent
    game.act(1, PING)
    assert game.state.pings == 3 and game.state.pongs == []
    gate.set()
    runner.join(30)
    # the first answer was played (not dropped and asked again), then the two others
    assert game.state.pongs == [1, 2, 3] and agent.calls == 3 and agent.heard == [1, 3, 3]
    assert game.state.failures == []


def test_an_answer_is_dropped_when_the_play_moved_on_by_itself(thinking: Thinking) -> None:
    gate, clock, _, game, runner = thinking
    clock.advance(61.0)
    assert game.view(1)["over"]  # the time ran out while it thought
    gate.set()
    runner.join(30)
    assert game.state.pongs == [] and game.rules.result(game.state) == {"pongs": 0}


def test_one_caller_at_a_time_asks_the_agents_and_a_waiting_caller_sees_their_answers(
    thinking: Thinking,
) -> None:
    gate, _, agent, game, first = thinking
    game.run_agents()  # another caller: returns at once, the agent is not asked twice
    assert agent.calls == 1
    waiter = threading.Thread(target=game.run_agents, kwargs={"wait": True})
    waiter.start()
    waiter.join(0.2)
    assert waiter.is_alive()  # waits for the running caller, which looks again for it
    gate.set()
    waiter.join(30)
    first.join(30)
    assert not waiter.is_alive() and game.state.pongs == [1] and agent.calls == 1


def test_a_fresh_agent_rebuilds_its_memory_from_the_questions_it_heard() -> None:
    log, clock = _log(), VirtualClock()
    agent = Counter()
    game = _game(log, clock, agent)
    for _ in range(3):
        game.act(1, PING)
        clock.advance(1.0)
        game.run_agents()
    game.act(1, PING)
    game.act(1, PING)
    game.run_agents()
    assert agent.heard == [1, 2, 3, 5, 5]  # asked once per pong (the last two at 5 pings)
    assert game.state.pongs == [1, 2, 3, 4, 5]
    fresh = Counter()
    again = _game(log, clock, fresh, recall=True)
    assert fresh.heard == agent.heard and fresh.calls == 0  # recalled, not asked
    assert again.rules.serialize(again.state) == game.rules.serialize(game.state)


def test_downtime_counts_on_the_play_clock_only_when_asked() -> None:
    clock = VirtualClock()
    log = _log(clock)  # the log's wall times and the play share the clock
    game = _game(log, clock, Counter(), wall_time=True)
    clock.advance(10.0)
    game.act(1, PING)
    clock.advance(20.0)  # the server is down for 20 s
    assert _game(log, clock, Counter()).now() == 10.0  # the default: the clock stopped
    back = _game(log, clock, Counter(), wall_time=True)
    assert back.now() == 30.0
    clock.advance(31.0)
    assert back.view(1)["over"]


def test_the_play_wakes_itself_when_due_and_every_seat_hears_the_end_once() -> None:
    clock = VirtualClock()
    agent = Counter()
    ended = threading.Event()

    async def main() -> None:
        game = _game(_log(), clock, agent, on_change=lambda: None)
        await game.open()
        game.act(1, PING)
        await asyncio.to_thread(game.run_agents, wait=True)
        assert game.state.pongs == [1] and clock.pending == [60.0]  # woken at the limit
        await clock.advance_async(60.0)
        for _ in range(200):
            if agent.ended:
                break
            await asyncio.sleep(0.01)
        ended.set()
        await asyncio.to_thread(game.run_agents, wait=True)

    asyncio.run(main())
    assert ended.is_set() and agent.ended == [{"pongs": 1}]


def test_a_failure_recorded_for_a_person_is_replayed() -> None:
    log, clock = _log(), VirtualClock()
    game = _game(log, clock, Counter())
    game.fail(1, FailureKind.INVALID, "could not read that")
    again = _game(log, clock, Counter())
    assert again.state.failures == ["1:could not read that"]


def test_the_live_stream_sends_the_view_after_each_commit_on_heartbeat_and_when_due() -> None:
    """GET /api/live is Live.follow of the party's view: sent at once, after a committed
    change (not after a refused action, nor a change whose record rolled back), every
    heartbeat and when the rules say the play changes by itself; it ends with the end.
    Reading it never asks the agent."""
    clock, agent, broken = VirtualClock(), Counter(), [False]

    def on_change() -> None:
        if broken[0]:
            raise RuntimeError("the study's record failed")

    game = _game(_log(), clock, agent, live=Live(heartbeat=30.0), on_change=on_change)

    async def main() -> list[tuple[str, Any, int | None]]:
        stream = game.follow(1)
        seen = [sse_event(await anext(stream))]
        nxt = asyncio.ensure_future(anext(stream))
        await asleep_until(clock, 30.0)  # the heartbeat comes before the limit (60 s)
        await asyncio.to_thread(game.act, 1, PING)
        seen.append(sse_event(await nxt))  # woken by the commit, at once
        nxt = asyncio.ensure_future(anext(stream))
        await asleep_until(clock, 30.0)
        with pytest.raises(IllegalAction):
            game.act(1, {"kind": "pong", "args": {"n": 1}})
        broken[0] = True
        with pytest.raises(RuntimeError):
            game.act(1, PING)  # its record is rolled back: the pages are not told
        broken[0] = False
        await clock.advance_async(30.0)
        seen.append(sse_event(await nxt))  # the heartbeat
        nxt = asyncio.ensure_future(anext(stream))
        await asleep_until(clock, 60.0)
        await clock.advance_async(30.0)
        seen.append(sse_event(await nxt))  # due: the time is up, and the stream ends
        assert [t async for t in stream] == []
        return seen

    seen = asyncio.run(main())
    assert [(e, d["observation"]["pings"], d["over"], n) for e, d, n in seen] == [
        ("state", 0, False, 1),
        ("state", 1, False, 2),
        ("state", 2, False, 3),  # the second ping stands in memory, never told until now
        ("state", 2, True, 4),
    ]
    assert [d["version"] for _, d, _ in seen][:2] == [0, 1] and agent.calls == 0
