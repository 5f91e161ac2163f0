"""R0-R4 and the six example dialogues of Appendix B, against the running HTTP service,
with the spec's time constants (5 s, 2 s, 100 words). A1 is Celia, A2 is Watson.

The orchestrator runs on a virtual clock (:class:`accord.web.clock.VirtualClock`): each
message is sent at its planned instant exactly, measured from the human utterance, and
the test moves the clock instead of sleeping. Before the clock moves on, every permitted
message has reached every party (as it would have, in real time, long before). Example 5,
where a busy agent's delivery delay is the point, runs in real time: the smoke test of
the same service on the machine's clock."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from accord.leagues.humaine.orchestrator import create_orchestrator_app
from accord.leagues.humaine.testing import (
    COSTS_C,
    COSTS_W,
    Party,
    Stage,
    agent,
    human,
    round_body,
    sleep_until,
    start_round,
)
from accord.web.clock import VirtualClock

JABBERWOCKY = (
    "I can give you a good price on 2 eggs, but first I think you might like to hear a few "
    "verses of Jabberwocky by Lewis Carroll, which is my favorite poem: \"'Twas brillig, and "
    "the slithy toves Did gyre and gimble in the wabe: All mimsy were the borogoves And the "
    "mome raths outgrabe. 'Beware the Jabberwock, my son! The jaws that bite, the claws that "
    'catch! Beware the Jubjub bird, and shun The frumious Bandersnatch!" He took his vorpal '
    "sword in hand; Long time the manxome foe he sought- So rested he by the Tumtum tree And "
    "stood awhile in thought. And, as in uffish thought he stood The Jabberwock, with eyes of "
    'flame, Came whiffling..." Oh wait, where was I? Oh yes -- I can give you 2 eggs for 4.50 '
    "dollars."
)


class Env(Stage):
    """A stage whose orchestrator reads ``clock`` (virtual, or None for real time)."""

    clock: VirtualClock | None = None

    def new_round(self, budget: float = 50.0) -> str:  # type: ignore[override]
        return super().new_round(budget=budget)

    def send(self, body: dict[str, Any]) -> tuple[bool, str | None]:
        r = self.client.post("/relayMessage", json=body)
        assert r.status_code == 200, r.text
        data = r.json()
        if self.clock is not None and body.get("roundId"):
            self.delivered(str(body["roundId"]))
        return data["permitted"], data["rule"]

    def delivered(self, rid: str) -> None:
        """Wait until every party of round ``rid`` has every permitted message."""
        state = self.client.get(f"/rounds/{rid}").json()
        n = sum(1 for d in state["decisions"] if d["permitted"])
        parties = [self.celia, self.watson]
        if self.ui.bodies("/startRound", rid):
            parties.append(self.ui)
        for party in parties:
            party.wait_for("/receiveMessage", n, round_id=rid)

    def now(self) -> float:
        return time.monotonic() if self.clock is None else self.clock.now()

    def until(self, t: float) -> None:
        """Move the clock to ``t`` (sleep until it, in real time)."""
        if self.clock is None:
            sleep_until(t)
            return
        assert t >= self.clock.now(), "a dialogue's instants must be in order"
        self.clock.advance(t - self.clock.now())

    def ok(self, body: dict[str, Any]) -> None:
        assert self.send(body) == (True, None), body["text"]

    def blocked(self, body: dict[str, Any], rule: str) -> None:
        assert self.send(body) == (False, rule), body["text"]

    def say(self, rid: str, text: str, to: str = "") -> float:
        """A human utterance; returns its time for scheduling replies."""
        t = self.now()
        assert self.send(human(rid, text, to)) == (True, None)
        return t


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Env]:
    db = Path(tmp_path_factory.mktemp("timing")) / "eo.db"
    clock = VirtualClock(start=1000.0)
    app = create_orchestrator_app(db_path=db, clock=clock)
    with Env(app) as env:
        env.clock = clock
        yield env


def texts(p: Party, route: str, rid: str) -> list[str]:
    return [b["text"] for b in p.bodies(route) if b.get("roundId") == rid]


def test_example_1_all_ok(env: Env) -> None:
    rid = env.new_round()
    t = env.say(rid, "Celia, I would like to buy 2 eggs.", "Celia")
    env.until(t + 0.3)
    env.ok(agent(rid, "Celia", "I can give you 2 eggs for 5 dollars.", price=5))
    env.until(t + 0.7)
    env.ok(agent(rid, "Watson", "I can give you 2 eggs for 4.5 dollars."))
    env.until(t + 5.3)
    t = env.say(rid, "Watson, I also would like to buy milk.", "Watson")
    env.until(t + 0.3)
    env.ok(agent(rid, "Watson", "I can give you 2 eggs for 3 dollars.", price=3))
    env.until(t + 0.7)
    msg = "I can give you a cup of milk for 2 dollars. The total for 2 eggs and a cup of milk is 7 dollars."
    env.ok(agent(rid, "Celia", msg, quantity={"egg": 2, "milk": 1}, price=7))
    # every agent got every message (its own as the echo), without the bid
    mine = env.watson.wait_for("/receiveMessage", 6, round_id=rid)
    assert len(mine) == 6 and all("bid" not in b for b in mine)
    ui_msgs = env.ui.wait_for("/receiveMessage", 6, round_id=rid)
    assert [("bid" in b) for b in ui_msgs] == [False, True, True, False, True, True]
    logs = env.ui.wait_for("/receiveLog", 6, round_id=rid)
    assert all(b["permitted"] for b in logs) and len(logs) == 6


def test_example_2_premature_unaddressed_blocked(env: Env) -> None:
    rid = env.new_round()
    t = env.say(rid, "Celia, I would like to buy 2 eggs.", "Celia")
    env.until(t + 0.4)
    env.blocked(agent(rid, "Watson", "I can give you 2 eggs for 5.50 dollars.", price=5.5), "R2")
    env.ok(agent(rid, "Celia", "I can give you 2 eggs for 5 dollars.", price=5))
    rej = env.watson.wait_for("/receiveRejection", 1, round_id=rid)
    assert rej[0]["text"] == "I can give you 2 eggs for 5.50 dollars."
    assert "Premature response from unaddressed agent" in rej[0]["rationale"]
    assert rej[0]["bid"]["price"]["value"] == 5.5
    # after the rejection it is legal to try again, now that Celia has spoken
    env.until(t + 0.9)
    env.ok(agent(rid, "Watson", "Then 2 eggs for 4.90 dollars.", price=4.9))
    # the roles reversed
    env.until(t + 5.3)
    t = env.say(rid, "Watson, I would also like to buy milk.", "Watson")
    env.until(t + 0.4)
    env.blocked(agent(rid, "Celia", "A cup of milk for 2 dollars.", price=2), "R2")
    env.ok(agent(rid, "Watson", "I can give you 2 eggs for 3 dollars.", price=3))
    env.celia.wait_for("/receiveRejection", 1, round_id=rid)
    assert "A cup of milk for 2 dollars." not in texts(env.watson, "/receiveMessage", rid)
    assert "A cup of milk for 2 dollars." in texts(env.celia, "/receiveRejection", rid)


def test_example_3_agent_speaking_twice_blocked(env: Env) -> None:
    rid = env.new_round()
    t = env.say(rid, "Celia, I would like to buy 2 eggs.", "Celia")
    env.until(t + 0.3)
    assert env.send(agent(rid, "Celia", "2 eggs for 5 dollars.", price=5))[0]
    env.until(t + 0.7)
    assert env.send(agent(rid, "Watson", "2 eggs for 4.5 dollars."))[0]
    env.until(t + 1.1)
    env.blocked(agent(rid, "Celia", "2 eggs for 4 dollars.", price=4), "R3")
    rej = env.celia.wait_for("/receiveRejection", 1, round_id=rid)
    assert "Agent speaking twice" in rej[-1]["rationale"]


def test_example_4_addressee_too_late(env: Env) -> None:
    rid = env.new_round()
    t = env.say(rid, "Celia, I would like to buy 2 eggs.", "Celia")
    env.until(t + 1.5)
    env.blocked(agent(rid, "Watson", "too early", price=4.5), "R2")
    env.until(t + 2.4)
    env.ok(agent(rid, "Watson", "I can give you 2 eggs for 4.5 dollars."))
    env.blocked(agent(rid, "Celia", "I can give you 2 eggs for 4 dollars.", price=4), "R2")
    # the addressee stays barred until the next human utterance (3.5 s later still)
    env.until(t + 3.5)
    env.blocked(agent(rid, "Celia", "Still 4 dollars.", price=4), "R2")


def test_example_5_simultaneous_replies_in_real_time(tmp_path: Path) -> None:
    """Celia is busy (2 s per call), so she has not been sent Watson's reply when hers
    arrives 10 ms later: blocked as simultaneous; 0.3 s later she may speak. The real
    clock's smoke test: real sleeps, real delivery delays. (With 1 s per call, a 0.7 s
    stall of the test's process on a loaded machine let her be sent Watson's reply first.)"""
    app = create_orchestrator_app(db_path=tmp_path / "eo.db")
    with Env(app, celia=Party("Celia", delay=2.0)) as env:
        agents = [env.celia.agent_spec(COSTS_C), env.watson.agent_spec(COSTS_W)]
        rid = start_round(env.client, round_body(agents, []))  # no UI
        t = env.say(rid, "I would like to buy 2 eggs.")
        env.until(t + 0.3)
        env.ok(agent(rid, "Watson", "2 eggs for 4.5 dollars."))
        env.blocked(agent(rid, "Celia", "2 eggs for 5 dollars.", price=5), "R3")
        env.until(t + 0.7)
        env.ok(agent(rid, "Celia", "2 eggs for 4 dollars.", price=4))
        d = env.client.get(f"/rounds/{rid}").json()["decisions"]
        assert "Simultaneous reply" in d[2]["rationale"]


def test_example_6_too_many_words(env: Env) -> None:
    assert len(JABBERWOCKY.split()) > 100
    rid = env.new_round()
    t = env.say(rid, "I would like to buy 2 eggs.")
    env.until(t + 0.3)
    env.blocked(agent(rid, "Celia", JABBERWOCKY), "R4")
    rej = env.celia.wait_for("/receiveRejection", 1, round_id=rid)
    assert "Excessive message length" in rej[-1]["rationale"]
    env.ok(agent(rid, "Celia", "I can give you 2 eggs for 4.50 dollars."))


def test_r0_human_five_seconds(env: Env) -> None:
    rid = env.new_round()
    t = env.say(rid, "I would like to buy 2 eggs.")
    env.until(t + 4.0)
    env.blocked(human(rid, "Hello?"), "R0")
    rej = env.ui.wait_for("/receiveRejection", 1, round_id=rid)
    assert rej[-1]["text"] == "Hello?" and "5 s" in rej[-1]["rationale"]
    env.until(t + 5.3)
    env.ok(human(rid, "Hello again?"))
    # client timestamps never count: a message claiming to be 10 s old is still too soon
    early = human(rid, "Backdated") | {"timestamp": int(time.time() * 1000) - 10_000}
    env.blocked(early, "R0")


def test_r1_budget_never_negative(env: Env) -> None:
    rid = env.new_round(budget=10.0)
    t = env.say(rid, "Celia, 2 eggs for $8?", "Celia")
    env.until(t + 0.3)
    env.ok(agent(rid, "Celia", "Deal: 2 eggs for 8.", "Accept", price=8.0))
    env.until(t + 5.3)
    t = env.say(rid, "Watson, 3 eggs for $3?", "Watson")
    env.until(t + 0.3)
    env.blocked(agent(rid, "Watson", "Deal.", "Accept", {"egg": 3}, 3.0), "R1")
    rej = env.watson.wait_for("/receiveRejection", 1, round_id=rid)
    assert "Insufficient budget" in rej[-1]["rationale"]
    state = env.client.get(f"/rounds/{rid}").json()
    assert state["remainingBudget"] == 2.0 and state["purchases"] == {"egg": 2}
    confirms = env.ui.wait_for("/confirmAccept", 1, round_id=rid)
    assert confirms[0]["bid"]["type"] == "Accept" and confirms[0]["bid"]["price"]["value"] == 8.0
