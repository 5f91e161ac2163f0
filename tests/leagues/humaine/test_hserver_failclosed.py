"""HUMAINE fails closed (issue 23, item 5), against the real orchestrator on loopback:
a seller's Accept of an offer the buyer never made is refused, with or without a UI to
confirm; words are read as the buyer meant them (a quantity is never a price); the
caller of ``/startRound`` learns no party's secret; and the request models are in the
OpenAPI documents while the original's wire bodies are still accepted."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from accord.leagues.humaine.agents.intent import read_intent
from accord.leagues.humaine.agents.language import parse_utterance
from accord.leagues.humaine.notices import plain_notice
from accord.leagues.humaine.orchestrator import create_orchestrator_app
from accord.leagues.humaine.rules import Intent, RuleConfig
from accord.leagues.humaine.testing import (
    COSTS_C,
    COSTS_W,
    Party,
    Stage,
    agent,
    human,
    round_body,
)
from accord.leagues.humaine.utility_generator import create_utility_generator_app

pytestmark = pytest.mark.timeout(300)  # a hang guard (a loaded machine is slow, not hung)
FAST = RuleConfig(human_gap=0.0, simultaneity=0.0)
"""No waiting between the buyer's messages, no "simultaneous" agent replies (not the point)."""
REFERENCE = Path("/work/shared/reference/humaine-api-examples.json")


@pytest.mark.parametrize("ui_answers", ["acknowledged", None])
def test_a_seller_cannot_accept_an_offer_the_buyer_never_made(
    tmp_path: Path, ui_answers: str | None
) -> None:
    """The issue's case: an authenticated seller "accepts" 1 egg for $45. Refused at once
    (rule "offer"), whether the buyer's UI would confirm or not answer at all; the
    budget stays 50."""
    app = create_orchestrator_app(db_path=tmp_path / "eo.db", rule_config=FAST)
    ui = Party("ui", confirm=ui_answers or "declined", confirm_delay=0 if ui_answers else 30)
    with Stage(app, ui=ui) as stage:
        rid = stage.new_round()
        post = stage.client.post
        assert post("/relayMessage", json=human(rid, "Watson, how much for 2 eggs?", "Watson"))
        r = post("/relayMessage", json=agent(rid, "Watson", "Sold!", "Accept", {"egg": 1}, 45.0))
        body = r.json()
        assert (body["permitted"], body["rule"]) == (False, "offer"), body
        assert body["rationale"].startswith("No standing buyer offer to accept")
        state = stage.client.get(f"/rounds/{rid}").json()
        assert state["remainingBudget"] == 50.0 and state["purchases"] == {}
        told = stage.watson.wait_for("/receiveRejection", 1, round_id=rid)[0]
        assert told["rationale"] == body["rationale"]
        assert ui.bodies("/confirmAccept", rid) == []  # never even asked


def test_the_buyers_words_make_the_offer_a_seller_may_accept(tmp_path: Path) -> None:
    """'Celia, 2 eggs for $3' lets Celia accept exactly that, and only that; her Accept
    of more money, or other goods, is refused."""
    app = create_orchestrator_app(db_path=tmp_path / "eo.db", rule_config=FAST)
    with Stage(app) as stage:
        rid = stage.new_round()
        post = stage.client.post
        post("/relayMessage", json=human(rid, "Celia, 2 eggs for $3?", "Celia"))
        greedy = post("/relayMessage", json=agent(rid, "Celia", "4!", "Accept", {"egg": 2}, 4.0))
        assert (greedy.json()["permitted"], greedy.json()["rule"]) == (False, "offer")
        fair = post("/relayMessage", json=agent(rid, "Celia", "OK", "Accept", {"egg": 2}, 3.0))
        assert fair.json()["permitted"], fair.json()


@pytest.mark.parametrize(
    ("text", "intent"),
    [
        ("how much for 2 egs and 1 cup of mlik?", None),  # the issue's: a request, no price
        ("Celia, how much for 3 cups of flour", None),
        ("Watson, 2 eggs for 3", Intent("offer", {"egg": 2}, 3.0)),
        ("for 2 cups of sugar i pay 4 dollars", Intent("offer", {"sugar": 2}, 4.0)),
        ("no deal can i get two bucks and", Intent("price", {}, 2.0)),
        ("Celia, I accept", Intent("accept")),
        ("no thanks", Intent("reject")),
    ],
)
def test_quantities_are_never_read_as_prices(text: str, intent: Intent | None) -> None:
    assert read_intent(text) == intent
    act = parse_utterance(text)
    assert all(p not in (1.0, 2.0) or "buck" in text or "eggs for" in text for p in act.prices)


def test_an_unaddressed_price_with_two_offers_standing_is_nobodys_to_accept(
    tmp_path: Path,
) -> None:
    """The issue's misheard take "no deal can i get two bucks and", said to nobody while
    both sellers have offers standing: neither may take it as an offer of $2."""
    app = create_orchestrator_app(db_path=tmp_path / "eo.db", rule_config=FAST)
    with Stage(app) as stage:
        rid = stage.new_round()
        post = stage.client.post
        post("/relayMessage", json=human(rid, "Hello, 2 eggs please"))
        for name, price in (("Celia", 3.0), ("Watson", 3.2)):
            post("/relayMessage", json=agent(rid, name, "Offer", "SellOffer", {"egg": 2}, price))
        post("/relayMessage", json=human(rid, "no deal can i get two bucks and"))
        for name in ("Celia", "Watson"):
            r = post("/relayMessage", json=agent(rid, name, "OK", "Accept", {"egg": 2}, 2.0))
            assert (r.json()["permitted"], r.json()["rule"]) == (False, "offer"), r.json()
        assert stage.client.get(f"/rounds/{rid}").json()["remainingBudget"] == 50.0


