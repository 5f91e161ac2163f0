"""The UI server as the orchestrator's human UI: state from the captured wire bodies,
checks of allocations, refusals with reasons, and persistence across restarts."""

from __future__ import annotations

import json
import socket
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from hui_kit import BUYER, KEYS, join

from accord.leagues.humaine.ui_server import addressee_in, create_ui_app
from accord.leagues.humaine.utility import BuyerUtility
from accord.web.testing import wait_until

EXAMPLES = json.loads((Path(__file__).parents[1] / "data" / "hserver_captures.json").read_text())
"""The original platform's wire bodies, captured (kept in the repository)."""
RID = "cddabe9a-fef9-422e-93ba-7613095dc7ac"
OFFER = {
    "text": "How about if I sell you 2 egg 2 flour 1 milk 1 sugar for 8.21 USD.",
    "speaker": "Watson",
    "role": "seller",
    "addressee": "Human",
    "timeStamp": "2026-11-21T23:49:17.525Z",
    "bid": {
        "quantity": {"egg": 2, "flour": 2, "milk": 1, "sugar": 1},
        "type": "SellOffer",
        "price": {"unit": "USD", "value": 8.21},
    },
    "roundId": RID,
}
ACCEPT = {
    **OFFER,
    "text": "I confirm that I'm selling you  2 egg 2 flour 1 milk 1 sugar for 8.21 USD.",
    "timeStamp": "2026-11-21T23:49:29.484Z",
    "bid": {**OFFER["bid"], "type": "Accept"},
}
TOTALS = {
    "Human": {"quantity": {"egg": 2}, "cost": 8.21, "utility": {"value": 23.81}},
    "Watson": {"quantity": {"egg": 2}, "revenue": 8.21, "utility": {"value": 4.04}},
}


SECRET = "the-buyers-secret-of-this-round"
"""The buyer's secret the orchestrator gives the UI in /setUtility."""


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def make(db: Path | str = ":memory:", auto_confirm: bool = True) -> TestClient:
    """A UI server whose orchestrator is unreachable; it confirms deals itself (a person
    confirming needs a real server: see test_ui_confirm.py)."""
    url = f"http://127.0.0.1:{closed_port()}"
    app = create_ui_app(orchestrator_url=url, db_path=db, auto_confirm=auto_confirm, **KEYS)
    return join(TestClient(app))


def setup_round(c: TestClient, rid: str = RID, budget: float = 50) -> None:
    meta = {"roundId": rid, "durations": {"warmUp": 20, "round": 45, "post": 6},
            "humanBudget": {"currentUnit": "USD", "value": budget}}  # fmt: skip
    assert c.post("/sendRoundMetadata", json=meta).json() == {"status": "acknowledged"}
    c.post("/setUtility", json={**BUYER, "name": "humanUI", "roundId": rid, "token": SECRET})


def active_round(c: TestClient) -> None:
    setup_round(c)
    c.post("/startRound", json={"roundId": RID, "roundDuration": 45, "timestamp": "x"})


def test_the_captured_generation_2_round_folds_into_the_ui_state():
    c = make()
    setup_round(c)
    s = c.get("/api/state").json()
    assert (s["roundId"], s["phase"], s["budget"], s["left"]) == (RID, "warmup", 50.0, 50.0)
    assert s["utility"]["utility"]["cake"]["parameters"]["unitvalue"] == 23.81
    # counting down (generous margins: a loaded machine takes seconds between two calls)
    assert s["remaining"]["round"] is None and 5 < s["remaining"]["warmUp"] <= 20
    c.post("/startRound", json={"roundId": RID, "roundDuration": 45, "timestamp": "x"})
    c.post("/receiveMessage", json=OFFER)
    s = c.get(f"/api/state?round={RID}").json()
    assert s["phase"] == "active" and 30 < s["remaining"]["round"] <= 45
    assert s["remaining"]["warmUp"] == 0
    assert s["offers"]["Watson"]["price"] == 8.21
    assert s["offers"]["Watson"]["quantity"] == {"egg": 2, "flour": 2, "milk": 1, "sugar": 1}
    assert c.post("/receiveMessage", json=ACCEPT).json() == {"status": "acknowledged"}
    assert c.post("/confirmAccept", json=ACCEPT).json() == {"status": "acknowledged"}
    s = c.get("/api/state").json()
    assert s["offers"] == {}
    assert [(d["seller"], d["price"]) for d in s["deals"]] == [("Watson", 8.21)]
    assert (s["spent"], s["left"]) == (8.21, 41.79)
    assert s["have"] == {"egg": 2, "flour": 2, "sugar": 1, "milk": 1, "chocolate": 0,
                         "vanilla": 0, "blueberry": 0}  # fmt: skip
    assert [m["speaker"] for m in s["transcript"]] == ["Watson", "Watson"]
    c.post("/endRound", json={"roundId": RID, "timestamp": "y"})
    s = c.get("/api/state").json()
    assert s["phase"] == "post" and s["remaining"]["round"] == 0
    c.post("/receiveRoundTotals", json={"roundId": RID, "roundTotals": TOTALS})
    s = c.get("/api/state").json()
    assert s["phase"] == "done" and s["totals"] == TOTALS


