"""A KBAgent killed and restored mid-session plays on exactly as it would have without
the restart: the same actions at the same times, the same response-delay draws, no turn
decided twice (the session's store keeps the agent's memory and random state)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from accord.leagues.genius.live import LiveSession
from accord.leagues.genius.protocol import Rules, VirtualClock
from accord.leagues.genius.store import GeniusStore

NAMES = ("person:ann", "agent:kbagent")
STEPS = 170  # 1 s polls: nearly three 60 s turns


def _person(live: LiveSession, t: int) -> None:
    """The person's script: greedy offers at 3 s, 40 s, 70 s and 100 s (the agent
    rejects them); it accepts the agent's latest offer at 150 s."""
    issues = live.session.domain.issues
    if t in (3, 40, 70, 100):
        vals = {i.name: i.values[0] for i in issues}
        live.submit_json(0, {"kind": "offer", "values": vals})
    if t == 150:
        mine = [o for o in live.session.offers if o.party == 1 and o.answer is None]
        if mine:
            live.submit_json(0, {"kind": "accept", "offer": mine[-1].id})


def _play(path: Path, kills: set[int]) -> list[dict[str, Any]]:
    clock = VirtualClock(1000.0)
    store = GeniusStore(path)
    live = LiveSession.create(store, "s", "job_candidate", (0, 1), Rules(turn_seconds=60),
                              NAMES, clock=clock, seed=7)  # fmt: skip
    for t in range(STEPS):
        if t in kills:  # killed: memory gone; a new server opens the same file
            store = GeniusStore(path)
            live = LiveSession.resume(store, "s", clock=clock)
        _person(live, t)
        clock.advance(1.0)
        live.poll()
    events = [e.to_dict() for e in live.session.events]
    store.close()
    return events


def test_a_restored_kbagent_plays_on_as_if_never_stopped(tmp_path: Path) -> None:
    straight = _play(tmp_path / "straight.sqlite", set())
    agent = [e for e in straight if e["party"] == 1]
    assert [e["kind"] for e in agent].count("offer") == 3, straight  # one offer a turn
    # kills everywhere: while a delay is being waited out, just after an offer, mid-turn
    restored = _play(
        tmp_path / "restored.sqlite", {4, 5, 9, 41, 44, 61, 62, 64, 72, 75, 101, 105, 121, 122, 140}
    )
    assert restored == straight
