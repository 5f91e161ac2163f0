"""A HAN game on the web driver (han.game.LiveGame on a server's clock): a person's event
that comes while the agent thinks is taken at once and the agent's answer kept; a game
rebuilt from its stream gives a fresh agent the same memory (every question again)."""

from __future__ import annotations

import threading

from accord.leagues.han.agents import FairSplitter
from accord.leagues.han.domain import EXAMPLE_1
from accord.leagues.han.events import Event, EventKind, preset
from accord.leagues.han.game import LiveGame
from accord.tournament.sqlite import SqliteFile
from accord.web.clock import VirtualClock
from accord.web.store import EventLog


class Remembering(FairSplitter):
    """The fair agent that notes each event it is asked; ``gate``: it waits for it
    before answering the game's start (an agent thinking)."""

    def __init__(self, gate: threading.Event | None = None) -> None:
        super().__init__()
        self.gate = gate
        self.asked = threading.Event()
        self.heard: list[str] = []

    def on_event(self, event: Event) -> list[Event]:
        self.heard.append(event.kind.name)
        if event.kind is EventKind.GAME_START and self.gate is not None:
            self.asked.set()
            assert self.gate.wait(30), "the test never let the agent answer"
        return super().on_event(event)


def _game(log: EventLog, clock: VirtualClock, agent: Remembering) -> LiveGame:
    return LiveGame(EXAMPLE_1, agent, log=log, stream="han/p1/0", clock=clock)


def test_a_person_event_while_the_agent_thinks_is_taken_and_its_answer_kept() -> None:
    clock, gate = VirtualClock(), threading.Event()
    log = EventLog(SqliteFile(":memory:"), clock)
    agent = Remembering(gate)
    m = _game(log, clock, agent)
    thinking = threading.Thread(target=m.advance)
    thinking.start()
    assert agent.asked.wait(30)
    clock.advance(1.0)
    m.submit("person", preset(1))  # taken at once: it waits in the person's outbox
    assert m.play.rules.to_act(m.table) == (0, 1) and len(m.table.boxes["person"]) == 1
    gate.set()
    thinking.join(30)
    m.advance()
    feed = [(round(t, 1), e.owner, e.kind.name) for t, e in m.feed]
    # the agent's greeting (its answer to the start, kept), then the person's message
    assert feed[:2] == [(0.0, "agent", "SEND_MESSAGE"), (1.0, "person", "SEND_MESSAGE")]
    assert agent.heard.count("GAME_START") == 1  # asked once, not again after the event


def test_a_rebuilt_game_gives_a_fresh_agent_the_same_memory() -> None:
    clock = VirtualClock()
    log = EventLog(SqliteFile(":memory:"), clock)
    agent = Remembering()
    m = _game(log, clock, agent)
    m.advance()
    for dt, n in ((1.0, 1), (3.0, 3), (4.0, 6)):
        clock.advance(dt)
        m.submit("person", preset(n))
        m.advance()
    clock.advance(6.0)
    m.advance()
    fresh = Remembering()
    again = _game(log, clock, fresh)  # a restart: the driver replays the stream
    assert fresh.heard == agent.heard and len(agent.heard) > 5
    assert again.feed == m.feed and again.game.history == m.game.history
    assert fresh.view is not None and agent.view is not None
    assert fresh.view.heard == agent.view.heard
