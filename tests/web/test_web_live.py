"""The live channel: server-sent events reach an open stream in publish order."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import AsyncIterator
from typing import Any

import httpx
from fastapi import APIRouter, Response

from accord.web import Live, VirtualClock, WebError, create_app
from accord.web.live import Message, NotYet
from accord.web.testing import ServerThread, asleep_until, read_sse, sse_event


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
        events = read_sse(response, 6)
    assert events == [("hello", {"topic": "a"})] + [("tick", {"i": i}) for i in range(5)]
    assert ticker.live.subscribers("a") == 0


def test_a_followed_state_is_read_again_when_woken_due_or_idle_until_it_is_final() -> None:
    clock, live = VirtualClock(), Live(heartbeat=5.0)
    game = {"v": 0, "building": True}
    threads: set[str] = set()

    def read() -> dict[str, Any]:
        threads.add(threading.current_thread().name)
        if game["building"]:  # nothing to show yet: asked again 0.25 s later
            game["building"] = False
            raise NotYet("its agent is being built")
        return {"v": game["v"], "t": clock.now()}

    async def main() -> list[tuple[str, Any, int]]:
        stream = live.follow(
            "p1",
            read,
            clock=clock,
            due_in=lambda: 2.0 if game["v"] == 1 else 60.0,  # the heartbeat comes first
            done=lambda s: s["v"] == 3,
        )
        seen = []
        nxt = asyncio.ensure_future(anext(stream))
        await asleep_until(clock, 0.25)
        await clock.advance_async(0.25)
        seen.append(sse_event(await nxt))  # t 0.25
        nxt = asyncio.ensure_future(anext(stream))
        await asleep_until(clock, 5.25)
        game["v"] = 1
        live.wake("p2")  # another topic: not read
        live.wake("p1")
        seen.append(sse_event(await nxt))  # woken: at once, t 0.25
        nxt = asyncio.ensure_future(anext(stream))
        await asleep_until(clock, 2.25)
        await clock.advance_async(2.0)
        seen.append(sse_event(await nxt))  # due: t 2.25
        game["v"] = 2
        nxt = asyncio.ensure_future(anext(stream))
        await asleep_until(clock, 7.25)
        await clock.advance_async(5.0)
        seen.append(sse_event(await nxt))  # the heartbeat: t 7.25
        nxt = asyncio.ensure_future(anext(stream))
        await asleep_until(clock, 12.25)
        game["v"] = 3
        live.wake("p1")
        seen.append(sse_event(await nxt))  # final: the stream ends
        assert [t async for t in stream] == []
        assert live.subscribers("p1") == 0
        return seen

    seen = asyncio.run(main())
    assert seen == [
        ("state", {"v": 0, "t": 0.25}, 1),
        ("state", {"v": 1, "t": 0.25}, 2),
        ("state", {"v": 1, "t": 2.25}, 3),
        ("state", {"v": 2, "t": 7.25}, 4),
        ("state", {"v": 3, "t": 7.25}, 5),
    ]
    assert threading.main_thread().name not in threads  # read in worker threads only


def test_a_followed_stream_ends_with_an_error_event_or_at_close() -> None:
    live = Live(heartbeat=5.0)

    def gone() -> Any:
        raise WebError(409, "participant p1 is done; there is no game to play")

    async def main() -> tuple[list[str], list[str], list[str]]:
        errors = [t async for t in live.follow("p1", gone, clock=VirtualClock())]
        clock = VirtualClock()
        stream = live.follow("p2", lambda: {"v": 1}, clock=clock)
        first = await anext(stream)
        rest = asyncio.ensure_future(_all(stream))
        await asleep_until(clock, 5.0)
        live.close()  # at shut-down: the open stream ends, and one opened now too
        after = [t async for t in live.follow("p3", lambda: {"v": 1}, clock=clock)]
        return errors, [first, *await rest], after

    errors, closed, after = asyncio.run(main())
    assert [sse_event(t) for t in errors] == [
        ("error", {"error": "participant p1 is done; there is no game to play"}, None)
    ]
    assert [sse_event(t) for t in closed] == [("state", {"v": 1}, 1)] and after == []


async def _all(stream: AsyncIterator[str]) -> list[str]:
    return [t async for t in stream]
