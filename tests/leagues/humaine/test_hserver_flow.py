"""Whole rounds over HTTP: generation 1 and 2 set-ups with the original JSON shapes, a
scripted full round with two agent services and a scripted buyer (totals checked by
hand), and persistence across a restart of the service."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import httpx

from accord.leagues.humaine.orchestrator import create_orchestrator_app
from accord.leagues.humaine.rules import RuleConfig
from accord.leagues.humaine.testing import (
    BUYER_UTILITY,
    COSTS_C,
    COSTS_W,
    Party,
    ServerThread,
    Stage,
    agent,
    human,
    operator_headers,
    round_body,
    start_round,
)
from accord.web.testing import SkipClock, VirtualClock, wait_until

FAST = RuleConfig(human_gap=0.3)
CLOCK = VirtualClock(start=1000.0)
"""The scripted round's clock: it stands still until the test (or a seller waiting out
R3) moves it, so the round's phases, R0 and R3 never depend on the machine's speed."""


def advance(seconds: float) -> None:
    """Move the round's time on, once the orchestrator's round runner is waiting on it."""
    wait_until(lambda: CLOCK.pending, "the round runner waiting on the clock")
    CLOCK.advance(seconds)


def wait_phase(client: httpx.Client, rid: str, phase: str) -> None:
    wait_until(lambda: client.get(f"/rounds/{rid}").json()["phase"] == phase, f"the {phase}")


class ScriptedSeller:
    """A tiny seller service: offers a fixed bundle when addressed (Watson) or after the
    other seller's offer (Celia), and confirms with an Accept when the buyer accepts."""

    def __init__(self, name: str, offers: list[tuple[dict[str, int], float]]) -> None:
        self.name = name
        self.offers = offers
        self.current: tuple[dict[str, int], float] | None = None
        self.eo = ""
        self.lock = threading.Lock()
        self.party = Party(name, on_message=self.on_message)

    def on_message(self, _party: Party, msg: dict[str, Any]) -> None:
        text = msg["text"].lower()
        rid = msg["roundId"]
        mine = msg.get("addressee") == self.name
        with self.lock:
            if msg["speaker"] == "Human" and mine and "accept" in text and self.current:
                q, p = self.current
                words = " ".join(f"{n} {g}" for g, n in q.items())
                reply = agent(rid, self.name, f"Deal: {words} for {p} USD.", "Accept", q, p)
                self.current = None
            elif self._should_offer(msg, mine) and self.offers:
                q, p = self.current = self.offers.pop(0)
                words = " ".join(f"{n} {g}" for g, n in q.items())
                reply = agent(rid, self.name, f"How about {words} for {p} USD.", "SellOffer", q, p)
            else:
                return
        if msg["speaker"] != "Human":
            # A reaction to the other seller's message: two seller messages received less
            # than R3's simultaneity window apart are simultaneous (the second is blocked),
            # so a reacting agent answers after it, as any real one does (skipped here).
            CLOCK.advance(RuleConfig().simultaneity + 0.05)
        r = httpx.post(self.eo + "/relayMessage", json=reply, timeout=5)
        assert r.status_code == 200 and r.json()["permitted"], r.text

    def _should_offer(self, msg: dict[str, Any], mine: bool) -> bool:
        if self.name == "Watson":
            return msg["speaker"] == "Human" and mine and "accept" not in msg["text"].lower()
        return msg["speaker"] == "Watson" and msg["text"].startswith("How about")


