"""Speakers prove who they are by default (issue 9, item 1): per-round secrets delivered
in /setUtility, 403 and a logged decision for a forged or unknown speaker, and agents of
the original platform admitted only when the operator lists them as unauthenticated."""

from __future__ import annotations

import logging
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
    Stage,
    agent,
    human,
    round_body,
    secret_of,
    start_round,
)
from accord.web.testing import wait_until

FAST = RuleConfig(human_gap=0.2)


@pytest.fixture
def stage(tmp_path: Path) -> Iterator[Stage]:
    app = create_orchestrator_app(db_path=tmp_path / "eo.db", rule_config=FAST)
    with Stage(app) as s:
        yield s


def plain_body(stage: Stage) -> dict[str, Any]:
    """A round body as a starter that knows nothing of secrets sends it."""
    return {
        "agents": [stage.celia.agent_spec(COSTS_C), stage.watson.agent_spec(COSTS_W)],
        "human": {"utilityFunction": BUYER_UTILITY},
        "durations": {"warmUp": 0, "round": 60, "post": 2},
        "humanUIs": [stage.ui.ui_spec()],
    }


def decisions(stage: Stage, rid: str) -> list[dict[str, Any]]:
    return list(stage.client.get(f"/rounds/{rid}").json()["decisions"])


def test_forged_celia_and_forged_human_accept_get_403_and_a_logged_decision(
    stage: Stage, caplog: pytest.LogCaptureFixture
) -> None:
    rid = start_round(stage.client, plain_body(stage))  # no secrets given: made for us
    celia, watson, person = (secret_of(p, rid) for p in (stage.celia, stage.watson, stage.ui))
    assert len({celia, watson, person}) == 3
    caplog.set_level(logging.WARNING, "accord.humaine.orchestrator")
    # a forged Human Accept of 1 egg for $45 (the reproduction): refused, budget untouched
    forged = human(rid, "Celia, I accept", "Celia") | {
        "bid": {"type": "Accept", "quantity": {"egg": 1}, "price": {"unit": "USD", "value": 45}}
    }
    r = stage.client.post("/relayMessage", json=forged)
    assert r.status_code == 403
    assert "Human must present its secret token" in r.json()["error"]
    assert "none was given" in r.json()["error"]
    # a forged Celia, with no secret, with a wrong one, with Watson's
    for headers in ({}, {"X-Accord-Token": "guess"}, {"X-Accord-Token": watson}):
        r = stage.client.post("/relayMessage", json=agent(rid, "Celia", "hi"), headers=headers)
        assert r.status_code == 403 and "Celia must present its secret" in r.json()["error"]
    state = stage.client.get(f"/rounds/{rid}").json()
    assert state["remainingBudget"] == 50.0 and state["deals"] == []
    refused = [d for d in decisions(stage, rid) if d["rule"] == "token"]
    assert [d["speaker"] for d in refused] == ["Human", "Celia", "Celia", "Celia"]
    assert all(not d["permitted"] for d in refused)
    assert "forged or unproven speaker refused" in caplog.text
    logged = stage.ui.wait_for("/receiveLog", 4, round_id=rid)
    assert [b["permitted"] for b in logged] == [False] * 4
    assert all("token" not in b for b in logged)
    # nothing of it reached the agents
    assert stage.celia.bodies("/receiveMessage", rid) == []
    # the real parties speak with their secrets (header or field)
    ok = stage.client.post(
        "/relayMessage",
        json=human(rid, "Celia, 2 eggs?", "Celia"),
        headers={"X-Accord-Token": person},
    )
    assert ok.status_code == 200 and ok.json()["permitted"]
    said = agent(rid, "Celia", "2 eggs for 4.5") | {"token": celia}
    assert stage.client.post("/relayMessage", json=said).json()["permitted"]
    heard = stage.watson.wait_for("/receiveMessage", 2, round_id=rid)
    assert all("token" not in b and "authenticated" not in b for b in heard)


def test_an_unknown_speaker_gets_403_and_a_logged_decision(stage: Stage) -> None:
    rid = start_round(stage.client, plain_body(stage))
    r = stage.client.post("/relayMessage", json=agent(rid, "Mallory", "hi"))
    assert r.status_code == 403 and "Unknown speaker 'Mallory'" in r.json()["error"]
    assert decisions(stage, rid)[-1]["rule"] == "speaker"