def test_start_round_tells_its_caller_no_secret(tmp_path: Path) -> None:
    """Parties echo their /setUtility body (the recording party does, as the original
    agents do): the reply to /startRound carries none of the secrets."""
    app = create_orchestrator_app(db_path=tmp_path / "eo.db", rule_config=FAST)
    with Stage(app) as stage:
        agents = [stage.celia.agent_spec(COSTS_C), stage.watson.agent_spec(COSTS_W)]
        body = round_body(agents, [stage.ui.ui_spec()], authenticated=True)
        rid = stage.client.post("/initializeRound", json=body).json()["roundId"]
        replies = stage.client.post("/startRound", json={"roundId": rid}).json()
        secrets = [
            p.wait_for("/setUtility", round_id=rid)[0]["token"]
            for p in (stage.celia, stage.watson, stage.ui)
        ]
        assert all(len(s) >= 32 for s in secrets)
        text = json.dumps(replies)
        assert not any(s in text for s in secrets) and '"token"' not in text
        assert len(replies) == 4 and all(isinstance(r, dict) for r in replies)


def test_blocked_lines_read_as_plain_notices() -> None:
    human_r0 = plain_notice("Human", "Human spoke 0.4 s after the previous human utterance")
    assert (
        human_r0 == "Not sent: please wait 5 seconds between two of your messages, then try again."
    )
    forged = plain_notice("Celia", "Celia must present its secret token (X-Accord-Token ...)")
    assert "Celia" in forged and "token" not in forged.lower()
    for why in ("Agent speaking twice since the most recent human utterance", "weird <b>x</b>"):
        notice = plain_notice("Watson", why)
        assert notice == "A message from Watson was held back by the rules of the game."


def _request_schemas(app: Any) -> dict[str, str]:
    doc = TestClient(app).get("/openapi.json").json()
    out = {}
    for path, ops in doc["paths"].items():
        body = ops.get("post", {}).get("requestBody", {})
        schema = body.get("content", {}).get("application/json", {}).get("schema", {})
        refs = [schema] if "$ref" in schema else schema.get("oneOf", [])
        names = [r["$ref"].rsplit("/", 1)[1] for r in refs]
        assert all(n in doc["components"]["schemas"] for n in names), (path, names)
        if names:
            out[path] = "|".join(names)
    return out


def test_openapi_shows_every_request_model() -> None:
    assert _request_schemas(create_orchestrator_app()) == {
        "/relayMessage": "RelayMessage",
        "/initializeRound": "InitializeRound",
        "/startRound": "StartRoundRequest|InitializeRound",
        "/endRound": "EndRoundRequest",
        "/receiveHumanAllocation": "AllocationRequest",
    }
    assert _request_schemas(create_utility_generator_app(1)) == {
        "/calculateUtility/{role}": "CalculateUtilityRequest",
        "/checkAllocation": "CheckAllocationRequest",
        "/optimizeAllocation": "OptimizeAllocationRequest",
    }


@pytest.mark.skipif(not REFERENCE.is_file(), reason="the shared reference captures are absent")
def test_the_reference_bodies_are_still_accepted() -> None:
    """The original manager's /initializeRound body, and the original's relayed messages,
    validate against the models OpenAPI now shows (the wire format is unchanged)."""
    from accord.leagues.humaine.messages import InitializeRound, RelayMessage

    ref = json.loads(REFERENCE.read_text())
    init = ref["competition-manager -> EO /initializeRound body (harness-generated)"]
    assert InitializeRound.model_validate(init).roundId == init["roundId"]
    for key, example in ref.items():
        if "/receiveMessage" in key or key.startswith("driver human"):
            sent = example.get("body") or example.get("sent")
            assert RelayMessage.model_validate(sent).text == sent["text"], key


def test_a_deal_held_when_the_orchestrator_stops_is_no_deal_after_a_restart(
    tmp_path: Path,
) -> None:
    """The buyer's UI is still thinking when the orchestrator stops: the restarted
    orchestrator cannot ask again, so the held Accept is blocked and the money is back."""
    db = tmp_path / "eo.db"
    app = create_orchestrator_app(db_path=db, rule_config=FAST)
    ui = Party("ui", confirm="acknowledged", confirm_delay=30)  # never answers in time
    with Stage(app, ui=ui) as stage:
        rid = stage.new_round()
        post = stage.client.post
        post("/relayMessage", json=human(rid, "Watson, 2 eggs for $9", "Watson"))
        r = post("/relayMessage", json=agent(rid, "Watson", "Deal", "Accept", {"egg": 2}, 9.0))
        assert r.json()["awaiting"] == "the buyer's confirmation"
        ui.wait_for("/confirmAccept", 1, round_id=rid)
        assert stage.client.get(f"/rounds/{rid}").json()["remainingBudget"] == 41.0
    again = create_orchestrator_app(db_path=db, rule_config=FAST)
    with TestClient(again) as client:
        state = client.get(f"/rounds/{rid}").json()
    assert state["remainingBudget"] == 50.0 and state["purchases"] == {}
    last = [d for d in state["decisions"] if d["speaker"] == "Watson"][-1]
    assert (last["permitted"], last["rule"]) == (False, "confirm")
    assert "restarted before the buyer answered" in last["rationale"]
