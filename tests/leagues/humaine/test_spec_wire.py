"""Spec audit over HTTP: the Appendix C bodies our orchestrator sends, field by field,
the generation-2 round flow of humaine-compat.md with its phase timing, deals in both
generations, and Appendix D's "only the last Save counts" / "no Save, no credit"."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from accord.leagues.humaine.orchestrator import create_orchestrator_app
from accord.leagues.humaine.rules import RuleConfig
from accord.leagues.humaine.testing import (
    BUYER_UTILITY,
    COSTS_C,
    COSTS_W,
    Stage,
    agent,
    human,
    round_body,
    secret_of,
    start_round,
)
from accord.web.testing import VirtualClock, wait_until

CAPTURES: dict[str, Any] = json.loads(
    (Path(__file__).parent / "data" / "hserver_captures.json").read_text()
)
SPEC_UNITS = {
    "egg": "each",
    "flour": "cup",
    "sugar": "cup",
    "milk": "cup",
    "chocolate": "ounce",
    "blueberry": "packet",
    "vanilla": "teaspoon",
}
FAST = RuleConfig(human_gap=0.2)  # timing is not the point here


AUTH = ("token", "authenticated", "unauthenticated")
"""Fields our secure default adds to Appendix C bodies (ignored by the original's parties)."""


def plain(body: dict[str, Any]) -> dict[str, Any]:
    """``body`` without the fields of :data:`AUTH`, after checking any secret is a string."""
    assert isinstance(body.get("token", ""), str)
    return {k: v for k, v in body.items() if k not in AUTH}


class Env(Stage):
    def body(self, **kw: Any) -> dict[str, Any]:
        agents = [self.celia.agent_spec(COSTS_C), self.watson.agent_spec(COSTS_W)]
        return round_body(agents, [self.ui.ui_spec()], authenticated=True, **kw)

    def relay(self, body: dict[str, Any]) -> dict[str, Any]:
        r = self.relay_as(body)
        assert r.status_code == 200, r.text
        return dict(r.json())

    def wait_phase(self, rid: str, phase: str) -> None:
        wait_until(
            lambda: self.client.get(f"/rounds/{rid}").json()["phase"] == phase,
            f"round {rid}'s {phase} phase",
        )


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Env]:
    db = Path(tmp_path_factory.mktemp("spec_wire")) / "eo.db"
    app = create_orchestrator_app(db_path=db, rule_config=FAST)
    with Env(app) as env:
        yield env


