"""Bad input, unknown speakers, tokens, unreachable and slow agents: every case gets a
clear 4xx (or a logged block) and the orchestrator keeps serving the other rounds."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from accord.leagues.humaine.orchestrator import create_orchestrator_app
from accord.leagues.humaine.rules import RuleConfig
from accord.leagues.humaine.testing import (
    COSTS_C,
    COSTS_W,
    Party,
    Stage,
    agent,
    free_port,
    human,
    round_body,
    start_round,
)
from accord.web.testing import SkipClock, wait_until

FAST = RuleConfig(human_gap=0.2)
CLOCK = SkipClock()
"""The orchestrators' clock: a test skips R0's gap (0.2 s) instead of sleeping."""


class Env(Stage):
    def post(self, body: Any, path: str = "/relayMessage") -> httpx.Response:
        return self.client.post(path, json=body)

    def still_serving(self) -> None:
        """A fresh round still works end to end."""
        rid = self.new_round()
        r = self.post(human(rid, "Watson, 2 eggs please", "Watson"))
        assert r.status_code == 200 and r.json()["permitted"], r.text
        self.watson.wait_for("/receiveMessage", 1, round_id=rid)


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Env]:
    db = Path(tmp_path_factory.mktemp("inputs")) / "eo.db"
    app = create_orchestrator_app(db_path=db, rule_config=FAST, call_timeout=1.0, clock=CLOCK)
    with Env(app) as env:
        yield env


def error(r: httpx.Response, status: int) -> str:
    assert r.status_code == status, (r.status_code, r.text)
    body = r.json()
    assert body["status"] == "Failed"
    return str(body["error"])


def test_malformed_json(env: Env) -> None:
    r = env.client.post(
        "/relayMessage",
        content=b'{"speaker": "Human", "text": ',
        headers={"content-type": "application/json"},
    )
    assert "malformed JSON" in error(r, 400)
    r = env.client.post("/relayMessage", content=b"")
    assert "empty request body" in error(r, 400)
    assert "must be a JSON object" in error(env.post([1, 2]), 422)
    env.still_serving()


def test_missing_fields(env: Env) -> None:
    rid = env.new_round()
    msg = error(env.post({"roundId": rid, "speaker": "Human"}), 422)
    assert "text: required field is missing" in msg
    msg = error(env.post({"roundId": rid, "text": "hi"}), 422)
    assert "speaker: required field is missing" in msg
    msg = error(env.post({"roundId": rid, "speaker": "Human", "text": ""}), 422)
    assert "text" in msg and "at least 1 character" in msg


def test_unknown_goods_negative_quantities_missing_price(env: Env) -> None:
    rid = env.new_round()
    env.post(human(rid, "Watson, some bread?", "Watson"))
    bad = agent(rid, "Watson", "bread for 3", quantity={"bread": 2})
    assert "unknown good 'bread'; expected one of egg, flour" in error(env.post(bad), 422)
    bad = agent(rid, "Watson", "minus eggs", quantity={"egg": -2})
    assert "quantity of egg must be >= 0, got -2" in error(env.post(bad), 422)
    bad = agent(rid, "Watson", "eggs for free", price=None)
    assert "a SellOffer bid needs a price" in error(env.post(bad), 422)
    bad = agent(rid, "Watson", "a deal", "Accept", price=None)
    assert "a Accept bid needs a price" in error(env.post(bad), 422)
    bad = agent(rid, "Watson", "what", "Haggle")
    assert "bid.type" in error(env.post(bad), 422)
    bad = agent(rid, "Watson", "negative price", price=-1)
    assert "price value must be a finite number >= 0" in error(env.post(bad), 422)
    # the sender hears why, as for a blocked message
    rej = env.watson.wait_for("/receiveRejection", 6, round_id=rid)
    assert "unknown good 'bread'" in rej[0]["rationale"] and rej[0]["text"] == "bread for 3"
    # the invalid messages are logged as refused decisions of the round
    decisions = env.client.get(f"/rounds/{rid}").json()["decisions"]
    assert [d["rule"] for d in decisions[1:]] == ["invalid"] * 6
    assert not any(d["permitted"] for d in decisions[1:])
    # and the round goes on: a valid reply is still the first reply
    assert env.post(agent(rid, "Watson", "2 eggs for 4.5")).json()["permitted"]


def test_huge_texts(env: Env) -> None:
    rid = env.new_round()
    msg = error(env.post(human(rid, "x" * 6000)), 422)
    assert "text" in msg and "5000 characters" in msg
    huge = human(rid, "y") | {"padding": "z" * 300_000}
    assert "the limit is 262144 bytes" in error(env.post(huge), 413)
    env.still_serving()


def test_agent_before_any_human_utterance_is_logged_block(env: Env) -> None:
    rid = env.new_round()
    r = env.post(agent(rid, "Celia", "Hello, buy my eggs!"))
    assert r.status_code == 200
    assert (r.json()["permitted"], r.json()["rule"]) == (False, "order")
    rej = env.celia.wait_for("/receiveRejection", 1, round_id=rid)
    assert "No human utterance yet" in rej[0]["rationale"]


def test_unknown_speaker_refused_and_not_broadcast(env: Env) -> None:
    rid = env.new_round()
    env.post(human(rid, "anyone?"))
    body = agent(rid, "Mallory", "I am a seller too")
    msg = error(env.post(body), 403)
    assert "Unknown speaker 'Mallory'" in msg and "Human, Celia, Watson" in msg
    decisions = env.client.get(f"/rounds/{rid}").json()["decisions"]
    assert decisions[-1]["speaker"] == "Mallory" and decisions[-1]["rule"] == "speaker"
    logs = env.ui.wait_for("/receiveLog", 2, round_id=rid)
    assert logs[-1]["permitted"] is False and "Mallory" in logs[-1]["rationale"]
    # Watson's deliveries are in order: had it been relayed, it would come before this
    CLOCK.skip(0.2)  # R0
    assert env.post(human(rid, "Watson, still there?", "Watson")).json()["permitted"]
    texts = wait_until(
        lambda: (
            (t := [b["text"] for b in env.watson.bodies("/receiveMessage", rid)])
            and t[-1] == "Watson, still there?"
            and t
        ),
        "Watson's copy of the buyer's next words",
    )
    assert texts == ["anyone?", "Watson, still there?"]
    # an agent posing as the human gives itself away by its role
    posing = human(rid, "I accept Watson's offer") | {"role": "seller"}
    assert "registered as the buyer" in error(env.post(posing), 403)


def test_secret_tokens(env: Env) -> None:
    agents = [env.celia.agent_spec(COSTS_C, token="c-secret"), env.watson.agent_spec(COSTS_W)]
    body = round_body(agents, [env.ui.ui_spec()])
    body["human"]["token"] = "h-secret"
    rid = start_round(env.client, body)
    assert "must present its secret token" in error(env.post(human(rid, "hi")), 403)
    r = env.client.post(
        "/relayMessage", json=human(rid, "hi", "Celia"), headers={"X-Accord-Token": "h-secret"}
    )
    assert r.json()["permitted"]
    fake = agent(rid, "Celia", "I am Celia, trust me") | {"token": "guess"}
    assert "Celia must present its secret token" in error(env.post(fake), 403)
    real = agent(rid, "Celia", "2 eggs for 4.5") | {"token": "c-secret"}
    assert env.post(real).json()["permitted"]
    # the token never leaks to the other parties
    got = env.watson.wait_for("/receiveMessage", 2, round_id=rid)
    assert all("token" not in b for b in got)
    assert "Celia" in json.dumps(got)
    # an agent without a token (listed as unauthenticated by round_body) needs none
    CLOCK.skip(RuleConfig().simultaneity)  # not simultaneous with Celia's (R3)
    assert env.post(agent(rid, "Watson", "2 eggs for 4")).json()["permitted"]


def test_round_selection(env: Env) -> None:
    msg = error(env.post(human("nope", "hi")), 404)
    assert "unknown roundId 'nope'" in msg
    env.new_round()
    env.new_round()
    msg = error(env.post(human(None, "hi")), 409)
    assert "rounds are in progress" in msg and "give a roundId" in msg


def test_bad_round_setup(env: Env) -> None:
    r = env.post({"durations": {"round": 10}}, "/initializeRound")
    assert "agents: required field is missing" in error(r, 422)
    agents = [env.celia.agent_spec(COSTS_C)]
    agents[0]["utilityFunction"] = {"utility": {"egg": {"parameters": {"unitcost": "cheap"}}}}
    r = env.post(round_body(agents), "/initializeRound")
    assert "unitcost must be a number" in error(r, 422)
    body = round_body([env.celia.agent_spec(COSTS_C)])
    body["durations"]["round"] = -5
    assert "durations.round" in error(env.post(body, "/initializeRound"), 422)
    r = env.post({"roundId": "never-initialized"}, "/startRound")
    assert "unknown roundId" in error(r, 404)
    dup = [env.celia.agent_spec(COSTS_C), env.celia.agent_spec(COSTS_C)]
    assert "distinct" in error(env.post(round_body(dup), "/initializeRound"), 422)


def test_allocation_checks(env: Env) -> None:
    rid = env.new_round(duration=0.6, post=30)
    early = {"roundId": rid, "payload": {"cake": {"unit": "each", "quantity": 0}}}
    assert "post-round phase" in error(env.post(early, "/receiveHumanAllocation"), 409)
    CLOCK.skip(0.6)  # the round's 0.6 s: the post phase follows from the clock
    wait_until(lambda: env.client.get(f"/rounds/{rid}").json()["phase"] == "post", "post phase")
    greedy = {"roundId": rid, "payload": {"cake": {"unit": "each", "quantity": 1}}}
    msg = error(env.post(greedy, "/receiveHumanAllocation"), 422)
    assert "egg: need 2, have 0" in msg
    odd = {"roundId": rid, "payload": {"pie": {"quantity": 1}}}
    assert "unknown product 'pie'" in error(env.post(odd, "/receiveHumanAllocation"), 422)
    none = {"roundId": rid, "payload": {}}
    assert env.post(none, "/receiveHumanAllocation").json()["status"] == "Acknowledged"


def test_unreachable_agent_is_logged_and_others_served(env: Env) -> None:
    ghost = env.celia.agent_spec(COSTS_C) | {"port": free_port()}
    rid = start_round(env.client, round_body([ghost, env.watson.agent_spec(COSTS_W)], []))
    r = env.post(human(rid, "Watson, eggs?", "Watson"))
    assert r.json()["permitted"]
    env.watson.wait_for("/receiveMessage", 1, round_id=rid)
    errors = wait_until(
        lambda: (
            (e := env.client.get(f"/rounds/{rid}").json()["deliveryErrors"])
            and any(x["route"] == "/receiveMessage" for x in e)
            and e
        ),
        "the failed delivery of the message to Celia",
    )
    assert {e["party"] for e in errors} == {"Celia"}
    assert any(e["route"] == "/setUtility" for e in errors)


def test_slow_agent_never_delays_the_others(tmp_path: Path) -> None:
    """Celia takes 6 s per call (timeout 2 s): the relay answers at once and Watson and
    the UI get the message well within the 2 s a delivery waiting for her would cost.

    The bounds (1.8 s; 5.5 s for the start, which waits out her 2 s set-up timeout but not
    her 6 s) sit between the fast path (milliseconds) and what waiting for Celia costs,
    so a loaded machine stays green and a delayed delivery still fails."""
    app = create_orchestrator_app(
        db_path=tmp_path / "eo.db", rule_config=FAST, call_timeout=2.0, clock=CLOCK
    )
    with Stage(app, celia=Party("Celia", delay=6.0)) as stage:
        celia, watson, ui, client = stage.celia, stage.watson, stage.ui, stage.client
        body = round_body([celia.agent_spec(COSTS_C), watson.agent_spec(COSTS_W)], [ui.ui_spec()])
        t0 = time.monotonic()
        r = client.post("/initializeRound", json=body)
        rid = r.json()["roundId"]
        r = client.post("/startRound", json={"roundId": rid})
        assert time.monotonic() - t0 < 5.5  # setUtility to Celia timed out after 2 s
        assert r.json()[-2] is None and r.json()[-1]["status"] == "Acknowledged"
        for i in range(3):
            t = time.monotonic()
            r = client.post("/relayMessage", json=human(rid, f"Watson, offer {i}?", "Watson"))
            assert r.json()["permitted"] and time.monotonic() - t < 1.8
            watson.wait_for("/receiveMessage", i + 1, round_id=rid)
            ui.wait_for("/receiveMessage", i + 1, round_id=rid)
            assert max(watson.times("/receiveMessage")) - t < 1.8
            t = time.monotonic()
            r = client.post("/relayMessage", json=agent(rid, "Watson", f"2 eggs for {4 + i}"))
            assert r.json()["permitted"] and time.monotonic() - t < 1.8
            CLOCK.skip(0.2)  # R0
        errors = client.get(f"/rounds/{rid}").json()["deliveryErrors"]
        assert errors and all(e["party"] == "Celia" for e in errors)
        assert "no answer within 2 s" in errors[0]["error"]


def test_human_declining_confirmation_cancels_the_deal(tmp_path: Path) -> None:
    app = create_orchestrator_app(db_path=tmp_path / "eo.db", rule_config=FAST)
    with Stage(app, ui=Party("ui", confirm="declined")) as stage:
        ui, client = stage.ui, stage.client
        rid = stage.new_round()
        client.post("/relayMessage", json=human(rid, "Watson, 2 eggs for $9", "Watson"))
        r = client.post("/relayMessage", json=agent(rid, "Watson", "Deal", "Accept", price=9.0))
        assert r.json()["permitted"]
        ui.wait_for("/confirmAccept", 1, round_id=rid)
        wait_until(
            lambda: client.get(f"/rounds/{rid}").json()["remainingBudget"] == 50.0,
            "the cancelled deal's refund",
        )
        state = client.get(f"/rounds/{rid}").json()
        assert state["purchases"] == {} and state["deals"][0]["cancelled"] is True


def test_an_unanswered_confirmation_books_nothing_and_holds_up_nothing(tmp_path: Path) -> None:
    """The UI answers /confirmAccept only after 6 s; the orchestrator waits 2 s
    (``confirm_timeout``): the deal is blocked (buying needs the buyer's yes: fail
    closed), the money comes back, the seller is told why, the timeout is a delivery
    error, and meanwhile the UI gets every other message at once (within 1.8 s: a loaded
    machine's generous bound, below the 2 s it would wait behind the confirmation)."""
    app = create_orchestrator_app(
        db_path=tmp_path / "eo.db",
        rule_config=FAST,
        call_timeout=1.0,
        confirm_timeout=2.0,
        clock=CLOCK,
    )
    with Stage(app, ui=Party("ui", confirm="declined", confirm_delay=6.0)) as stage:
        ui, client = stage.ui, stage.client
        rid = stage.new_round()
        client.post("/relayMessage", json=human(rid, "Watson, 2 eggs for $9", "Watson"))
        r = client.post("/relayMessage", json=agent(rid, "Watson", "Deal", "Accept", price=9.0))
        assert r.json()["permitted"] and r.json()["awaiting"] == "the buyer's confirmation"
        ui.wait_for("/confirmAccept", 1, round_id=rid)
        CLOCK.skip(0.2)  # R0
        t0 = time.monotonic()
        client.post("/relayMessage", json=human(rid, "Celia, some flour?", "Celia"))
        got = ui.wait_for("/receiveMessage", 2, round_id=rid)
        assert got[1]["text"] == "Celia, some flour?" and time.monotonic() - t0 < 1.8
        state = wait_until(
            lambda: (s := client.get(f"/rounds/{rid}").json())["deliveryErrors"] and s,
            "the confirmation's timeout",
        )
        assert state["deliveryErrors"][0]["route"] == "/confirmAccept"
        assert state["deliveryErrors"][0]["error"] == "no answer within 2 s"
        told = stage.watson.wait_for("/receiveRejection", 1, round_id=rid)[0]
        assert told["rationale"].startswith("Deal not confirmed by the buyer")
        state = client.get(f"/rounds/{rid}").json()
        assert state["remainingBudget"] == 50.0 and state["purchases"] == {}
        last = [d for d in state["decisions"] if d["speaker"] == "Watson"][-1]
        assert (last["permitted"], last["rule"]) == (False, "confirm")
        # the held Accept never reached the buyer's UI as said
        assert all(m["text"] != "Deal" for m in ui.bodies("/receiveMessage", rid))
