"""Running games: flood protection, priority flushing, clocks, failing agents, sequences
(the rules of ``han.table`` on the shared agent driver)."""

from __future__ import annotations

import time

import pytest

from accord.core.errors import ConfigError
from accord.core.protocols.result import EndReason
from accord.leagues.han.agents import EXAMPLE_AGENTS, FairSplitter, ToughCompetitor
from accord.leagues.han.api import HanAgent, expression, message, offer_event
from accord.leagues.han.domain import EXAMPLE_1, EXAMPLE_2, Offer
from accord.leagues.han.events import Event, EventKind, SubClass
from accord.leagues.han.game import LiveGame
from accord.leagues.han.participants import PARTICIPANTS, Cooperative
from accord.leagues.han.play import Fresh, play, play_sequence, run
from accord.leagues.han.queues import Outbox

FULL1 = Offer.of([(5, 0, 0), (5, 0, 0), (0, 0, 5), (0, 0, 5)])


def test_outbox_spaces_events_by_1_1_s_after_their_delays() -> None:
    box = Outbox()
    box.push([expression("happy"), expression("sad", delay=2.0), message("hi")], now=0.0)
    times = []
    t = 0.0
    while len(box):
        due = box.next_due()
        assert due is not None
        t = due
        ev = box.pop_due(t)
        assert ev is not None
        times.append((round(t, 6), ev.emotion or ev.text))
    # happy at 0; sad waits 1.1 of spacing then its own 2 s; hi 1.1 s after sad
    assert times == [(0.0, "happy"), (3.1, "sad"), (4.2, "hi")]


def test_a_priority_event_flushes_waiting_chatter_but_not_accepts() -> None:
    box = Outbox()
    accept = Event(EventKind.FORMAL_ACCEPT)
    box.push([expression("happy"), message("one"), accept, message("two")], now=0.0)
    flushed = box.push([offer_event(FULL1)], now=0.5)
    assert flushed == 2  # "one" and "two" waited; the accept is not flushable
    kinds = []
    while len(box):
        due = box.next_due()
        assert due is not None
        ev = box.pop_due(due)
        assert ev is not None
        kinds.append((round(due, 6), ev.kind.name))
    assert kinds == [(0.0, "SEND_EXPRESSION"), (1.1, "FORMAL_ACCEPT"), (2.2, "SEND_OFFER")]


class Scripted(HanAgent):
    """Answers GAME_START with a fixed list; records what it heard and when."""

    def __init__(self, opening: list[Event]) -> None:
        super().__init__()
        self.opening = opening
        self.heard: list[tuple[float, str]] = []

    def on_event(self, event: Event) -> list[Event]:
        self.heard.append((round(self.view.elapsed, 6), event.kind.name))
        return list(self.opening) if event.kind is EventKind.GAME_START else []


def test_the_match_delivers_agent_events_spaced_on_the_virtual_clock() -> None:
    agent = Scripted([expression("happy"), message("x"), message("y"), offer_event(FULL1)])
    person = Scripted([])
    rec = run(EXAMPLE_1, agent, person)
    got = [(round(t, 6), e.kind.name) for t, e in rec.feed if t <= 4.0]
    # a priority event flushes what was queued *before* its answer, not its own companions
    assert got == [
        (0.0, "SEND_EXPRESSION"),
        (1.1, "SEND_MESSAGE"),
        (2.2, "SEND_MESSAGE"),
        (3.3, "SEND_OFFER"),
    ]
    assert [h for h in person.heard if h[0] <= 4.0][-1] == (3.3, "SEND_OFFER")
    # (a later answer's flush of waiting chatter, and the inbox: tests/leagues/han/test_han_inbox.py)


def test_time_ticks_every_five_seconds_and_the_game_times_out_with_batnas() -> None:
    agent, person = Scripted([]), Scripted([])
    rec = run(EXAMPLE_2.with_time(30.0), agent, person)
    ticks = [t for t, k in agent.heard if k == "TIME"]
    assert ticks == [5.0, 10.0, 15.0, 20.0, 25.0]
    assert agent.heard[-1] == (30.0, "GAME_END")
    assert rec.result.reason is EndReason.DEADLINE and rec.result.points == {
        "agent": 20,
        "person": 20,
    }


def test_the_real_clock_runs_the_same_game() -> None:
    started = time.monotonic()
    rec = run(EXAMPLE_1.with_time(0.5, 0.1), Scripted([]), Scripted([]), clock="real")
    assert rec.result.reason is EndReason.DEADLINE and rec.result.points == {
        "agent": 4,
        "person": 4,
    }
    assert rec.result.end_time == 0.5 and time.monotonic() - started >= 0.5

    class Dealer(HanAgent):  # offers at once; accepts what the other side accepted
        def on_event(self, event: Event) -> list[Event]:
            if event.kind is EventKind.GAME_START and self.view.role == "agent":
                return [offer_event(FULL1)]
            if event.kind in (EventKind.SEND_OFFER, EventKind.FORMAL_ACCEPT):
                return [Event(EventKind.FORMAL_ACCEPT)]
            return []

    started = time.monotonic()
    real = run(EXAMPLE_1.with_time(20.0), Dealer(), Dealer(), clock="real")
    took = time.monotonic() - started
    virtual = run(EXAMPLE_1.with_time(20.0), Dealer(), Dealer())
    # the offer at 0 and the person's accept at 0; the agent, busy for 1.1 s after its
    # offer, accepts at 1.1: the driver slept until then, and the game is the virtual one
    assert real.result.reason is EndReason.AGREEMENT and real.result.end_time == 1.1
    assert real.game.history == virtual.game.history and real.result == virtual.result
    assert took >= 1.1  # no upper bound: a loaded machine only makes it later


