"""The receive side on the virtual clock: what a busy side hears, when, and what a priority event drops."""

from __future__ import annotations

import pytest

from accord.leagues.han.api import HanAgent, expression, message, offer_event
from accord.leagues.han.domain import EXAMPLE_1, Offer
from accord.leagues.han.events import Event, EventKind, preset
from accord.leagues.han.game import LiveGame
from accord.leagues.han.queues import Inbox, Side

FULL = Offer.of([(5, 0, 0), (5, 0, 0), (0, 0, 5), (0, 0, 5)])
OTHER = Offer.of([(0, 0, 5), (5, 0, 0), (0, 0, 5), (5, 0, 0)])


def _angry() -> Event:
    return Event(EventKind.SEND_EXPRESSION, "person", emotion="angry")


def test_a_priority_arrival_drops_the_flushable_events_waiting_and_keeps_the_rest_in_order() -> (
    None
):
    box = Inbox()
    tick = Event(EventKind.TIME, "system", elapsed=5.0)
    waiting = [_angry(), preset(3), message("free text").owned_by("person"), tick]
    assert [box.put(e, 1.0) for e in waiting] == [0, 0, 0, 0]  # chatter never flushes
    offer = Event(EventKind.SEND_OFFER, "person", offer=FULL)
    assert box.put(offer, 2.0) == 2
    assert [e for _, e in box.dropped] == [waiting[0], waiting[2]]
    assert [t for t, _ in box.dropped] == [2.0, 2.0]
    assert [box.take() for _ in range(4)] == [waiting[1], tick, offer, None]


def test_the_flush_all_mode_drops_everything_waiting() -> None:
    box = Inbox("all")
    for e in (_angry(), preset(3), Event(EventKind.TIME, "system", elapsed=5.0)):
        box.put(e, 0.0)
    assert box.put(Event(EventKind.FORMAL_QUIT, "person"), 0.5) == 3
    assert len(box) == 1 and box.take().kind is EventKind.FORMAL_QUIT  # type: ignore[union-attr]
    with pytest.raises(ValueError, match="flush is 'flushable' or 'all'; got 'some'"):
        Inbox("some")  # type: ignore[arg-type]


class Recorder(HanAgent):
    """Opens with ``opening``; answers each of the person's events with ``reply(event)``."""

    def __init__(self, opening: list[Event], reply=lambda e: []) -> None:  # type: ignore[no-untyped-def]
        super().__init__()
        self.opening = opening
        self.reply = reply
        self.heard: list[tuple[float, str]] = []

    def on_event(self, event: Event) -> list[Event]:
        what = event.emotion or event.text[:11] or (f"{event.elapsed:g}" if event.elapsed else "")
        self.heard.append((round(self.view.elapsed, 6), f"{event.kind.name} {what}".strip()))
        if event.kind is EventKind.GAME_START:
            return list(self.opening)
        return list(self.reply(event)) if event.owner == "person" else []


def _feed(m: LiveGame, owner: str) -> list[tuple[float, str]]:
    return [(round(t, 6), e.kind.name) for t, e in m.feed if e.owner == owner]


def test_a_busy_agent_hears_one_waiting_event_between_two_dispatches() -> None:
    def reply(e: Event) -> list[Event]:
        return [offer_event(OTHER)] if e.kind is EventKind.SEND_OFFER else [expression("sad")]

    agent = Recorder([expression("happy"), expression("surprised"), expression("neutral")], reply)
    m = LiveGame(EXAMPLE_1, agent)
    m.advance(0.0)
    m.submit("person", preset(1), 0.1)
    m.submit("person", preset(3), 1.2)
    m.submit("person", Event(EventKind.SEND_OFFER, offer=FULL), 2.3)
    m.advance(9.0)
    # the opening goes out at 0, 1.1, 2.2; the agent takes one waiting event after each
    # dispatch: preset 1 at 1.1, preset 3 at 2.2, the offer at 3.3; free again at 4.4
    assert agent.heard == [
        (0.0, "GAME_START"),
        (1.1, "SEND_MESSAGE It is impor"),
        (2.2, "SEND_MESSAGE We should t"),
        (3.3, "SEND_OFFER"),
        (5.0, "TIME 5"),
    ]
    # its answer to the offer is an offer: it drops the two "sad" faces still waiting
    assert m.table.sides["agent"].flushed == 2
    assert _feed(m, "agent") == [
        (0.0, "SEND_EXPRESSION"),
        (1.1, "SEND_EXPRESSION"),
        (2.2, "SEND_EXPRESSION"),
        (3.3, "SEND_OFFER"),
    ]
    assert _feed(m, "person") == [(0.1, "SEND_MESSAGE"), (1.2, "SEND_MESSAGE"), (2.3, "SEND_OFFER")]