def test_every_captured_human_ui_body_is_acknowledged():
    c = make()
    for key, example in EXAMPLES.items():
        if key.startswith("EO -> human UI"):
            route = key.split()[4]
            r = c.post(route, json=example["body"])
            assert r.json() == {"status": "acknowledged"}, key
    s = c.get(f"/api/state?round={RID}").json()
    assert s["totals"]["Human"]["utility"]["value"] == 23.81
    assert s["deals"][0]["price"] == 8.21


def test_a_message_and_its_log_entry_show_once_and_a_verdict_updates_it():
    c = make()
    active_round(c)
    human = {"roundId": RID, "speaker": "Human", "addressee": "Watson", "role": "buyer",
             "text": "Watson, 2 eggs?", "timestamp": 1795304957346}  # fmt: skip
    c.post("/receiveMessage", json=human)
    c.post("/receiveLog", json={**human, "permitted": True, "rationale": None})
    blocked = {**human, "text": "again!", "timestamp": 1795304957999}
    c.post("/receiveRejection", json={**blocked, "rationale": "R0: too soon"})
    c.post("/receiveLog", json={**blocked, "permitted": False, "rationale": "R0: too soon"})
    t = c.get("/api/state").json()["transcript"]
    assert [(m["text"], m["permitted"], m["rationale"]) for m in t] == [
        ("Watson, 2 eggs?", True, None),
        ("again!", False, None),  # the rule's reason stays in the log: the person reads
    ]
    assert t[1]["notice"] == "Not sent: the rules of the game did not allow this message."


def test_generation_1_messages_without_round_id_go_to_the_latest_round():
    c = make()
    setup_round(c, "old")
    setup_round(c, "new")
    c.post("/startRound", json={"roundDuration": 300, "roundNumber": 1})
    assert c.get("/api/state?round=new").json()["phase"] == "active"
    assert c.get("/api/state?round=old").json()["phase"] == "warmup"
    assert [r["roundId"] for r in c.get("/api/rounds").json()] == ["new", "old"]


def test_can_i_make_reports_need_have_deficit_and_the_exact_value():
    c = make()
    active_round(c)
    c.post("/confirmAccept", json=ACCEPT)
    choc = {"chocolate": {"unit": "ounce", "quantity": 4}}
    one = {"cake": {"quantity": 1, "supplement": [choc]}, "pancake": {"quantity": 0}}
    r = c.post("/api/check", json={"allocation": one}).json()
    # 23.81 + 2.92 + (4 - 3) * (6.22 - 2.92) / (6 - 3) = 27.83
    assert r["value"] == 27.83
    assert r["sufficient"] is False and r["deficits"] == {"chocolate": 4}
    assert r["rationale"]["egg"] == {"need": 2, "have": 2}
    two = {"cake": {"quantity": 2}, "pancake": {"quantity": 1}}
    r = c.post("/api/check", json={"allocation": two}).json()
    assert r["deficits"] == {"egg": 3, "flour": 4, "milk": 3, "sugar": 1}
    assert r["value"] == round(2 * 23.81 + 27.43, 2)
    bad = c.post("/api/check", json={"allocation": {"cake": {"quantity": 1, "supplement": [
        {"blueberry": {"quantity": 1}}]}}})  # fmt: skip
    assert bad.status_code == 422 and "'blueberry' cannot flavour a cake" in bad.json()["error"]


def test_suggest_gives_the_optimisers_best_allocation():
    c = make()
    active_round(c)
    c.post("/confirmAccept", json=ACCEPT)
    r = c.post("/api/suggest", json={}).json()
    assert r["value"] == 23.81 and r["allocation"]["cake"]["quantity"] == 1


def test_suggest_turns_the_optimisers_refusal_into_a_422():
    """Goods for more than 1000 cakes and batches: the optimiser refuses, and the UI
    says why instead of failing with a 500."""
    c = make()
    active_round(c)
    c.post("/api/suggest", json={})  # nothing bought: fine
    huge = {"egg": 2002, "flour": 2002, "milk": 1001, "sugar": 1001}
    c.post("/confirmAccept", json={**ACCEPT, "bid": {**ACCEPT["bid"], "quantity": huge}})
    r = c.post("/api/suggest", json={})
    assert r.status_code == 422, r.text
    assert r.json()["error"] == (
        "cannot suggest an allocation: these goods make up to 1501 cakes and pancake "
        "batches; the optimiser handles at most 1000"
    )
    one = {"cake": {"quantity": 1}, "pancake": {"quantity": 0}}
    assert c.post("/api/check", json={"allocation": one}).json()["sufficient"] is True


