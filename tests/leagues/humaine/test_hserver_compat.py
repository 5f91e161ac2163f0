"""The original's semantics over HTTP (issue 9, items 5-8): one global generation-1
round, ambiguous messages answered to their sender too, the path form of the read
routes, deeply nested JSON refused, and rationales that start with the original's text."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from accord.leagues.humaine.orchestrator import create_orchestrator_app
from accord.leagues.humaine.rules import RuleConfig
from accord.leagues.humaine.testing import (
    BUYER_UTILITY,
    COSTS_C,
    COSTS_W,
    Party,
    Stage,
    agent,
    human,
    secret_of,
)
from accord.web.testing import SkipClock, wait_until

FAST = RuleConfig(human_gap=0.2)
CLOCK = SkipClock()
"""The clock of the orchestrators that need R0 skipped (0.2 s) instead of slept."""


@pytest.fixture
def stage(tmp_path: Path) -> Iterator[Stage]:
    app = create_orchestrator_app(
        db_path=tmp_path / "eo.db", rule_config=FAST, unauthenticated=["Human", "Celia", "Watson"]
    )
    with Stage(app) as s:
        yield s


def gen1_body(stage: Stage, n: int) -> dict[str, Any]:
    return {
        "roundNumber": n,
        "agents": [stage.watson.agent_spec(COSTS_W), stage.celia.agent_spec(COSTS_C)],
        "human": {"utilityFunction": BUYER_UTILITY},
        "durations": {"warmUp": 0, "round": 30, "post": 2},
        "humanUIs": [stage.ui.ui_spec()],
    }


def test_generation_1_has_one_global_round(stage: Stage) -> None:
    assert stage.client.post("/startRound", json=gen1_body(stage, 1)).status_code == 200
    r = stage.client.post("/startRound", json=gen1_body(stage, 2))
    assert r.status_code == 409
    assert "generation 1 has one global round" in r.json()["error"]
    assert len(stage.client.get("/rounds").json()) == 1
    # the round without roundId still works (once it is active)
    rid = stage.client.get("/rounds").json()[0]["roundId"]
    wait_until(lambda: stage.client.get(f"/rounds/{rid}").json()["phase"] == "active", "start")
    said = stage.client.post("/relayMessage", json=human(None, "Watson, 2 eggs?"))
    assert said.status_code == 200 and said.json()["permitted"]
    # once it is ended, a new whole-body start is fine
    stage.client.post("/endRound", json={})
    stage.client.post("/endRound", json={})
    assert stage.client.post("/startRound", json=gen1_body(stage, 2)).status_code == 200


def test_an_ambiguous_message_is_a_409_and_a_rejection_to_its_sender(stage: Stage) -> None:
    a = stage.new_round()
    b = stage.new_round()
    r = stage.client.post("/relayMessage", json=agent(None, "Celia", "2 eggs for 4"))
    assert r.status_code == 409 and "give a roundId" in r.json()["error"]
    rejected = stage.celia.wait_for("/receiveRejection")
    assert len(rejected) == 1  # one sender, told once (both rounds have the same Celia)
    assert "2 rounds are in progress" in rejected[0]["rationale"]
    assert a in rejected[0]["rationale"] and b in rejected[0]["rationale"]
    r = stage.client.post("/relayMessage", json=human(None, "hello"))
    assert r.status_code == 409
    assert "give a roundId" in stage.ui.wait_for("/receiveRejection")[0]["rationale"]


def test_a_forged_ambiguous_message_is_not_relayed_to_anyone(tmp_path: Path) -> None:
    with Stage(create_orchestrator_app(rule_config=FAST)) as stage:
        first = stage.new_round(authenticated=True)
        stage.new_round(authenticated=True)
        r = stage.client.post("/relayMessage", json=agent(None, "Celia", "spam"))
        assert r.status_code == 409
        # the real Celia's ambiguous message is sent back to her in the first round, in
        # order after anything the forged one would have been
        real = agent(None, "Celia", "ham") | {"token": secret_of(stage.celia, first)}
        assert stage.client.post("/relayMessage", json=real).status_code == 409
        told = stage.celia.wait_for("/receiveRejection")
        assert [b["text"] for b in told] == ["ham"]


def test_the_original_path_form_of_the_read_routes(stage: Stage) -> None:
    rid = stage.new_round()
    stage.client.post("/relayMessage", json=human(rid, "Celia, 2 eggs?", "Celia"))
    queue = stage.client.get(f"/viewQueue/{rid}")
    assert queue.status_code == 200
    assert [m["msg"]["text"] for m in queue.json()] == ["Celia, 2 eggs?"]
    assert queue.json() == stage.client.get("/viewQueue", params={"roundId": rid}).json()
    totals = stage.client.get(f"/viewTotals/{rid}")
    assert totals.status_code == 200
    assert totals.json()["Human"] == {"price": 0.0, "quantity": {}}
    assert totals.json() == stage.client.get("/viewTotals", params={"roundId": rid}).json()
    assert stage.client.get("/viewTotals/nope").status_code == 404


@pytest.mark.parametrize(
    "route", ["/relayMessage", "/initializeRound", "/startRound", "/endRound",
              "/receiveHumanAllocation"],
)  # fmt: skip
def test_deeply_nested_json_is_a_400_on_every_post_route(stage: Stage, route: str) -> None:
    deep = b'{"a":' + b"[" * 2000 + b"]" * 2000 + b"}"
    assert len(deep) < 5000
    r = stage.client.post(route, content=deep, headers={"content-type": "application/json"})
    assert r.status_code == 400 and "nested deeper than" in r.json()["error"]  # at the door


def test_a_nested_body_to_the_utility_generator_is_a_400() -> None:
    from accord.leagues.humaine.testing import ServerThread
    from accord.leagues.humaine.utility_generator import create_utility_generator_app

    with ServerThread(create_utility_generator_app(1)) as srv:
        import httpx

        deep = b'{"a":' + b"[" * 3000 + b"]" * 3000 + b"}"
        for route in ("/calculateUtility/seller", "/checkAllocation", "/optimizeAllocation"):
            r = httpx.post(srv.url + route, content=deep, timeout=5)
            assert r.status_code == 400 and "nested too deeply" in r.text, (route, r.text)


def test_a_nested_reply_from_a_party_does_not_stop_its_deliveries(tmp_path: Path) -> None:
    """A party answering with JSON nested too deeply to read is a bad answer, not the
    end of the orchestrator's deliveries to it."""
    from fastapi import FastAPI
    from fastapi.responses import Response

    from accord.leagues.humaine.testing import ServerThread, round_body, start_round

    got: list[str] = []
    evil = FastAPI()

    @evil.post("/{route}")
    async def answer(route: str) -> Response:
        got.append(route)
        return Response(b"[" * 3000 + b"]" * 3000, media_type="application/json")

    app = create_orchestrator_app(rule_config=FAST, clock=CLOCK)
    with ServerThread(evil) as bad, Stage(app) as stage:
        agents = [stage.celia.agent_spec(COSTS_C), {"name": "Watson", "url": bad.url,
                  "utilityFunction": stage.watson.agent_spec(COSTS_W)["utilityFunction"]}]  # fmt: skip
        rid = start_round(stage.client, round_body(agents, [stage.ui.ui_spec()]))
        for i in range(2):
            stage.client.post("/relayMessage", json=human(rid, f"hello {i}"))
            CLOCK.skip(0.2)  # R0
        wait_until(lambda: got.count("receiveMessage") >= 2, f"both messages (got {got})")


