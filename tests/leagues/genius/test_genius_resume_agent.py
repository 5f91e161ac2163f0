"""A restart keeps the KBAgent's state: its belief about the person and its offers."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from accord.leagues.genius.kbagent import KBAgent
from accord.leagues.genius.live import LiveSession
from accord.leagues.genius.protocol import Rules, VirtualClock
from accord.leagues.genius.store import GeniusStore


def _agent(live: LiveSession) -> KBAgent:
    (agent,) = live.agents.values()
    assert isinstance(agent, KBAgent)
    return agent


def test_the_kbagent_remembers_its_belief_and_offers_once_per_turn(tmp_path: Path) -> None:
    clock = VirtualClock(5000.0)
    store = GeniusStore(tmp_path / "genius.sqlite")
    names = ("person:ann", "agent:kbagent")
    live = LiveSession.create(
        store, "s1", "job_candidate", (0, 1), Rules(turn_seconds=60), names, clock=clock
    )
    issues = live.session.domain.issues
    # the person makes offers that only a greedy type would make, over three turns
    # (the agent answers after a human-like delay: the clock moves in 5 s steps)
    for _ in range(3):
        live.submit_json(0, {"kind": "offer", "values": {i.name: i.values[0] for i in issues}})
        for _ in range(12):
            clock.advance(5)
            live.poll()
    before = _agent(live)
    assert not np.allclose(before.belief, 1.0 / len(before.belief))  # it learnt something
    offers_before = [(o.turn, o.id) for o in live.session.offers if o.party == 1]
    for _ in range(20):  # until it has made this turn's offer
        if before._offered_turn == live.session.turn:
            break
        clock.advance(1)
        live.poll()
    live.submit_json(0, {"kind": "offer", "values": {i.name: i.values[1] for i in issues}})
    assert before._offered_turn == live.session.turn  # it offered in this turn already
    again = LiveSession.resume(store, "s1", clock=clock)
    after = _agent(again)
    assert np.allclose(after.belief, before.belief, rtol=1e-9, atol=1e-12)
    assert after.believed_type == before.believed_type
    assert after._offered_turn == before._offered_turn == again.session.turn
    # after the restart the agent answers the pending offer but does not offer again
    # in this turn; in the next turn it offers once
    for _ in range(20):
        if all(o.answer is not None for o in again.session.offers if o.party == 0):
            break
        clock.advance(1)
        again.poll()
    assert all(o.answer is not None for o in again.session.offers if o.party == 0)
    mine = [o.turn for o in again.session.offers if o.party == 1]
    assert [(o.turn, o.id) for o in again.session.offers if o.party == 1][
        : len(offers_before)
    ] == offers_before
    assert mine.count(again.session.turn) == 1
    for _ in range(12):
        clock.advance(5)
        again.poll()
    mine = [o.turn for o in again.session.offers if o.party == 1]
    assert all(mine.count(t) <= 1 for t in set(mine))
    store.close()