@pytest.mark.parametrize(
    ("flush", "heard"),
    [
        (
            "flushable",
            [
                (0.0, "GAME_START"),
                (5.1, "SEND_MESSAGE We should t"),
                (5.1, "SEND_OFFER"),
                (5.1, "TIME 5"),
            ],
        ),
        ("all", [(0.0, "GAME_START"), (5.1, "SEND_OFFER"), (5.1, "TIME 5")]),
    ],
)
def test_an_offer_arriving_while_the_agent_is_busy_flushes_its_inbox(
    flush: str, heard: list[tuple[float, str]]
) -> None:
    agent = Recorder([expression("happy", delay=4.0)])  # busy: sent at 4.0, free at 5.1
    m = LiveGame(EXAMPLE_1, agent, inbox_flush=flush)  # type: ignore[arg-type]
    m.advance(0.0)
    m.submit("person", Event(EventKind.SEND_EXPRESSION, emotion="angry"), 0.5)
    m.submit("person", preset(3), 2.0)  # a message with a meaning: not flushable
    m.submit("person", Event(EventKind.SEND_OFFER, offer=FULL), 3.5)  # priority
    m.advance(6.0)
    # the angry face was never delivered; the tick of 5.0 came after the offer, so it stays
    assert agent.heard == heard
    dropped = [(t, e.kind.name) for t, e in m.table.sides["agent"].inbox.dropped]
    assert dropped == [(3.5, "SEND_EXPRESSION")] + (
        [(3.5, "SEND_MESSAGE")] if flush == "all" else []
    )
    assert agent.view.offer == FULL  # it knows the offer once it has heard it
    # the person's moves are in the game whatever the agent heard
    assert _feed(m, "person") == [
        (0.5, "SEND_EXPRESSION"),
        (2.0, "SEND_MESSAGE"),
        (3.5, "SEND_OFFER"),
    ]
    assert _feed(m, "agent") == [(4.0, "SEND_EXPRESSION")]


def test_the_agent_learns_of_an_offer_when_it_hears_it_not_when_it_is_sent() -> None:
    agent = Recorder([expression("happy", delay=2.0)])
    m = LiveGame(EXAMPLE_1, agent)
    m.advance(0.0)
    m.submit("person", Event(EventKind.SEND_OFFER, offer=FULL), 1.0)
    assert m.game.last_offer == FULL and agent.view.offer is None  # busy until 3.1
    m.advance(3.09)
    assert agent.view.offer is None
    m.advance(3.1)
    assert agent.view.offer == FULL and agent.heard[-1] == (3.1, "SEND_OFFER")


def test_events_waiting_when_the_game_ends_are_never_delivered() -> None:
    agent = Recorder([expression("happy"), expression("sad"), expression("angry")])
    m = LiveGame(EXAMPLE_1.with_time(3.0, 1.0), agent)
    m.advance(0.0)
    m.submit("person", preset(3), 1.0)
    m.submit("person", preset(1), 2.0)
    m.submit("person", preset(6), 2.5)
    m.advance(5.0)
    # its opening goes out at 0, 1.1 and 2.2: it hears preset 3 at 1.1 and preset 1 at
    # 2.2; preset 6 waits for 3.3, past the end at 3.0, and is never heard
    assert _feed(m, "agent") == [(0.0, "SEND_EXPRESSION"), (1.1, "SEND_EXPRESSION"),
                                 (2.2, "SEND_EXPRESSION")]  # fmt: skip
    assert agent.heard == [
        (0.0, "GAME_START"),
        (1.1, "SEND_MESSAGE We should t"),
        (2.2, "SEND_MESSAGE It is impor"),
        (3.0, "GAME_END 3"),
    ]
    assert m.game.result.end_time == 3.0


def test_a_free_side_answers_at_once_and_several_waiting_events_in_one_instant() -> None:
    side = Side()
    side.inbox.put(preset(1), 0.0)
    side.inbox.put(preset(2), 0.0)
    heard = []
    while side.work(0.0):  # the side asks its agent each waiting event in turn, at once
        assert side.asking is not None
        heard.append(side.asking.text[:6])
        side.answered([], 0.0)
    assert heard == ["It is ", "I gave"] and side.next_due() is None and side.pop_due(0.0) is None