def test_refusals_say_why():
    c = make()
    before = c.get("/api/state")  # polled by the pages: not an error before the first round
    assert before.status_code == 200 and before.json() is None
    active_round(c)
    assert c.post("/api/say", json={"text": ""}).status_code == 422
    assert c.post("/api/say", json={"text": "x" * 1001}).status_code == 422
    r = c.post("/api/say", json={"text": "hi", "addressee": "Mallory"})
    assert r.status_code == 422 and "addressee must be one of" in r.json()["error"]
    r = c.post("/api/say", json={"text": "Celia, 2 eggs?"})
    assert r.status_code == 502 and "orchestrator unreachable" in r.json()["error"]
    alloc = {"allocation": {"cake": {"quantity": 0}}}
    r = c.post("/api/allocation", json=alloc)
    assert r.status_code == 409 and "only in the post-round phase" in r.json()["error"]
    c.post("/endRound", json={"roundId": RID})
    r = c.post("/api/allocation", json={"allocation": {"cake": {"quantity": 1}}})
    assert r.status_code == 409 and "missing {'egg': 2" in r.json()["error"]
    r = c.post("/api/say", json={"text": "hello"})
    assert r.status_code == 409 and "only while the round is active" in r.json()["error"]
    assert c.get("/api/state?round=nope").status_code == 404


def test_state_survives_a_restart(tmp_path):
    db = tmp_path / "ui.sqlite"
    c = make(db)
    active_round(c)
    c.post("/receiveMessage", json=OFFER)
    c.post("/confirmAccept", json=ACCEPT)
    before: dict[str, Any] = c.get("/api/state").json()
    after = make(db).get("/api/state").json()
    for k in ("roundId", "phase", "budget", "left", "offers", "deals", "have", "transcript"):
        assert after[k] == before[k], k


@pytest.mark.parametrize(
    ("text", "who"),
    [("Celia, 2 eggs", "Celia"), ("ok WATSON deal", "Watson"), ("eggs please", ""),
     ("Watson or Celia?", "Watson"), ("Celiac disease", "")],
)  # fmt: skip
def test_addressee_is_the_first_seller_named(text, who):
    assert addressee_in(text, ["Celia", "Watson"]) == who


def test_pages_and_shared_files_are_served():
    c = make()
    for page in ("chat.html", "assistant.html", "admin.html", "admin.js", "index.html", "chat.js", "assistant.js",
                 "round.js", "ui.css", "common/api.js", "common/style.css"):  # fmt: skip
        assert c.get(f"/{page}").status_code == 200, page


def test_the_chat_start_button_works_when_everything_shares_one_event_loop(tmp_path):
    """The UI server asks the utility generator over HTTP; with both served by one loop
    (as ``accord humaine up`` does) that call must not block the loop."""
    import httpx
    from hui_kit import SharedLoop

    from accord.leagues.humaine.manager.services import http_utility_source
    from accord.leagues.humaine.orchestrator import create_orchestrator_app
    from accord.leagues.humaine.testing import free_port
    from accord.leagues.humaine.utility_generator import create_utility_generator_app

    gen, orch, ui = free_port(), free_port(), free_port()
    orch_app = create_orchestrator_app(human_uis=[f"http://127.0.0.1:{ui}"])
    apps = {
        gen: create_utility_generator_app(1),
        orch: orch_app,
        ui: create_ui_app(
            **KEYS,
            admin_secret=orch_app.state.admin_secret,
            orchestrator_url=f"http://127.0.0.1:{orch}",
            utility_source=http_utility_source(f"http://127.0.0.1:{gen}", timeout=2),
            agents=[
                {"name": n, "host": "127.0.0.1", "port": free_port()} for n in ("Celia", "Watson")
            ],
        ),
    }
    with SharedLoop(apps), httpx.Client(timeout=10) as client:
        httpx = join(client, f"http://127.0.0.1:{ui}")  # type: ignore[assignment]
        body = {"warmUp": 5, "round": 60, "post": 10}
        r = httpx.post(f"http://127.0.0.1:{ui}/api/admin/start", json=body, timeout=10)
        assert r.status_code == 200, r.text
        rid = r.json()["roundId"]
        s = wait_until(
            lambda: (
                (
                    x := httpx.get(f"http://127.0.0.1:{ui}/api/state", params={"round": rid}).json()
                ).get("utility")
                and x
            ),
            "the buyer's utility at the UI",
        )
        assert s["phase"] == "warmup" and s["budget"] == 50.0
        BuyerUtility.from_wire(s["utility"])


def test_start_with_the_utility_generator_down_is_a_502_naming_it():
    from accord.leagues.humaine.manager.services import http_utility_source

    gen = f"http://127.0.0.1:{closed_port()}"
    c = join(
        TestClient(
            create_ui_app(
                orchestrator_url=f"http://127.0.0.1:{closed_port()}",
                utility_source=http_utility_source(gen, timeout=1),
                **KEYS,
            )
        )
    )
    r = c.post("/api/admin/start", json={"round": 10})
    assert r.status_code == 502 and f"utility generator at {gen}" in r.json()["error"]
    r = join(TestClient(create_ui_app(orchestrator_url=gen, **KEYS))).post(
        "/api/admin/start", json={}
    )
    assert r.status_code == 502 and "orchestrator unreachable" in r.json()["error"]
    bad = c.post("/api/admin/start", json={"round": 0})
    assert bad.status_code == 422