def test_scripted_full_round(tmp_path: Path) -> None:
    watson = ScriptedSeller(
        "Watson",
        [
            ({"egg": 2, "flour": 2, "milk": 1, "sugar": 1}, 8.21),
            ({"egg": 1, "flour": 2, "milk": 2}, 5.06),
        ],
    )
    celia = ScriptedSeller("Celia", [({"egg": 2, "flour": 2, "milk": 1, "sugar": 1}, 7.5)])
    app = create_orchestrator_app(db_path=tmp_path / "eo.db", rule_config=FAST, clock=CLOCK)
    with Stage(app, celia=celia.party, watson=watson.party) as stage:
        w, c, ui, client = stage.watson, stage.celia, stage.ui, stage.client
        watson.eo = celia.eo = stage.server.url
        body = round_body(
            [w.agent_spec(COSTS_W), c.agent_spec(COSTS_C)],
            [ui.ui_spec()],
            warmup=0.3,
            duration=4.0,
            post=1.5,
        )
        rid = client.post("/initializeRound", json=body).json()["roundId"]
        assert client.post("/startRound", json={"roundId": rid}).status_code == 200
        advance(0.3)  # the warm-up
        wait_phase(client, rid, "active")
        # the buyer: ask Watson, take Celia's cheaper counter-offer, then buy pancake
        # ingredients from Watson
        say = lambda text, to: client.post("/relayMessage", json=human(rid, text, to)).json()  # noqa: E731
        assert say(
            "Watson, I want 2 eggs, 2 cups of flour, 1 cup of milk and 1 cup of sugar", "Watson"
        )["permitted"]
        offers = ui.wait_for("/receiveMessage", 3, round_id=rid)
        assert [m["speaker"] for m in offers] == ["Human", "Watson", "Celia"]
        assert offers[2]["bid"] == {
            "type": "SellOffer",
            "quantity": {"egg": 2, "flour": 2, "milk": 1, "sugar": 1},
            "price": {"unit": "USD", "value": 7.5},
        }
        CLOCK.advance(0.35)  # R0 (0.3 s; floats: a little more)
        assert say("Celia, I accept your offer", "Celia")["permitted"]
        ui.wait_for("/confirmAccept", 1, round_id=rid)
        CLOCK.advance(0.35)  # R0 (0.3 s; floats: a little more)
        assert say("Watson, I need 1 egg, 2 cups of flour and 2 cups of milk", "Watson")[
            "permitted"
        ]
        wait_until(  # Watson's second offer is out (not just any sixth message)
            lambda: any(
                m["speaker"] == "Watson"
                and (m.get("bid") or {}).get("price", {}).get("value") == 5.06
                for m in ui.bodies("/receiveMessage", rid)
            ),
            "Watson's second offer",
        )
        CLOCK.advance(0.35)  # R0 (0.3 s; floats: a little more)
        assert say("Watson, I accept", "Watson")["permitted"]
        confirms = ui.wait_for("/confirmAccept", 2, round_id=rid)
        assert [m["speaker"] for m in confirms] == ["Celia", "Watson"]
        totals = client.get("/viewTotals", params={"roundId": rid}).json()
        assert totals["Human"] == {
            "price": 12.56,
            "quantity": {"egg": 3, "flour": 4, "sugar": 1, "milk": 3},
        }
        advance(1000.3 + 4.0 - CLOCK.now())  # to the end of the negotiation
        wait_phase(client, rid, "post")
        alloc = {
            "roundId": rid,
            "payload": {
                "cake": {"unit": "each", "quantity": 1, "supplement": []},
                "pancake": {"unit": "each", "quantity": 1, "supplement": []},
            },
        }
        r = client.post("/receiveHumanAllocation", json=alloc)
        assert r.json() == {"roundId": rid, "status": "Acknowledged"}
        advance(1.5)  # the post phase
        got = ui.wait_for("/receiveRoundTotals", 1, round_id=rid)[0]["roundTotals"]
        # by hand: Celia sold 2 egg 2 flour 1 milk 1 sugar for 7.50, cost
        # 2*.49 + 2*.71 + .30 + .81 = 3.51, utility 3.99; Watson sold 1 egg 2 flour
        # 2 milk for 5.06, cost .47 + 2*.96 + 2*.35 = 3.09, utility 1.97; the human paid
        # 12.56 and bakes 1 cake (23.81) + 1 pancake batch (27.43) = 51.24.
        assert got["Celia"] == {
            "quantity": {"egg": 2, "flour": 2, "sugar": 1, "milk": 1},
            "revenue": 7.5,
            "utility": {"currencyUnit": "USD", "value": 3.99},
        }
        assert got["Watson"] == {
            "quantity": {"egg": 1, "flour": 2, "milk": 2},
            "revenue": 5.06,
            "utility": {"currencyUnit": "USD", "value": 1.97},
        }
        assert got["Human"]["cost"] == 12.56
        assert got["Human"]["utility"]["value"] == 51.24
        assert got["Human"]["utility"]["breakdown"] == {
            "cake": {"quantity": 1, "utility": 23.81, "supplement": []},
            "pancake": {"quantity": 1, "utility": 27.43, "supplement": []},
        }
        # every party got start and end; agents never saw a bid
        for p in (w, c, ui):
            assert len(p.bodies("/startRound", rid)) == 1 and len(p.bodies("/endRound", rid)) == 1
        assert all("bid" not in m for m in w.bodies("/receiveMessage", rid))


