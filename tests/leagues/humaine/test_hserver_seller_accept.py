"""A seller's Accept over HTTP in generation 1 (no confirmation step): it may take only
an offer the buyer made to that seller and that still stands, at its goods and price;
anything else is refused with the reason, told to the seller, logged as not permitted,
and the buyer's money is untouched."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
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
)
from accord.web.testing import SkipClock, wait_until

FAST = RuleConfig(human_gap=0.2)
OPEN = ["Human", "Celia", "Watson"]  # the original platform's parties: no secrets


CLOCK = SkipClock()
"""The orchestrator's clock: a test skips R0's gap (0.2 s) instead of sleeping."""


def app_at(db: Path) -> Any:
    return create_orchestrator_app(db_path=db, rule_config=FAST, unauthenticated=OPEN, clock=CLOCK)


@pytest.fixture
def stage(tmp_path: Path) -> Iterator[Stage]:
    with Stage(app_at(tmp_path / "eo.db")) as s:
        yield s


def start_gen1(stage: Stage) -> str:
    body = {
        "roundNumber": 1,
        "agents": [stage.watson.agent_spec(COSTS_W), stage.celia.agent_spec(COSTS_C)],
        "human": {"utilityFunction": BUYER_UTILITY},
        "durations": {"warmUp": 0, "round": 30, "post": 2},
        "humanUIs": [stage.ui.ui_spec()],
        "humanBudget": {"currentUnit": "USD", "value": 50.0},
    }
    assert stage.client.post("/startRound", json=body).status_code == 200
    rid = str(stage.client.get("/rounds").json()[0]["roundId"])
    wait_until(
        lambda: stage.client.get(f"/rounds/{rid}").json()["phase"] == "active",
        "the round's start",
    )
    return rid


def buy_offer(to: str, quantity: dict[str, int], price: float) -> dict[str, Any]:
    bid = {"type": "BuyOffer", "quantity": quantity, "price": {"unit": "USD", "value": price}}
    return human(None, f"{to}, {price} for those?", to) | {"bid": bid}


def relay(client: httpx.Client, body: dict[str, Any]) -> dict[str, Any]:
    r = client.post("/relayMessage", json=body)
    assert r.status_code == 200, r.text
    return dict(r.json())


def budget(stage: Stage, rid: str) -> float:
    return float(stage.client.get(f"/rounds/{rid}").json()["remainingBudget"])


def test_a_seller_cannot_accept_an_offer_the_buyer_never_made(stage: Stage) -> None:
    rid = start_gen1(stage)
    assert relay(stage.client, human(None, "Watson, 2 eggs?", "Watson"))["permitted"]
    # the reproduction: Watson "accepts" 9 dollars the buyer never offered
    r = relay(stage.client, agent(None, "Watson", "Deal!", "Accept", {"egg": 2}, 9.0))
    assert (r["permitted"], r["rule"]) == (False, "offer")
    assert r["rationale"].startswith("No standing buyer offer to accept: Human has made Watson")
    assert budget(stage, rid) == 50.0
    assert stage.client.get(f"/rounds/{rid}").json()["purchases"] == {}
    rejected = stage.watson.wait_for("/receiveRejection", round_id=rid)[0]
    assert rejected["rationale"] == r["rationale"]
    logs = [b for b in stage.ui.wait_for("/receiveLog", 2, round_id=rid) if b["text"] == "Deal!"]
    assert [b["permitted"] for b in logs] == [False]
    # and the refused Accept never reached anyone as a message: Celia's deliveries are in
    # order, so it would have come before the buyer's next words
    CLOCK.skip(0.2)  # R0
    assert relay(stage.client, human(None, "Celia, and you?", "Celia"))["permitted"]
    stage.celia.wait_for("/receiveMessage", 2, round_id=rid)
    heard = [b["text"] for b in stage.celia.bodies("/receiveMessage", rid)]
    assert heard == ["Watson, 2 eggs?", "Celia, and you?"]


def test_a_seller_accepts_the_buyers_offer_to_it_at_its_goods_and_price_only(
    stage: Stage,
) -> None:
    rid = start_gen1(stage)
    assert relay(stage.client, buy_offer("Watson", {"egg": 2}, 4.0))["permitted"]
    for quantity, price in (({"egg": 2}, 9.0), ({"egg": 3}, 4.0), ({"egg": 2}, 4.01)):
        r = relay(stage.client, agent(None, "Watson", "Deal", "Accept", quantity, price))
        assert (r["permitted"], r["rule"]) == (False, "offer"), (quantity, price)
        assert "Human offers Watson 2 egg for 4.00 USD" in r["rationale"]
    # the offer was made to Watson: Celia cannot take it
    r = relay(stage.client, agent(None, "Celia", "Deal", "Accept", {"egg": 2}, 4.0))
    assert r["rule"] == "offer" and "Human has made Celia no offer" in r["rationale"]
    assert budget(stage, rid) == 50.0
    r = relay(stage.client, agent(None, "Watson", "Deal", "Accept", {"egg": 2}, 4.0))
    assert r["permitted"] and r["rule"] is None
    assert budget(stage, rid) == 46.0
    assert stage.client.get(f"/rounds/{rid}").json()["purchases"] == {"egg": 2}
    # accepted: the buyer's offer no longer stands
    CLOCK.skip(0.2)  # R0
    assert relay(stage.client, human(None, "Watson, thanks", "Watson"))["permitted"]
    r = relay(stage.client, agent(None, "Watson", "Again", "Accept", {"egg": 2}, 4.0))
    assert r["rule"] == "offer" and "no offer that still stands" in r["rationale"]
    assert budget(stage, rid) == 46.0


def test_a_withdrawn_or_unaddressed_buyer_offer_cannot_be_accepted(stage: Stage) -> None:
    rid = start_gen1(stage)
    relay(stage.client, buy_offer("Celia", {"egg": 2}, 3.0))
    CLOCK.skip(0.2)  # R0
    reject = {"type": "Reject", "quantity": {}}
    assert relay(stage.client, human(None, "Celia, never mind", "Celia") | {"bid": reject})[
        "permitted"
    ]
    r = relay(stage.client, agent(None, "Celia", "Deal", "Accept", {"egg": 2}, 3.0))
    assert r["rule"] == "offer"
    CLOCK.skip(0.2)  # R0
    relay(stage.client, buy_offer("", {"egg": 2}, 3.0))  # made to no seller in particular
    r = relay(stage.client, agent(None, "Celia", "Deal", "Accept", {"egg": 2}, 3.0))
    assert r["rule"] == "offer"
    assert budget(stage, rid) == 50.0


def test_the_buyers_standing_offer_survives_a_restart(tmp_path: Path) -> None:
    db = tmp_path / "eo.db"
    with Stage(app_at(db)) as stage:
        rid = start_gen1(stage)
        assert relay(stage.client, buy_offer("Watson", {"egg": 2}, 4.0))["permitted"]
    with Stage(app_at(db)) as again:
        r = relay(again.client, agent(rid, "Watson", "Deal", "Accept", {"egg": 2}, 4.0))
        assert r["permitted"], r
        assert budget(again, rid) == 46.0