def iso_utc(text: str) -> datetime:
    assert text.endswith("Z"), text
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def test_round_flow_bodies_and_phase_timing(env: Env) -> None:
    """compat "Round flow": metadata and utilities at once, /startRound after warmUp,
    /endRound after round, /receiveRoundTotals after post; Appendix C's body shapes."""
    warm, active, post = 0.4, 0.8, 0.4
    body = env.body(warmup=warm, duration=active, post=post) | {"roundNumber": 7}
    rid = env.client.post("/initializeRound", json=body).json()["roundId"]
    t0 = time.monotonic()
    replies = env.client.post("/startRound", json={"roundId": rid}).json()
    # each party's answer comes back: the UI's metadata ack, then every utility copy
    assert replies[0] == {"status": "acknowledged"} and len(replies) == 4
    assert [r["utility"]["name"] for r in replies[1:]] == ["ui", "Celia", "Watson"]
    su = env.watson.wait_for("/setUtility", round_id=rid)[0]
    assert len(su["token"]) >= 32  # Watson's secret for this round, and only his
    assert su["token"] != env.celia.wait_for("/setUtility", round_id=rid)[0]["token"]
    assert plain(su) == {
        "currencyUnit": "USD",
        "utility": {
            g: {"type": "unitcost", "unit": SPEC_UNITS[g], "parameters": {"unitcost": c}}
            for g, c in COSTS_W.items()
        },
        "name": "Watson",
        "roundId": rid,
    }
    assert replies[2]["utility"]["name"] == "Celia"
    # Appendix C's reply, the agent's echo of its utility: without its secret (the caller
    # of /startRound is no party and learns no party's secret)
    assert replies[3] == {"status": "Acknowledged", "utility": plain(su)}
    assert su["token"] not in str(replies) and "token" not in str(replies)
    assert env.celia.wait_for("/setUtility", round_id=rid)[0]["name"] == "Celia"
    meta = env.ui.wait_for("/sendRoundMetadata", round_id=rid)[0]
    assert plain(meta) == {
        "roundId": rid,
        "durations": {"warmUp": warm, "round": active, "post": post},
        "humanBudget": {"currentUnit": "USD", "value": 50.0},
    }
    ui_su = env.ui.wait_for("/setUtility", round_id=rid)[0]
    assert ui_su["token"] == meta["token"]  # the buyer's secret, for the person's UI
    assert plain(ui_su) == {
        "currencyUnit": "USD",
        "utility": BUYER_UTILITY["utility"],
        "name": "ui",
        "roundId": rid,
    }
    for p in (env.celia, env.watson, env.ui):
        start = p.wait_for("/startRound", round_id=rid)[0]
        assert set(start) == {"roundId", "roundDuration", "timestamp", "roundNumber"}
        assert (start["roundDuration"], start["roundNumber"]) == (active, 7)
        assert abs((datetime.now(UTC) - iso_utc(start["timestamp"])).total_seconds()) < 5
        end = p.wait_for("/endRound", round_id=rid)[0]
        assert set(end) == {"roundId", "timestamp", "roundNumber"}
        assert iso_utc(end["timestamp"]) > iso_utc(start["timestamp"])
    totals = env.ui.wait_for("/receiveRoundTotals", round_id=rid)[0]
    assert set(totals) == {"roundId", "roundNumber", "roundTotals"}
    # when each arrived (seconds after /startRound was called); never early
    [t_start] = [t for r, t, b in env.watson.received if r == "/startRound" and b["roundId"] == rid]
    [t_end] = [t for r, t, b in env.watson.received if r == "/endRound" and b["roundId"] == rid]
    [t_tot] = [
        t for r, t, b in env.ui.received if r == "/receiveRoundTotals" and b["roundId"] == rid
    ]
    # never early (to the clock's 20 ms); late only by what a loaded machine adds (5 s:
    # generous; at load 20 a delivery took over 0.5 s), and in their order
    assert warm - 0.02 <= t_start - t0 < warm + 5
    assert warm + active - 0.02 <= t_end - t0 < warm + active + 5
    assert warm + active + post - 0.02 <= t_tot - t0 < warm + active + post + 5
    assert t_start < t_end < t_tot


