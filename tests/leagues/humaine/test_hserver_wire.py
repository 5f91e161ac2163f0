"""Wire compatibility with the original platform: every captured message validates
against our models, and a replay of the captured round through our orchestrator sends
bodies with exactly the captured keys and the captured round totals."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from accord.leagues.humaine.messages import (
    Ack,
    AllocationRequest,
    InitializeReply,
    InitializeRound,
    LogMessage,
    PartyEndRound,
    PartyStartRound,
    RejectionMessage,
    RelayMessage,
    RoundMetadata,
    RoundTotalsMessage,
    SetUtilityMessage,
    SetUtilityReply,
)
from accord.leagues.humaine.orchestrator import create_orchestrator_app
from accord.leagues.humaine.rules import RuleConfig
from accord.leagues.humaine.testing import Party, Stage, agent, human
from accord.leagues.humaine.utility import BuyerUtility, SellerUtility
from accord.web.testing import VirtualClock, wait_until

CAPTURES: dict[str, Any] = json.loads(
    (Path(__file__).parent / "data" / "hserver_captures.json").read_text()
)


def body(key: str) -> dict[str, Any]:
    return CAPTURES[key]["body"]


MODELS = {
    "EO -> human UI /sendRoundMetadata": RoundMetadata,
    "EO -> human UI /setUtility": SetUtilityMessage,
    "EO -> human UI /startRound": PartyStartRound,
    "EO -> human UI /endRound": PartyEndRound,
    "EO -> human UI /receiveRoundTotals": RoundTotalsMessage,
    "EO -> human UI /confirmAccept": RelayMessage,
    "EO -> human UI /receiveMessage (agent msg, bid included)": RelayMessage,
    "EO -> human UI /receiveLog (verdict of a human msg)": LogMessage,
    "EO -> human UI /receiveLog (blocked agent msg)": LogMessage,
    "EO -> human UI /receiveRejection (blocked Human msg; sent to competition-ui)": RejectionMessage,
    "EO -> agent /setUtility": SetUtilityMessage,
    "EO -> agent /startRound": PartyStartRound,
    "EO -> agent /receiveRejection": RejectionMessage,
    "EO -> agent /endRound": PartyEndRound,
    "EO -> agent /receiveMessage (human msg)": RelayMessage,
    "EO -> agent /receiveMessage (other agent msg: bid stripped)": RelayMessage,
}


@pytest.mark.parametrize("key", sorted(MODELS))
def test_captured_bodies_validate(key: str) -> None:
    MODELS[key].model_validate(body(key))


def test_captured_utilities_and_set_up_parse() -> None:
    BuyerUtility.from_wire(body("EO -> human UI /setUtility"))
    SellerUtility.from_wire(body("EO -> agent /setUtility"))
    spec = InitializeRound.model_validate(
        CAPTURES["competition-manager -> EO /initializeRound body (harness-generated)"]
    )
    assert [a.name for a in spec.agents] == ["Watson", "Celia"]
    assert spec.agents[0].base_url() == "http://localhost:14007"
    InitializeReply.model_validate(CAPTURES["driver initializeRound"]["reply"])
    for reply in CAPTURES["driver startRound"]["reply"]["__body__"]:
        (SetUtilityReply if "utility" in reply else Ack).model_validate(reply)
    RelayMessage.model_validate(CAPTURES["driver human[0]"]["sent"])
    assert AllocationRequest.model_validate(
        {"roundId": "r", "payload": {"cake": {"unit": "each", "quantity": 1}}}
    ).products() == {"cake": {"unit": "each", "quantity": 1}}
    assert AllocationRequest.model_validate({"cake": {"quantity": 2}}).products() == {
        "cake": {"quantity": 2}
    }


def keys(d: dict[str, Any]) -> set[str]:
    return set(d)


def test_replay_of_the_captured_round(tmp_path: Path) -> None:
    """The captured round: Watson sells 2 egg 2 flour 1 milk 1 sugar for 8.21, Celia
    4 egg 4 flour for 5.06 (as 2 + 2), the human bakes one cake: our totals must equal
    the captured ones and our bodies carry exactly the captured keys."""
    setup = json.loads(
        json.dumps(CAPTURES["competition-manager -> EO /initializeRound body (harness-generated)"])
    )
    clock = VirtualClock(start=1000.0)  # the round's phases move when the test moves them

    def advance(seconds: float) -> None:
        wait_until(lambda: clock.pending, "the round runner waiting on the clock")
        clock.advance(seconds)

    app = create_orchestrator_app(
        db_path=tmp_path / "eo.db",
        rule_config=RuleConfig(human_gap=0.2),
        unauthenticated=["Human", "Celia", "Watson"],  # parties of the original: no secrets
        clock=clock,
    )
    with Stage(app, ui=Party("competition-ui")) as stage:
        w, c, ui, client = stage.watson, stage.celia, stage.ui, stage.client
        setup["agents"][0] |= {"host": "127.0.0.1", "port": w.port}
        setup["agents"][1] |= {"host": "127.0.0.1", "port": c.port}
        setup["humanUIs"] = [ui.ui_spec()]
        setup["humanBudget"] = {"currentUnit": "USD", "value": 50}
        setup["durations"] = {"warmUp": 0.2, "round": 3.0, "post": 1.0}
        reply = client.post("/initializeRound", json=setup).json()
        assert reply == {"roundId": setup["roundId"], "msg": "Done"}
        rid = reply["roundId"]
        started = client.post("/startRound", json={"roundId": rid}).json()
        # as captured: the UI's metadata and utility acks, then each agent's reply
        assert len(started) == len(CAPTURES["driver startRound"]["reply"]["__body__"]) == 4
        assert [x["utility"]["name"] for x in started[2:]] == ["Watson", "Celia"]
        advance(0.2)  # the warm-up
        ui.wait_for("/startRound", 1, round_id=rid)
        say = CAPTURES["driver human[0]"]["sent"] | {"roundId": rid}
        assert client.post("/relayMessage", json=say).json()["permitted"]
        offer = CAPTURES["EO -> human UI /receiveMessage (agent msg, bid included)"]["body"]
        client.post("/relayMessage", json=offer | {"roundId": rid})
        clock.advance(0.25)  # R0
        client.post("/relayMessage", json=human(rid, "Watson, I accept", "Watson"))
        deal = CAPTURES["EO -> human UI /confirmAccept"]["body"] | {"roundId": rid}
        assert client.post("/relayMessage", json=deal).json()["permitted"]
        for price in (2.53, 2.53):
            clock.advance(0.25)  # R0
            say = f"Celia, 2 eggs 2 flour for ${price}?"
            client.post("/relayMessage", json=human(rid, say, "Celia"))
            acc = agent(rid, "Celia", "Deal", "Accept", {"egg": 2, "flour": 2}, price)
            assert client.post("/relayMessage", json=acc).json()["permitted"]
        advance(1000.2 + 3.0 - clock.now())  # to the end of the negotiation
        wait_until(lambda: client.get(f"/rounds/{rid}").json()["phase"] == "post", "post")
        r = client.post(
            "/receiveHumanAllocation",
            json={"roundId": rid, "payload": {"cake": {"unit": "each", "quantity": 1}}},
        )
        assert keys(r.json()) == keys(CAPTURES["driver receiveHumanAllocation"]["reply"]) - {
            "__http__",
            "__latency__",
        }
        advance(1.0)  # the post phase
        totals = ui.wait_for("/receiveRoundTotals", 1, round_id=rid)[0]
        assert totals["roundTotals"] == body("EO -> human UI /receiveRoundTotals")["roundTotals"]
        view = client.get("/viewTotals", params={"roundId": rid}).json()
        assert view == CAPTURES["driver viewTotals"]["reply"]

        # the shapes of everything the UI and the agents heard
        def same_keys(ours: dict[str, Any], key: str) -> None:
            # ours may add only the marks of the parties admitted without a secret
            assert keys(ours) - {"authenticated", "unauthenticated"} == keys(body(key)), (
                key,
                keys(ours) ^ keys(body(key)),
            )
            assert ours.get("authenticated", False) is False

        same_keys(ui.bodies("/sendRoundMetadata", rid)[0], "EO -> human UI /sendRoundMetadata")
        same_keys(ui.bodies("/setUtility", rid)[0], "EO -> human UI /setUtility")
        same_keys(ui.bodies("/startRound", rid)[0], "EO -> human UI /startRound")
        same_keys(ui.bodies("/endRound", rid)[0], "EO -> human UI /endRound")
        same_keys(totals, "EO -> human UI /receiveRoundTotals")
        same_keys(ui.bodies("/confirmAccept", rid)[0], "EO -> human UI /confirmAccept")
        agent_msg = [m for m in ui.bodies("/receiveMessage", rid) if m["speaker"] == "Watson"]
        same_keys(agent_msg[0], "EO -> human UI /receiveMessage (agent msg, bid included)")
        human_log = ui.bodies("/receiveLog", rid)[0]
        same_keys(human_log, "EO -> human UI /receiveLog (verdict of a human msg)")
        same_keys(w.bodies("/setUtility", rid)[0], "EO -> agent /setUtility")
        same_keys(w.bodies("/startRound", rid)[0], "EO -> agent /startRound")
        same_keys(w.bodies("/endRound", rid)[0], "EO -> agent /endRound")
        same_keys(w.bodies("/receiveMessage", rid)[0], "EO -> agent /receiveMessage (human msg)")
        echo = [m for m in c.bodies("/receiveMessage", rid) if m["speaker"] == "Watson"][0]
        assert "bid" not in echo
        assert keys(echo) == keys(offer) - {"bid"} | {"roundId", "authenticated"}
