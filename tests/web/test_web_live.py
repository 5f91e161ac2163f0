"""The live channel: server-sent events reach an open stream in publish order."""

from __future__ import annotations

import json
import threading
import time
from typing import Any

import httpx
from fastapi import APIRouter, Response

from accord.web import Live, create_app
from accord.web.live import Message
from accord.web.testing import ServerThread


class Ticker:
    def __init__(self) -> None:
        self.live = Live(heartbeat=0.2)

    def close(self) -> None:
        self.live.close()

    def router(self) -> APIRouter:
        r = APIRouter()

        @r.get("/live/{topic}", response_class=Response)
        def stream(topic: str) -> Response:
            return self.live.response(topic, [Message("hello", {"topic": topic})])

        return r


def read_events(response: httpx.Response, n: int) -> list[tuple[str, Any]]:
    events: list[tuple[str, Any]] = []
    name = ""
    for line in response.iter_lines():
        if line.startswith("event: "):
            name = line[7:]
        elif line.startswith("data: "):
            events.append((name, json.loads(line[6:])))
            if len(events) == n:
                break
    return events


def test_events_arrive_in_order_on_their_topic_only() -> None:
    ticker = Ticker()
    app = create_app("live", ticker)
    with (
        ServerThread(app) as srv,
        httpx.Client(base_url=srv.url, timeout=10) as client,
        client.stream("GET", "/live/a") as response,
    ):
        assert response.headers["content-type"].startswith("text/event-stream")

        def publish() -> None:
            deadline = time.monotonic() + 5
            while ticker.live.subscribers("a") == 0 and time.monotonic() < deadline:
                time.sleep(0.005)
            ticker.live.publish("b", "tick", {"i": -1})  # another topic
            for i in range(5):
                ticker.live.publish("a", "tick", {"i": i})

        threading.Thread(target=publish).start()
        events = read_events(response, 6)
    assert events == [("hello", {"topic": "a"})] + [("tick", {"i": i}) for i in range(5)]
    assert ticker.live.subscribers("a") == 0