def test_appendix_c_message_bodies(env: Env) -> None:
    """/receiveMessage to agents (the human's message as sent, plus roundId), the agent's
    /relayMessage body of Appendix C to the UI with its bid and to the agents without it,
    /receiveRejection = message + rationale, /receiveLog = message + permitted +
    rationale, and the /relayMessage reply {status: Acknowledged, allResponses}."""
    rid = start_round(env.client, env.body())
    said = human(rid, "Watson I'd like to buy 5 eggs for $2", "Watson")
    said |= {"environmentUUID": "abcdefg"}
    reply = env.relay(said)
    assert reply["status"] == "Acknowledged" and isinstance(reply["allResponses"], list)
    for p in (env.watson, env.celia):
        assert p.wait_for("/receiveMessage", round_id=rid)[0] == said
    # Appendix C's relayMessage body, verbatim but for the round
    offer = {
        "text": "How about if I sell you 5 egg for 3.73 USD.",
        "speaker": "Watson",
        "role": "seller",
        "addressee": "Human",
        "environmentUUID": "abcdefg",
        "timeStamp": "2020-02-20T08:08:05.825Z",
        "bid": {
            "quantity": {"egg": 5},
            "type": "SellOffer",
            "price": {"unit": "USD", "value": 3.73},
        },
        "roundId": rid,
    }
    assert env.relay(offer)["status"] == "Acknowledged"
    bare = {k: v for k, v in offer.items() if k != "bid"}
    assert env.celia.wait_for("/receiveMessage", 2, round_id=rid)[1] == bare
    assert env.watson.wait_for("/receiveMessage", 2, round_id=rid)[1] == bare  # the echo
    assert env.ui.wait_for("/receiveMessage", 2, round_id=rid)[1] == offer
    # Watson again before the human spoke again: R3 blocks it
    again = offer | {"text": "Or 5 egg for 3.50 USD.", "bid": offer["bid"] | {"price": {
        "unit": "USD", "value": 3.5}}}  # fmt: skip
    reply = env.relay(again)
    assert (reply["status"], reply["permitted"], reply["rule"]) == ("Blocked", False, "R3")
    rej = env.watson.wait_for("/receiveRejection", round_id=rid)[0]
    assert rej == again | {"rationale": reply["rationale"]}
    assert set(rej) == set(CAPTURES["EO -> agent /receiveRejection"]["body"])
    logs = env.ui.wait_for("/receiveLog", 3, round_id=rid)
    assert logs[0] == said | {"permitted": True, "rationale": logs[0]["rationale"]}
    assert logs[2] == again | {"permitted": False, "rationale": reply["rationale"]}
    assert set(logs[2]) == set(CAPTURES["EO -> human UI /receiveLog (blocked agent msg)"]["body"])
    assert "Agent speaking twice" in logs[2]["rationale"]
    assert "Or 5 egg for 3.50 USD." not in [m["text"] for m in env.celia.bodies("/receiveMessage")]


def test_generation_2_deal_is_confirmed_by_the_human_ui(env: Env) -> None:
    """An agent's Accept: the UI is asked to /confirmAccept (message plus bid), the price
    leaves the budget, the goods join the human's purchases."""
    rid = start_round(env.client, env.body(budget=20.0))
    env.relay(human(rid, "Celia, I accept 2 eggs and 1 cup of milk for $3.10", "Celia"))
    deal = agent(
        rid, "Celia", "Deal: 2 eggs 1 milk for 3.10 USD.", "Accept", {"egg": 2, "milk": 1}, 3.1
    )
    assert env.relay(deal)["permitted"]
    assert env.ui.wait_for("/confirmAccept", round_id=rid)[0] == deal
    state = env.client.get(f"/rounds/{rid}").json()
    assert state["remainingBudget"] == 16.9 and state["purchases"] == {"egg": 2, "milk": 1}
    view = env.client.get("/viewTotals", params={"roundId": rid}).json()
    assert view["Celia"] == {"price": 3.1, "quantity": {"egg": 2, "milk": 1}}
    assert view["Human"] == {"price": 3.1, "quantity": {"egg": 2, "milk": 1}}
    assert view["Watson"] == {"price": 0.0, "quantity": {}}


def test_generation_1_deal_needs_no_confirmation(env: Env) -> None:
    """Generation 1 (the whole round body to /startRound) had no /confirmAccept: the
    seller's acceptance of the buyer's offer books the deal by itself."""
    for live in env.client.get("/rounds").json():  # generation 1 has one global round
        rid = live["roundId"]
        while env.client.get(f"/rounds/{rid}").json()["phase"] in ("warmup", "active", "post"):
            env.client.post("/endRound", json={"roundId": rid})
    body = env.body(budget=20.0) | {"roundId": f"gen1-{time.monotonic_ns()}", "roundNumber": 1}
    r = env.client.post("/startRound", json=body)
    assert r.status_code == 200, r.text
    rid = body["roundId"]
    env.wait_phase(rid, "active")
    assert not env.ui.bodies("/sendRoundMetadata", rid)
    ask = {"type": "BuyOffer", "quantity": {"egg": 3}, "price": {"unit": "USD", "value": 2.0}}
    env.relay(human(rid, "Watson, 3 eggs for $2?", "Watson") | {"bid": ask})
    # Watson accepts the buyer's standing offer to him (nothing else may be accepted)
    assert env.relay(agent(rid, "Watson", "Deal.", "Accept", {"egg": 3}, 2.0))["permitted"]
    env.ui.wait_for("/receiveLog", 2, round_id=rid)  # a confirmation would come first
    assert not env.ui.bodies("/confirmAccept", rid)
    state = env.client.get(f"/rounds/{rid}").json()
    assert (state["generation"], state["remainingBudget"], state["purchases"]) == (
        1,
        18.0,
        {"egg": 3},
    )


