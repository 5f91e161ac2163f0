"""Deals over HTTP (issue 9, items 2 and 4): a buyer accepts only an offer that stands,
at its goods and price; a deal the buyer declines is blocked, refunded, told to the
seller and logged as not permitted."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from accord.leagues.humaine.orchestrator import create_orchestrator_app
from accord.leagues.humaine.rules import RuleConfig
from accord.leagues.humaine.testing import Party, Stage, agent, human
from accord.web.testing import SkipClock, wait_until

FAST = RuleConfig(human_gap=0.2)
CLOCK = SkipClock()
"""The orchestrators' clock: a test skips R0's gap (0.2 s) instead of sleeping."""


def app_at(db: Path) -> Any:
    return create_orchestrator_app(db_path=db, rule_config=FAST, clock=CLOCK)


@pytest.fixture
def stage(tmp_path: Path) -> Iterator[Stage]:
    app = app_at(tmp_path / "eo.db")
    with Stage(app) as s:
        yield s


def accept(rid: str, to: str, quantity: dict[str, int], price: float) -> dict[str, Any]:
    bid = {"type": "Accept", "quantity": quantity, "price": {"unit": "USD", "value": price}}
    return human(rid, f"{to}, I accept", to) | {"bid": bid}


def state(stage: Stage, rid: str) -> dict[str, Any]:
    return dict(stage.client.get(f"/rounds/{rid}").json())


def test_a_buyer_accept_of_nothing_offered_is_refused_with_the_reason(stage: Stage) -> None:
    rid = stage.new_round()
    # the reproduction: 12 eggs for one cent that no seller offered
    r = stage.client.post("/relayMessage", json=accept(rid, "Celia", {"egg": 12}, 0.01)).json()
    assert (r["permitted"], r["rule"]) == (False, "offer")
    assert r["rationale"].startswith("No standing offer to accept: Celia has no offer")
    assert state(stage, rid)["purchases"] == {} and state(stage, rid)["remainingBudget"] == 50.0
    rejected = stage.ui.wait_for("/receiveRejection", round_id=rid)[0]
    assert rejected["rationale"] == r["rationale"]


def test_a_buyer_accepts_a_standing_offer_at_its_goods_and_price_only(stage: Stage) -> None:
    rid = stage.new_round()
    post = stage.client.post
    assert post("/relayMessage", json=human(rid, "Celia, 2 eggs?", "Celia")).json()["permitted"]
    offer = agent(rid, "Celia", "2 eggs for 4.50", "SellOffer", {"egg": 2}, 4.5)
    assert post("/relayMessage", json=offer).json()["permitted"]
    CLOCK.skip(0.2)  # R0
    for quantity, price in (({"egg": 12}, 4.5), ({"egg": 2}, 0.01), ({"egg": 2}, 4.49)):
        r = post("/relayMessage", json=accept(rid, "Celia", quantity, price)).json()
        assert (r["permitted"], r["rule"]) == (False, "offer"), (quantity, price)
        assert "Celia offers 2 egg for 4.50 USD" in r["rationale"]
    # another seller's offer cannot be accepted from Celia
    r = post("/relayMessage", json=accept(rid, "Watson", {"egg": 2}, 4.5)).json()
    assert r["rule"] == "offer" and "Watson has no offer" in r["rationale"]
    r = post("/relayMessage", json=accept(rid, "Celia", {"egg": 2}, 4.5)).json()
    assert r["permitted"] and r["rule"] is None
    s = state(stage, rid)
    assert s["purchases"] == {"egg": 2} and s["remainingBudget"] == 45.5
    # bought: the offer no longer stands
    CLOCK.skip(0.2)  # R0
    r = post("/relayMessage", json=accept(rid, "Celia", {"egg": 2}, 4.5)).json()
    assert r["rule"] == "offer" and "no offer that still stands" in r["rationale"]
    assert state(stage, rid)["remainingBudget"] == 45.5


def test_a_replaced_offer_no_longer_stands(stage: Stage) -> None:
    rid = stage.new_round()
    post = stage.client.post
    post("/relayMessage", json=human(rid, "Celia, 2 eggs?", "Celia"))
    post("/relayMessage", json=agent(rid, "Celia", "5", "SellOffer", {"egg": 2}, 5.0))
    CLOCK.skip(0.2)  # R0
    post("/relayMessage", json=human(rid, "Celia, less?", "Celia"))
    post("/relayMessage", json=agent(rid, "Celia", "4", "SellOffer", {"egg": 2}, 4.0))
    CLOCK.skip(0.2)  # R0
    assert post("/relayMessage", json=accept(rid, "Celia", {"egg": 2}, 5.0)).json()["rule"] == (
        "offer"
    )
    assert post("/relayMessage", json=accept(rid, "Celia", {"egg": 2}, 4.0)).json()["permitted"]


def test_a_standing_offer_survives_a_restart(tmp_path: Path) -> None:
    db = tmp_path / "eo.db"
    with Stage(app_at(db)) as stage:
        rid = stage.new_round()
        stage.client.post("/relayMessage", json=human(rid, "Celia, 2 eggs?", "Celia"))
        offer = agent(rid, "Celia", "4.5", "SellOffer", {"egg": 2}, 4.5)
        assert stage.client.post("/relayMessage", json=offer).json()["permitted"]
        party_ports = (stage.celia, stage.watson, stage.ui)
        assert all(p.port for p in party_ports)
    CLOCK.skip(0.2)  # R0
    with Stage(app_at(db)) as again:
        r = again.client.post("/relayMessage", json=accept(rid, "Celia", {"egg": 2}, 4.5))
        assert r.json()["permitted"], r.text


def test_a_declined_deal_is_blocked_refunded_told_to_the_seller_and_logged(
    tmp_path: Path,
) -> None:
    app = app_at(tmp_path / "eo.db")
    with Stage(app, ui=Party("ui", confirm="declined")) as stage:
        rid = stage.new_round()
        post = stage.client.post
        post("/relayMessage", json=human(rid, "Watson, I accept 2 eggs for $9", "Watson"))
        deal = agent(rid, "Watson", "Deal", "Accept", {"egg": 2}, 9.0)
        r = post("/relayMessage", json=deal).json()
        assert r["permitted"] and r["awaiting"] == "the buyer's confirmation"
        rejection = stage.watson.wait_for("/receiveRejection", round_id=rid)[0]
        assert rejection["rationale"].startswith("Deal declined by the buyer")
        assert rejection["bid"]["type"] == "Accept"
        s = state(stage, rid)
        assert s["remainingBudget"] == 50.0 and s["purchases"] == {}
        last = s["decisions"][-1]
        assert (last["permitted"], last["rule"], last["deal"]) == (False, "confirm", False)
        logs = [b for b in stage.ui.wait_for("/receiveLog", 2, round_id=rid) if b["text"] == "Deal"]
        assert [b["permitted"] for b in logs] == [False]
        # Watson's turn was not spent on the declined deal: he may answer again
        again = agent(rid, "Watson", "Then 2 eggs for 8", "SellOffer", {"egg": 2}, 8.0)
        assert post("/relayMessage", json=again).json()["permitted"]
        # never broadcast as a deal: neither agent nor the UI heard the Accept as a message
        # (each party's deliveries are in order: it would have come before the next words)
        CLOCK.skip(0.2)  # R0
        assert post("/relayMessage", json=human(rid, "Celia, and you?", "Celia")).json()[
            "permitted"
        ]
        said = ["Watson, I accept 2 eggs for $9", "Celia, and you?"]
        for p in (stage.celia, stage.watson, stage.ui):
            got = wait_until(
                lambda p=p: (
                    (t := [b["text"] for b in p.bodies("/receiveMessage", rid)])
                    and t[-1] == said[-1]
                    and t
                ),
                f"{p.name}'s copy of the buyer's next words",
            )
            assert [t for t in got if t != "Then 2 eggs for 8"] == said, p.name
    with Stage(app_at(tmp_path / "eo.db")) as later:
        s = state(later, rid)  # as stored
        assert s["remainingBudget"] == 50.0 and s["purchases"] == {}
        assert [d["rule"] for d in s["decisions"]][1] == "confirm"


def test_a_confirmed_deal_goes_out_after_the_confirmation(stage: Stage) -> None:
    rid = stage.new_round()
    post = stage.client.post
    post("/relayMessage", json=human(rid, "Watson, I accept 2 eggs for $9", "Watson"))
    post("/relayMessage", json=agent(rid, "Watson", "Deal", "Accept", {"egg": 2}, 9.0))
    got = stage.celia.wait_for("/receiveMessage", 2, round_id=rid)
    asked = stage.ui.times("/confirmAccept")[0]
    told = [t for r, t, b in stage.celia.received if b.get("text") == "Deal"][0]
    assert told >= asked and "bid" not in got[1]
    s = state(stage, rid)
    assert s["remainingBudget"] == 41.0 and s["purchases"] == {"egg": 2}
    assert s["decisions"][-1]["permitted"] and s["decisions"][-1]["deal"]