def test_a_nested_body_to_an_agent_service_is_a_400() -> None:
    from accord.leagues.humaine.agents.service import create_agent_app
    from accord.leagues.humaine.agents.simple import RegexSeller
    from accord.leagues.humaine.testing import ServerThread

    with ServerThread(create_agent_app(RegexSeller("Celia"), "http://127.0.0.1:9")) as srv:
        import httpx

        deep = b"[" * 3000 + b"]" * 3000
        r = httpx.post(srv.url + "/receiveMessage", content=deep, timeout=5)
        assert r.status_code == 400 and "nested too deeply" in r.json()["error"]


ORIGINAL = {
    "R1": "Insufficient budget",
    "R2": "Premature response from unaddressed agent",
    "R3": "Agent speaking twice",
    "R4": "Excessive message length",
}
"""The original platform's rationale strings (humaine-api-examples.json, the issue)."""


def test_rationales_start_with_the_originals_text(tmp_path: Path) -> None:
    app = create_orchestrator_app(
        rule_config=RuleConfig(human_gap=0.2), unauthenticated=["Human", "Celia", "Watson"]
    )
    seen: dict[str, str] = {}
    with Stage(app, ui=Party("ui")) as stage:
        rid = stage.new_round(budget=5.0)
        post = stage.client.post
        post("/relayMessage", json=human(rid, "Celia, 2 eggs?", "Celia"))
        # R2: Watson answers before Celia
        seen["R2"] = post("/relayMessage", json=agent(rid, "Watson", "me first")).json()[
            "rationale"
        ]
        # R4: Celia says 101 words
        long = agent(rid, "Celia", " ".join(["egg"] * 101))
        seen["R4"] = post("/relayMessage", json=long).json()["rationale"]
        # R1: Celia accepts 9 USD with 5 USD left
        accept = agent(rid, "Celia", "Deal", "Accept", {"egg": 2}, 9.0)
        seen["R1"] = post("/relayMessage", json=accept).json()["rationale"]
        # R3: Celia twice
        post("/relayMessage", json=agent(rid, "Celia", "2 eggs for 4"))
        seen["R3"] = post("/relayMessage", json=agent(rid, "Celia", "or 3")).json()["rationale"]
        rejections = {b["text"]: b["rationale"] for b in stage.celia.wait_for(
            "/receiveRejection", 3, round_id=rid)}  # fmt: skip
    for rule, text in ORIGINAL.items():
        assert seen[rule].startswith(text), (rule, seen[rule])
        assert len(seen[rule]) > len(text)  # details after the original's text
    assert rejections["Deal"].startswith("Insufficient budget")