def test_given_secrets_are_used_and_each_party_gets_only_its_own(stage: Stage) -> None:
    body = plain_body(stage)
    body["agents"][0]["token"] = "celia-secret-from-the-starter"
    body["human"]["token"] = "person-secret-from-the-starter"
    rid = start_round(stage.client, body)
    assert secret_of(stage.celia, rid) == "celia-secret-from-the-starter"
    assert secret_of(stage.ui, rid) == "person-secret-from-the-starter"
    assert secret_of(stage.watson, rid) not in body["agents"][0]["token"]
    # the stored round and the round's description keep the secrets to themselves
    described = stage.client.get(f"/rounds/{rid}").text
    assert "celia-secret" not in described and "person-secret" not in described


def test_an_original_agent_is_admitted_only_when_listed_and_is_marked(
    stage: Stage, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, "accord.humaine.orchestrator")
    body = plain_body(stage)
    body["agents"][1]["authenticated"] = False  # Watson: written for the original
    rid = start_round(stage.client, body)
    assert "admits Watson WITHOUT authentication" in caplog.text
    assert "token" not in stage.watson.wait_for("/setUtility", round_id=rid)[0]
    meta = stage.ui.wait_for("/sendRoundMetadata", round_id=rid)[0]
    assert meta["unauthenticated"] == ["Watson"]
    assert stage.client.get(f"/rounds/{rid}").json()["unauthenticated"] == ["Watson"]
    person = {"X-Accord-Token": secret_of(stage.ui, rid)}
    assert stage.client.post(
        "/relayMessage", json=human(rid, "Watson, 2 eggs?", "Watson"), headers=person
    ).json()["permitted"]
    r = stage.client.post("/relayMessage", json=agent(rid, "Watson", "2 eggs for 4.5"))
    assert r.status_code == 200 and r.json()["permitted"]  # no secret needed
    to_ui = stage.ui.wait_for("/receiveMessage", 2, round_id=rid)[-1]
    assert to_ui["speaker"] == "Watson" and to_ui["authenticated"] is False
    logged = decisions(stage, rid)[-1]
    assert logged["permitted"] and logged["message"]["authenticated"] is False
    # Celia is still protected
    r = stage.client.post("/relayMessage", json=agent(rid, "Celia", "me too"))
    assert r.status_code == 403


def test_the_operators_list_admits_original_parties_in_every_round(tmp_path: Path) -> None:
    app = create_orchestrator_app(rule_config=FAST, unauthenticated=["Celia"])
    with Stage(app) as stage:
        rid = start_round(stage.client, plain_body(stage))
        assert stage.client.get(f"/rounds/{rid}").json()["unauthenticated"] == ["Celia"]
        r = stage.client.post("/relayMessage", json=human(rid, "hello"))
        assert r.status_code == 403  # the Human is not on the list


def test_test_kit_rounds_are_open_only_by_an_explicit_choice(stage: Stage) -> None:
    agents = [stage.celia.agent_spec(COSTS_C), stage.watson.agent_spec(COSTS_W)]
    body = round_body(agents, [stage.ui.ui_spec()])
    assert [a["authenticated"] for a in body["agents"]] == [False, False]
    assert body["human"]["authenticated"] is False
    secured = round_body(agents, [stage.ui.ui_spec()], authenticated=True)
    assert "authenticated" not in secured["human"]


def test_only_the_buyer_saves_the_allocation(stage: Stage) -> None:
    body = plain_body(stage) | {"durations": {"warmUp": 0, "round": 0.3, "post": 10}}
    rid = start_round(stage.client, body)
    person = secret_of(stage.ui, rid)
    wait_until(
        lambda: stage.client.get(f"/rounds/{rid}").json()["phase"] == "post", "the post phase"
    )
    alloc = {"roundId": rid, "payload": {"cake": {"unit": "each", "quantity": 0}}}
    r = stage.client.post("/receiveHumanAllocation", json=alloc)
    assert r.status_code == 403 and "only the buyer saves the allocation" in r.json()["error"]
    r = stage.client.post(
        "/receiveHumanAllocation", json=alloc, headers={"X-Accord-Token": secret_of(
            stage.celia, rid)})  # fmt: skip
    assert r.status_code == 403
    ok = stage.client.post("/receiveHumanAllocation", json=alloc | {"token": person})
    assert ok.status_code == 200 and ok.json()["status"] == "Acknowledged"