def test_generation_1_round_without_round_id(tmp_path: Path) -> None:
    """The whole round body to /startRound; messages without roundId find the round."""
    app = create_orchestrator_app(
        db_path=tmp_path / "eo.db",
        rule_config=FAST,
        human_uis=[],
        unauthenticated=["Human", "Celia", "Watson"],  # parties of the original: no secrets
    )
    with Stage(app, ui=Party("humanUI")) as stage:
        w, c, ui, client = stage.watson, stage.celia, stage.ui, stage.client
        body = {
            "roundNumber": 1,
            "agents": [
                w.agent_spec(COSTS_W) | {"port": str(w.port)},  # ports arrived as strings
                c.agent_spec(COSTS_C),
            ],
            "human": {"utilityFunction": BUYER_UTILITY},
            "durations": {"warmUp": 0.2, "round": "30", "post": "5"},
            "humanUIs": [ui.ui_spec()],
        }
        r = client.post("/startRound", json=body)
        assert r.status_code == 200, r.text
        replies = r.json()
        assert (
            replies[-2]["status"] == "Acknowledged" and replies[-2]["utility"]["name"] == "Watson"
        )
        su = w.wait_for("/setUtility")[0]
        assert su["name"] == "Watson" and su["currencyUnit"] == "USD"
        assert su["utility"]["egg"] == {
            "type": "unitcost",
            "unit": "each",
            "parameters": {"unitcost": 0.47},
        }
        assert ui.wait_for("/setUtility")[0]["utility"]["cake"]["parameters"]["unitvalue"] == 23.81
        assert not ui.bodies("/sendRoundMetadata")  # generation 2 only
        start = w.wait_for("/startRound")[0]
        assert start["roundDuration"] == 30.0 and start["roundNumber"] == 1
        assert start["timestamp"].endswith("Z")
        # a message with no roundId (and no addressee: "Watson, ..." names him)
        r = client.post("/relayMessage", json=human(None, "Watson, I'd like to buy 5 eggs for $2"))
        assert r.json()["permitted"]
        got = w.wait_for("/receiveMessage")[0]
        assert got["addressee"] == "Watson" and got["speaker"] == "Human"
        assert got["text"] == "Watson, I'd like to buy 5 eggs for $2"


def test_restart_keeps_rounds_and_rule_state(tmp_path: Path) -> None:
    db = tmp_path / "eo.db"
    with Party("Watson") as w, Party("Celia") as c, Party("ui") as ui:
        body = round_body(
            [w.agent_spec(COSTS_W), c.agent_spec(COSTS_C)], [ui.ui_spec()], duration=60
        )
        app = create_orchestrator_app(db_path=db, rule_config=FAST)
        admin = operator_headers(app)
        with ServerThread(app) as srv, httpx.Client(base_url=srv.url, headers=admin) as client:
            rid = start_round(client, body)
            client.post("/relayMessage", json=human(rid, "Watson, 2 eggs for $4?", "Watson"))
            r = client.post("/relayMessage", json=agent(rid, "Watson", "Deal", "Accept", price=4.0))
            assert r.json()["permitted"]
            before = client.get(f"/rounds/{rid}").json()
        app2 = create_orchestrator_app(db_path=db, rule_config=FAST)
        with ServerThread(app2) as srv, httpx.Client(base_url=srv.url, timeout=10) as client:
            after = client.get(f"/rounds/{rid}").json()
            assert after["phase"] == "active"
            assert after["decisions"] == before["decisions"]
            assert after["remainingBudget"] == 46.0 and after["purchases"] == {"egg": 2}
            # R3 still knows Watson spoke after the last human utterance
            r = client.post("/relayMessage", json=agent(rid, "Watson", "More eggs?"))
            assert (r.json()["permitted"], r.json()["rule"]) == (False, "R3")
            assert [x["roundId"] for x in client.get("/rounds").json()] == [rid]
            # and the round goes on
            r = client.post("/relayMessage", json=human(rid, "Celia, milk?", "Celia"))
            assert r.json()["permitted"]
            c.wait_for("/receiveMessage", 3, round_id=rid)


