"""Ordered per-party delivery: order kept, timeouts on the clock, a slow party delays
only itself; over a real loopback HTTP connection too."""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi import APIRouter

from accord.web import Delivery, DeliveryError, Outbox, VirtualClock, create_app
from accord.web.testing import ServerThread


def test_order_timeouts_and_isolation_on_the_virtual_clock() -> None:
    clock = VirtualClock()
    got: dict[str, list[tuple[float, str]]] = {"slow": [], "fast": []}

    def party(name: str, think: float) -> Any:
        async def transport(path: str, body: dict[str, Any]) -> dict[str, Any]:
            if body["text"] == "refuse":
                raise DeliveryError("HTTP 409", {"error": "no"})
            await clock.sleep(think)
            got[name].append((clock.now(), body["text"]))
            return {"echo": body["text"]}

        return transport

    async def run() -> tuple[list[Delivery], list[Delivery], list[Any], list[str]]:
        failures: list[str] = []
        slow = Outbox(
            "slow",
            party("slow", 4.0),
            timeout=5.0,
            clock=clock,
            on_failure=lambda n, p, d: failures.append(f"{n}{p}: {d.error}"),
        )
        fast = Outbox("fast", party("fast", 1.0), timeout=5.0, clock=clock)
        replies: list[Any] = []
        to_slow = [slow.send("/m", {"text": t}, callback=replies.append) for t in "abc"]
        to_slow.append(slow.send("/m", {"text": "refuse"}))
        to_fast = [fast.send("/m", {"text": t}) for t in "xyz"]
        await clock.advance_async(30)
        done_slow = [await f for f in to_slow]
        done_fast = [await f for f in to_fast]
        await slow.close()
        await fast.close()
        return done_slow, done_fast, replies, failures

    done_slow, done_fast, replies, failures = asyncio.run(run())
    assert got["slow"] == [(4.0, "a"), (8.0, "b"), (12.0, "c")]
    assert got["fast"] == [(1.0, "x"), (2.0, "y"), (3.0, "z")]  # not behind the slow party
    assert [d.ok for d in done_slow] == [True, True, True, False]
    assert done_slow[3].error == "HTTP 409" and done_slow[3].response == {"error": "no"}
    assert replies == [{"echo": "a"}, {"echo": "b"}, {"echo": "c"}]
    assert failures == ["slow/m: HTTP 409"]

    clock2 = VirtualClock()

    async def hang(path: str, body: dict[str, Any]) -> None:
        await clock2.sleep(100)

    async def timeout() -> Delivery:
        box = Outbox("dead", hang, timeout=2.5, clock=clock2)
        fut = box.send("/m", {})
        await clock2.advance_async(3)
        result = await fut
        await box.close()
        return result

    late = asyncio.run(timeout())
    assert (late.ok, late.error, late.seconds) == (False, "no answer within 2.5 s", 2.5)


class Echo:
    def __init__(self) -> None:
        self.bodies: list[dict[str, Any]] = []

    def router(self) -> APIRouter:
        r = APIRouter()

        @r.post("/receive")
        def receive(body: dict[str, Any]) -> dict[str, Any]:
            self.bodies.append(body)
            return {"n": len(self.bodies)}

        return r


def test_http_outbox_posts_in_order_over_loopback() -> None:
    echo = Echo()
    with ServerThread(create_app("echo", echo)) as srv:

        async def run() -> list[Delivery]:
            box = Outbox("echo", srv.url, timeout=5.0)
            futures = [box.send("/receive", {"i": i}) for i in range(20)]
            futures.append(box.send("/nowhere", {}))
            done = [await f for f in futures]
            await box.close()
            return done

        done = asyncio.run(run())
    assert [d.response for d in done[:20]] == [{"n": i + 1} for i in range(20)]
    assert [b["i"] for b in echo.bodies] == list(range(20))
    assert (done[20].ok, done[20].error, done[20].response["code"]) == (
        False,
        "HTTP 404",
        "not_found",
    )