def test_agents_never_see_the_other_sides_values_or_batna() -> None:
    seen: list[object] = []

    class Spy(HanAgent):
        def on_event(self, event: Event) -> list[Event]:
            seen.append(vars(self.view))
            return []

    run(EXAMPLE_1.with_time(6.0), Spy(), Scripted([]))
    view = seen[0]
    assert isinstance(view, dict)
    assert view["values"] == EXAMPLE_1.agent_points and view["batna"] == 4
    assert EXAMPLE_1.person_points not in [v for v in view.values()]


def test_fresh_refuses_an_instance_reused_across_participants() -> None:
    one = FairSplitter()
    fresh = Fresh()
    play(EXAMPLE_1, lambda: one, Cooperative, fresh=fresh)
    with pytest.raises(ConfigError, match="already used with another participant"):
        play(EXAMPLE_1, lambda: one, Cooperative, fresh=fresh)


def test_an_agent_that_raises_is_recorded_and_the_game_ends_with_batnas() -> None:
    class Raiser(HanAgent):
        def on_event(self, event: Event) -> list[Event]:
            raise RuntimeError("boom")

    rec = run(EXAMPLE_1.with_time(12.0), Raiser(), Cooperative())
    assert rec.result.reason is EndReason.DEADLINE and rec.result.points == {
        "agent": 4,
        "person": 4,
    }
    assert any(
        "raised RuntimeError('boom')" in v.reason and v.side == "agent"
        for v in rec.result.violations
    )


def test_an_agent_that_floods_is_cut_and_recorded() -> None:
    class Flooder(HanAgent):
        def on_event(self, event: Event) -> list[Event]:
            return [message(f"m{i}") for i in range(100)] + ["junk"]  # type: ignore[list-item]

    rec = run(EXAMPLE_1.with_time(30.0), Flooder(), Scripted([]))
    reasons = [v.reason for v in rec.result.violations]
    assert "on_event returned 1 non-Event items" in reasons
    assert "flooding: 100 events in one answer (at most 20)" in reasons
    assert any(r.startswith("flooding:") and "dropped" in r for r in reasons)
    sent = [t for t, e in rec.feed if e.kind is EventKind.SEND_MESSAGE]
    assert all(b - a >= 1.1 - 1e-9 for a, b in zip(sent, sent[1:], strict=False))


def test_a_sequence_keeps_the_agent_and_agent_vs_agent_mode_allows_free_text() -> None:
    recs = play_sequence([EXAMPLE_1, EXAMPLE_2], FairSplitter, Cooperative)
    assert [r.game_index for r in recs] == [0, 1]
    rec = play(EXAMPLE_1, ToughCompetitor, FairSplitter, person_menu_only=False)
    assert rec.result.reason is EndReason.AGREEMENT and not rec.result.violations


@pytest.mark.parametrize("agent", sorted(EXAMPLE_AGENTS))
@pytest.mark.parametrize("person", sorted(PARTICIPANTS))
def test_every_example_pair_ends_cleanly_on_both_domains(agent: str, person: str) -> None:
    for spec in (EXAMPLE_1, EXAMPLE_2):
        rec = play(spec, EXAMPLE_AGENTS[agent], PARTICIPANTS[person])
        r = rec.result
        assert not r.violations
        if r.reason is EndReason.AGREEMENT:
            assert r.offer is not None and r.points["agent"] == spec.points(r.offer, "agent")
        else:
            assert r.points == {"agent": spec.agent_batna, "person": spec.person_batna}
    _ = SubClass


def test_person_vs_person_both_sides_driven_from_outside() -> None:
    m = LiveGame(EXAMPLE_2, None, spacing=0.0)
    m.advance(0.0)
    deal = Offer.of([(6, 0, 0), (0, 0, 6), (1, 0, 0)])
    m.submit("person", Event(EventKind.SEND_OFFER, offer=deal), 3.0)
    m.submit("agent", Event(EventKind.FORMAL_ACCEPT), 4.0)
    assert not m.game.ended
    m.submit("person", Event(EventKind.FORMAL_ACCEPT), 5.0)
    r = m.record().result
    assert r.reason is EndReason.AGREEMENT and r.points == {"agent": 30 + 8, "person": 12}
    assert r.end_time == 5.0 and m.record().names == {"agent": "person", "person": "person"}