def test_restart_keeps_r2_the_addressed_agents_first_right(tmp_path: Path) -> None:
    """R2 across a restart: the human addressed Watson, then the orchestrator restarted.
    Celia (unaddressed) is still blocked while Watson's window runs, and once it has
    passed Watson is blocked until the next human utterance and Celia may answer. The
    window counts from the human's utterance as stored, not from the restart; it is 30 s
    here so that the restart always falls inside it, and the test skips past it on the
    orchestrator's clock (no sleep)."""
    db = tmp_path / "eo.db"
    clock = SkipClock()
    rules = RuleConfig(human_gap=0.3, addressee_window=30.0)
    with Party("Watson") as w, Party("Celia") as c, Party("ui") as ui:
        body = round_body(
            [w.agent_spec(COSTS_W), c.agent_spec(COSTS_C)], [ui.ui_spec()], duration=600
        )
        app = create_orchestrator_app(db_path=db, rule_config=rules, clock=clock)
        admin = operator_headers(app)
        with ServerThread(app) as srv, httpx.Client(base_url=srv.url, headers=admin) as client:
            rid = start_round(client, body)
            r = client.post("/relayMessage", json=human(rid, "Watson, 2 eggs?", "Watson"))
            assert r.json()["permitted"]
        app2 = create_orchestrator_app(db_path=db, rule_config=rules, clock=clock)
        with ServerThread(app2) as srv, httpx.Client(base_url=srv.url, timeout=10) as client:
            early = client.post("/relayMessage", json=agent(rid, "Celia", "2 eggs for 3", price=3))
            assert (early.json()["permitted"], early.json()["rule"]) == (False, "R2")
            assert "Watson was addressed" in early.json()["rationale"]
            clock.skip(30.0)  # Watson's window has passed
            late = client.post("/relayMessage", json=agent(rid, "Watson", "2 eggs for 4", price=4))
            assert (late.json()["permitted"], late.json()["rule"]) == (False, "R2")
            assert "window has expired" in late.json()["rationale"]
            r = client.post("/relayMessage", json=agent(rid, "Celia", "2 eggs for 3", price=3))
            assert r.json()["permitted"], r.json()


def test_phases_warmup_admin_end_and_post(tmp_path: Path) -> None:
    """Messages in the warm-up are blocked; the admin ends the negotiation early; then
    messages are blocked again and the post phase runs its course."""
    app = create_orchestrator_app(db_path=tmp_path / "eo.db", rule_config=FAST)
    with Stage(app) as stage:
        w, c, ui, client = stage.watson, stage.celia, stage.ui, stage.client
        body = round_body(
            [w.agent_spec(COSTS_W), c.agent_spec(COSTS_C)], [ui.ui_spec()], warmup=0.6, post=0.6
        )
        rid = client.post("/initializeRound", json=body).json()["roundId"]
        assert client.get(f"/rounds/{rid}").json()["phase"] == "created"
        r = client.post("/endRound", json={"roundId": rid})
        assert r.status_code == 409 and "not started yet" in r.json()["error"]
        client.post("/startRound", json={"roundId": rid})
        r = client.post("/relayMessage", json=human(rid, "too early"))
        assert (r.json()["permitted"], r.json()["rule"]) == (False, "phase")
        assert "round not active" in r.json()["rationale"]
        again = client.post("/startRound", json={"roundId": rid})
        assert again.status_code == 409 and "already warmup" in again.json()["error"]
        wait_phase(client, rid, "active")
        assert client.post("/relayMessage", json=human(rid, "hello")).json()["permitted"]
        r = client.post("/endRound", json={"roundId": rid})
        assert r.json() == {"status": "Acknowledged", "roundId": rid, "phase": "post"}
        for p in (w, c, ui):
            p.wait_for("/endRound", 1, round_id=rid)
        late = client.post("/relayMessage", json=agent(rid, "Watson", "wait, 2 eggs for 3"))
        assert (late.json()["permitted"], late.json()["rule"]) == (False, "phase")
        totals = ui.wait_for("/receiveRoundTotals", 1, round_id=rid)[0]
        assert totals["roundTotals"]["Human"]["cost"] == 0
        listing = client.get("/rounds").json()
        assert [(x["roundId"], x["phase"]) for x in listing] == [(rid, "ended")]
        r = client.post("/endRound", json={"roundId": rid})
        assert r.status_code == 409 and "already ended" in r.json()["error"]
        # the ended round lets go of its connections to the parties
        runtime = app.state.orchestrator.rounds[rid]
        wait_until(lambda: not runtime.outboxes, "the ended round's outboxes closed")
