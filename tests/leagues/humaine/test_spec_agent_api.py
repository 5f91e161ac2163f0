"""Spec audit, the agent's side of Appendix C: our sample seller served over HTTP gets
the appendix's example bodies verbatim and must answer in the appendix's forms, and what
it posts to the orchestrator's /relayMessage has the appendix's shape. The
orchestrator address comes from appSettings.json's serviceMap (section 4)."""

from __future__ import annotations

import copy
import json
import threading
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI, Request

from accord.leagues.humaine.agents.service import BackgroundServer, create_agent_app
from accord.leagues.humaine.agents.simple import RegexSeller

SET_UTILITY = {  # Appendix C, POST /setUtility
    "currencyUnit": "USD",
    "utility": {
        "egg": {"type": "unitcost", "unit": "each", "parameters": {"unitcost": 0.32}},
        "flour": {"type": "unitcost", "unit": "cup", "parameters": {"unitcost": 0.85}},
        "sugar": {"type": "unitcost", "unit": "cup", "parameters": {"unitcost": 0.71}},
        "milk": {"type": "unitcost", "unit": "cup", "parameters": {"unitcost": 0.35}},
        "chocolate": {"type": "unitcost", "unit": "ounce", "parameters": {"unitcost": 0.2}},
        "blueberry": {"type": "unitcost", "unit": "packet", "parameters": {"unitcost": 0.45}},
        "vanilla": {"type": "unitcost", "unit": "teaspoon", "parameters": {"unitcost": 0.27}},
    },
    "name": "Watson",
}
START_ROUND = {"roundDuration": 300, "roundNumber": 1, "timestamp": "2020-02-23T06:27:10.282Z"}
END_ROUND = {"roundNumber": 1, "timestamp": "2020-02-23T06:32:10.282Z"}
RECEIVE_MESSAGE = {
    "speaker": "Human",
    "addressee": "Watson",
    "text": "Watson I'd like to buy 5 eggs for $2",
    "role": "buyer",
    "environmentUUID": "abcdefg",
    "timestamp": 1582184608849,
}
RECEIVE_REJECTION = {
    "text": "How about if I sell you 1 blueberry for 0.69 USD.",
    "speaker": "Celia",
    "role": "seller",
    "addressee": "Human",
    "environmentUUID": "abcdefg",
    "timeStamp": "2020-02-23T02:22:39.152Z",
    "bid": {
        "quantity": {"blueberry": 1},
        "type": "SellOffer",
        "price": {"unit": "USD", "value": 0.69},
    },
}


class Orchestrator:
    """A stand-in /relayMessage that records the agent's posts."""

    def __init__(self) -> None:
        self.posts: list[dict[str, Any]] = []
        self.got = threading.Event()
        self.app = FastAPI()

        @self.app.post("/relayMessage")
        async def relay(request: Request) -> dict[str, Any]:
            self.posts.append(await request.json())
            self.got.set()
            return {"status": "Acknowledged", "allResponses": []}


@pytest.fixture
def agent_url(tmp_path: Path) -> Iterator[tuple[str, Orchestrator]]:
    orch = Orchestrator()
    eo = BackgroundServer(orch.app).start()
    settings = tmp_path / "appSettings.json"
    host, port = eo.url.removeprefix("http://").split(":")
    settings.write_text(
        json.dumps(
            {
                "serviceMap": {
                    "environment-orchestrator": {"protocol": "http", "host": host, "port": port}
                }
            }
        )
    )
    srv = BackgroundServer(create_agent_app(RegexSeller("Celia", seed=1), settings=settings))
    srv.start()
    try:
        yield srv.url, orch
    finally:
        srv.stop()
        eo.stop()


def test_the_five_agent_routes_answer_as_appendix_c_says(
    agent_url: tuple[str, Orchestrator],
) -> None:
    url, orch = agent_url
    with httpx.Client(base_url=url, timeout=5) as c:
        sent = copy.deepcopy(SET_UTILITY)
        assert c.post("/setUtility", json=sent).json() == {
            "status": "Acknowledged",
            "utility": SET_UTILITY,  # an exact copy of what was received
        }
        assert c.post("/setUtility", content=b"").json() == {
            "status": "Failed; no message body",
            "utility": None,
        }
        assert c.post("/startRound", json=START_ROUND).json() == {"status": "Acknowledged"}
        reply = c.post("/receiveMessage", json=RECEIVE_MESSAGE).json()
        assert reply["status"] == "Acknowledged"
        interpretation = reply["interpretation"]
        for key in ("text", "speaker", "addressee", "role", "environmentUUID"):
            assert interpretation[key] == RECEIVE_MESSAGE[key], key
        assert orch.got.wait(5), "the agent never answered the human"
        assert c.post("/receiveRejection", json=RECEIVE_REJECTION).json() == {
            "status": "acknowledged",
            "message": RECEIVE_REJECTION,
        }
        assert c.post("/receiveRejection", content=b"").json() == {"status": "Failed"}
        assert c.post("/endRound", json=END_ROUND).json() == {"status": "Acknowledged"}
    # the name given by /setUtility is the name it speaks under, to the human
    msg = orch.posts[0]
    assert {"text", "speaker", "role", "addressee", "environmentUUID", "timeStamp", "bid"} <= set(
        msg
    )
    assert (msg["speaker"], msg["role"], msg["addressee"]) == ("Watson", "seller", "Human")
    assert msg["environmentUUID"] == "abcdefg"
    datetime.fromisoformat(msg["timeStamp"].replace("Z", "+00:00"))
    bid = msg["bid"]
    assert bid["type"] in ("SellOffer", "Accept", "Reject")
    assert bid["quantity"] == {"egg": 5}
    assert bid["price"]["unit"] == "USD" and isinstance(bid["price"]["value"], int | float)
    assert bid["price"]["value"] >= 2.0  # never below the human's own offer