def test_only_the_last_save_counts_and_no_save_earns_nothing(tmp_path: Path) -> None:
    """Appendix D: Save may be pressed several times, the last Save before the post
    phase ends counts; without a Save the goods earn the buyer nothing. The sellers'
    utilities do not depend on the buyer's allocation.

    The rounds run on a VirtualClock: their 1 s and 0.8 s pass when the test says so,
    however long the deals and the three Saves take on a loaded machine."""
    clock = VirtualClock(start=1000.0)

    def advance(seconds: float) -> None:
        wait_until(lambda: len(clock.pending) >= 2, "both round runners waiting on the clock")
        clock.advance(seconds)

    app = create_orchestrator_app(db_path=tmp_path / "eo.db", rule_config=FAST, clock=clock)
    with Env(app) as env:
        only_the_last_save_counts(env, advance)


def only_the_last_save_counts(env: Env, advance: Any) -> None:
    kit = {"egg": 3, "flour": 4, "milk": 3, "sugar": 1}  # one cake + one pancake batch
    rids = [start_round(env.client, env.body(duration=1.0, post=0.8)) for _ in range(2)]
    for rid in rids:
        env.relay(human(rid, "Watson, 3 eggs 4 flour 3 milk and 1 sugar for $6?", "Watson"))
        assert env.relay(agent(rid, "Watson", "Deal.", "Accept", kit, 6.0))["permitted"]
    saved, unsaved = rids
    advance(1.0)  # the negotiation
    env.wait_phase(saved, "post")
    for payload in (
        {"cake": {"unit": "each", "quantity": 1, "supplement": []}},
        {"cake": {"unit": "each", "quantity": 1}, "pancake": {"unit": "each", "quantity": 1}},
        {"pancake": {"unit": "each", "quantity": 1, "supplement": []}},
    ):
        r = env.client.post(
            "/receiveHumanAllocation",
            json={"roundId": saved, "payload": payload},
            headers={"X-Accord-Token": secret_of(env.ui, saved)},  # only the buyer's UI may
        )
        assert r.json() == {"roundId": saved, "status": "Acknowledged"}
    advance(0.8)  # the post phase
    got = {
        rid: env.ui.wait_for("/receiveRoundTotals", round_id=rid)[0]["roundTotals"] for rid in rids
    }
    late = {"roundId": saved, "payload": {"cake": {"unit": "each", "quantity": 1}}}
    secret = {"X-Accord-Token": secret_of(env.ui, saved)}
    r = env.client.post("/receiveHumanAllocation", json=late, headers=secret)
    assert r.status_code == 409 and "round is ended" in r.json()["error"]
    assert got[saved]["Human"]["utility"]["value"] == 27.43  # the last Save: pancakes
    assert got[saved]["Human"]["utility"]["breakdown"] == {
        "pancake": {"quantity": 1, "utility": 27.43, "supplement": []}
    }
    assert got[unsaved]["Human"]["utility"] == {
        "currencyUnit": "USD",
        "value": 0.0,
        "breakdown": {},
    }
    # Watson: 6.00 - (3*.47 + 4*.96 + 3*.35 + .96) = 6.00 - 7.26 = -1.26 in both rounds
    for rid in rids:
        assert got[rid]["Watson"]["utility"] == {"currencyUnit": "USD", "value": -1.26}
        assert got[rid]["Human"]["cost"] == 6.0 and got[rid]["Human"]["quantity"] == kit
