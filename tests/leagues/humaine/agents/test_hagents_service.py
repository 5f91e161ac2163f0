"""Agents and simulated buyers as real HTTP services on loopback ports."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI, Request

from accord.leagues.humaine.agents.buyers import make_buyer
from accord.leagues.humaine.agents.fastmode import random_buyer_utility
from accord.leagues.humaine.agents.service import (
    BackgroundServer,
    create_agent_app,
    create_buyer_app,
    orchestrator_url,
)
from accord.leagues.humaine.agents.simple import RegexSeller
from accord.leagues.humaine.agents.strong import StrongSeller
from accord.leagues.humaine.utility import SellerUtility
from accord.web.testing import wait_until

COSTS = {"egg": 0.5, "flour": 0.76, "sugar": 0.63, "milk": 0.24, "chocolate": 0.36}


def utility_body(name: str) -> dict[str, Any]:
    return SellerUtility(COSTS).to_wire() | {"name": name, "roundId": "r-1"}


class Recorder:
    """A stand-in orchestrator endpoint that records what it is sent."""

    def __init__(self) -> None:
        self.posts: list[tuple[float, str, dict[str, Any], dict[str, str]]] = []
        self.lock = threading.Lock()
        self.app = FastAPI()

        @self.app.post("/relayMessage")
        async def relay(request: Request) -> dict[str, Any]:
            self._keep("/relayMessage", await request.json(), dict(request.headers))
            return {"status": "Acknowledged", "allResponses": []}

        @self.app.post("/receiveHumanAllocation")
        async def allocation(request: Request) -> dict[str, Any]:
            self._keep("/receiveHumanAllocation", await request.json(), dict(request.headers))
            return {"status": "Acknowledged"}

    def _keep(self, path: str, body: dict[str, Any], headers: dict[str, str]) -> None:
        with self.lock:
            self.posts.append((time.monotonic(), path, body, headers))

    def wait(self, count: int, path: str = "/relayMessage", timeout: float = 30.0) -> list[Any]:
        def found() -> list[Any]:
            with self.lock:
                return [p for p in self.posts if p[1] == path]

        wait_until(lambda: len(found()) >= count, f"{count} posts to {path}", timeout=timeout)
        return found()


@pytest.fixture
def recorder() -> Iterator[tuple[Recorder, str]]:
    rec = Recorder()
    server = BackgroundServer(rec.app).start()
    try:
        yield rec, server.url
    finally:
        server.stop()


@pytest.fixture
def serve() -> Iterator[Callable[[Any], str]]:
    servers: list[BackgroundServer] = []

    def start(app: Any) -> str:
        srv = BackgroundServer(app).start()
        servers.append(srv)
        return srv.url

    yield start
    for srv in servers:
        srv.stop()


def human(text: str, addressee: str = "") -> dict[str, Any]:
    return {
        "speaker": "Human",
        "addressee": addressee,
        "text": text,
        "role": "buyer",
        "timestamp": 1,
    }


def test_regex_agent_over_http(recorder: tuple[Recorder, str], serve: Callable[[Any], str]) -> None:
    rec, orch = recorder
    url = serve(create_agent_app(RegexSeller("Watson", seed=2), orch, token="s3cret"))
    with httpx.Client(base_url=url, timeout=5) as c:
        reply = c.post("/setUtility", json=utility_body("Watson")).json()
        assert reply["status"] == "Acknowledged" and reply["utility"]["name"] == "Watson"
        assert c.post("/startRound", json={"roundId": "r-1", "roundDuration": 60}).json() == {
            "status": "Acknowledged"
        }
        said = c.post("/receiveMessage", json=human("Watson, I want 2 eggs", "Watson")).json()
        assert said["status"] == "Acknowledged"
        assert said["interpretation"]["act"]["goods"] == {"egg": 2}
        _, _, offer, headers = rec.wait(1)[0]
        assert headers["x-accord-token"] == "s3cret"
        assert offer["speaker"] == "Watson" and offer["roundId"] == "r-1"
        assert offer["bid"]["type"] == "SellOffer" and offer["bid"]["quantity"] == {"egg": 2}
        echo = {k: v for k, v in offer.items() if k != "bid"}
        c.post("/receiveMessage", json=echo)
        c.post("/receiveMessage", json=human("Watson, I accept your offer", "Watson"))
        _, _, deal, _ = rec.wait(2)[1]
        assert deal["bid"]["type"] == "Accept"
        assert deal["bid"]["price"] == offer["bid"]["price"]
        rejection = {**deal, "rationale": "Insufficient budget"}
        assert c.post("/receiveRejection", json=rejection).json() == {
            "status": "acknowledged",
            "message": rejection,
        }
        assert c.post("/endRound", json={"roundId": "r-1"}).json() == {"status": "Acknowledged"}
        health = c.get("/health").json()
        assert health["name"] == "Watson" and health["kind"] == "regex" and not health["active"]


def test_bad_bodies_get_clear_400s(
    recorder: tuple[Recorder, str], serve: Callable[[Any], str]
) -> None:
    _, orch = recorder
    url = serve(create_agent_app(RegexSeller("Celia"), orch))
    with httpx.Client(base_url=url, timeout=5) as c:
        r = c.post(
            "/receiveMessage", content=b"{not json", headers={"content-type": "application/json"}
        )
        assert r.status_code == 400
        assert r.json()["error"].startswith("malformed JSON")  # the web layer's, at the door
        r = c.post("/setUtility", json=[1, 2])
        assert r.status_code == 400 and r.json()["error"] == "body must be a JSON object, got list"
        assert c.post("/setUtility", content=b"").json() == {
            "status": "Failed; no message body",
            "utility": None,
        }


def test_strong_agent_answers_within_two_seconds_over_http(
    recorder: tuple[Recorder, str], serve: Callable[[Any], str], tmp_path: Path
) -> None:
    rec, orch = recorder
    host, port = orch.removeprefix("http://").split(":")
    settings = tmp_path / "appSettings.json"
    settings.write_text(
        json.dumps(
            {
                "serviceMap": {
                    "environment-orchestrator": {
                        "protocol": "http",
                        "host": host,
                        "port": int(port),
                    }
                }
            }
        )
    )
    url = serve(create_agent_app(StrongSeller("Celia"), settings=settings))
    with httpx.Client(base_url=url, timeout=5) as c:
        c.post("/setUtility", json=utility_body("Celia"))
        c.post("/startRound", json={"roundId": "r-1", "roundDuration": 60})
        sent_at = time.monotonic()
        c.post("/receiveMessage", json=human("Celia, 3 cups of flour please", "Celia"))
        at, _, offer, _ = rec.wait(1)[0]
    assert at - sent_at < 2.0
    assert offer["bid"]["quantity"] == {"flour": 3}
    assert len(offer["text"].split()) <= 100


def test_orchestrator_url_from_settings() -> None:
    assert orchestrator_url(None) == "http://localhost:14010"
    with pytest.raises(ValueError, match="serviceMap.environment-orchestrator"):
        orchestrator_url({"serviceMap": {}})


def test_simulated_buyer_over_http(
    recorder: tuple[Recorder, str], serve: Callable[[Any], str]
) -> None:
    rec, orch = recorder
    url = serve(create_buyer_app(make_buyer("impatient", 1), orch))
    utility = random_buyer_utility(__import__("numpy").random.default_rng(1))
    with httpx.Client(base_url=url, timeout=5) as c:
        meta = {"roundId": "r-9", "durations": {"warmUp": 0, "round": 60, "post": 5}}
        meta["humanBudget"] = {"currentUnit": "USD", "value": 40}
        assert c.post("/sendRoundMetadata", json=meta).json() == {"status": "acknowledged"}
        c.post("/setUtility", json={**utility.to_wire(), "name": "buyer", "roundId": "r-9"})
        c.post("/startRound", json={"roundId": "r-9", "roundDuration": 60})
        _, _, first, _ = rec.wait(1, timeout=4)[0]
        assert (
            first["speaker"] == "Human" and first["role"] == "buyer" and first["roundId"] == "r-9"
        )
        assert "I'd like to buy" in first["text"]
        deal = {
            "speaker": "Celia",
            "addressee": "Human",
            "text": "Deal!",
            "role": "seller",
            "bid": {
                "type": "Accept",
                "quantity": {"egg": 2, "flour": 2, "milk": 1, "sugar": 1},
                "price": {"unit": "USD", "value": 6.0},
            },
        }
        c.post("/receiveMessage", json=deal)
        assert c.post("/confirmAccept", json=deal).json() == {"status": "acknowledged"}
        health = c.get("/health").json()
        assert health["spent"] == 6.0 and health["inventory"]["egg"] == 2
        c.post("/endRound", json={"roundId": "r-9"})
        _, _, alloc, _ = rec.wait(1, "/receiveHumanAllocation")[0]
    assert alloc["roundId"] == "r-9"
    assert alloc["payload"]["cake"]["quantity"] == 1


def test_one_service_in_two_concurrent_rounds(
    recorder: tuple[Recorder, str], serve: Callable[[Any], str]
) -> None:
    rec, orch = recorder
    url = serve(create_agent_app(lambda: RegexSeller(seed=3), orch))
    with httpx.Client(base_url=url, timeout=5) as c:
        for rid, name in (("r-1", "Celia"), ("r-2", "Watson")):
            c.post("/setUtility", json=utility_body(name) | {"roundId": rid})
            c.post("/startRound", json={"roundId": rid, "roundDuration": 60})
        c.post("/receiveMessage", json=human("Watson, 2 eggs", "Watson") | {"roundId": "r-2"})
        c.post("/receiveMessage", json=human("Celia, 3 eggs", "Celia") | {"roundId": "r-1"})
        posts = rec.wait(2)
        assert c.get("/health").json()["rounds"] == ["r-1", "r-2"]
    said = {(p[2]["roundId"], p[2]["speaker"], p[2]["bid"]["quantity"]["egg"]) for p in posts}
    assert said == {("r-2", "Watson", 2), ("r-1", "Celia", 3)}
