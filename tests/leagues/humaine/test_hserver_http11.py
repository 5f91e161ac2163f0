"""The orchestrator's fan-out (the web layer's HTTP/1.1 client and outboxes) against raw
asyncio servers."""

from __future__ import annotations

import asyncio
import json
import socket
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from accord.web.delivery import Delivery, Outbox
from accord.web.http11 import Connection, HttpError

Handler = Callable[[asyncio.StreamReader, asyncio.StreamWriter, dict[str, Any]], Awaitable[None]]


async def read_request(reader: asyncio.StreamReader) -> tuple[str, dict[str, Any]]:
    head = await reader.readuntil(b"\r\n\r\n")
    lines = head.decode().split("\r\n")
    n = next(int(x.split(":")[1]) for x in lines if x.lower().startswith("content-length"))
    return lines[0].split(" ")[1], json.loads(await reader.readexactly(n))


async def serve(handler: Handler) -> tuple[asyncio.Server, int, dict[str, Any]]:
    state: dict[str, Any] = {"connections": 0, "paths": []}

    async def on_conn(r: asyncio.StreamReader, w: asyncio.StreamWriter) -> None:
        state["connections"] += 1
        try:
            await handler(r, w, state)
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            w.close()

    server = await asyncio.start_server(on_conn, "127.0.0.1", 0)
    return server, server.sockets[0].getsockname()[1], state


def reply(body: bytes, extra: str = "") -> bytes:
    return (
        f"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n{extra}"
        f"Content-Length: {len(body)}\r\n\r\n"
    ).encode() + body


async def keepalive(r: asyncio.StreamReader, w: asyncio.StreamWriter, st: dict[str, Any]) -> None:
    while True:
        path, body = await read_request(r)
        st["paths"].append(path)
        w.write(reply(json.dumps({"echo": body, "path": path}).encode()))
        await w.drain()


def test_keep_alive_reuses_one_connection_and_keeps_the_prefix() -> None:
    async def main() -> None:
        server, port, st = await serve(keepalive)
        conn = Connection(f"http://127.0.0.1:{port}/r1/Celia")
        for i in range(3):
            status, data = await conn.post_json("/receiveMessage", {"i": i})
            assert status == 200 and data == {"echo": {"i": i}, "path": "/r1/Celia/receiveMessage"}
        assert st["connections"] == 1
        conn.close()
        server.close()

    asyncio.run(main())


def test_chunked_and_read_to_close_bodies() -> None:
    async def chunked(r: asyncio.StreamReader, w: asyncio.StreamWriter, st: dict[str, Any]) -> None:
        while True:
            await read_request(r)
            w.write(
                b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
                b'4\r\n{"st\r\n' + b'10\r\natus":"chunked"}\r\n0\r\n\r\n'
            )
            await w.drain()

    async def closing(r: asyncio.StreamReader, w: asyncio.StreamWriter, st: dict[str, Any]) -> None:
        await read_request(r)
        w.write(b'HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n{"status":"bye"}')
        await w.drain()

    async def main() -> None:
        s1, p1, _ = await serve(chunked)
        conn = Connection(f"http://127.0.0.1:{p1}")
        assert await conn.post_json("/x", {}) == (200, {"status": "chunked"})
        assert await conn.post_json("/x", {}) == (200, {"status": "chunked"})
        s2, p2, st2 = await serve(closing)
        conn2 = Connection(f"http://127.0.0.1:{p2}")
        assert await conn2.post_json("/x", {}) == (200, {"status": "bye"})
        assert await conn2.post_json("/x", {}) == (200, {"status": "bye"})
        assert st2["connections"] == 2
        s1.close()
        s2.close()

    asyncio.run(main())


def test_reconnects_after_the_server_drops_an_idle_connection() -> None:
    async def one_shot(
        r: asyncio.StreamReader, w: asyncio.StreamWriter, st: dict[str, Any]
    ) -> None:
        await read_request(r)
        w.write(reply(b'{"n":1}'))  # keep-alive promised, but the socket closes
        await w.drain()

    async def main() -> None:
        server, port, st = await serve(one_shot)
        conn = Connection(f"http://127.0.0.1:{port}")
        assert await conn.post_json("/a", {}) == (200, {"n": 1})
        await asyncio.sleep(0.05)
        assert await conn.post_json("/b", {}) == (200, {"n": 1})
        assert st["connections"] == 2
        server.close()

    asyncio.run(main())


def test_timeout_refused_and_http_errors() -> None:
    async def silent(r: asyncio.StreamReader, w: asyncio.StreamWriter, st: dict[str, Any]) -> None:
        await read_request(r)
        await asyncio.sleep(5)

    async def main() -> None:
        server, port, _ = await serve(silent)
        conn = Connection(f"http://127.0.0.1:{port}")
        with pytest.raises(TimeoutError):
            await conn.post_json("/x", {}, timeout=0.2)
        server.close()
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            dead = s.getsockname()[1]
        with pytest.raises(HttpError, match="cannot connect"):
            await Connection(f"http://127.0.0.1:{dead}").post_json("/x", {})
        box = Outbox("ghost", f"http://127.0.0.1:{dead}", timeout=0.5)
        d = await box.send("/receiveMessage", {})
        assert isinstance(d, Delivery) and not d.ok and "cannot connect" in (d.error or "")
        await box.close()

    asyncio.run(main())
    with pytest.raises(ValueError, match="http"):
        Connection("ftp://example.org")


def test_outbox_keeps_order_for_a_slow_party_and_reports_failures() -> None:
    async def slow(r: asyncio.StreamReader, w: asyncio.StreamWriter, st: dict[str, Any]) -> None:
        while True:
            path, body = await read_request(r)
            await asyncio.sleep(0.01 * (body["i"] % 3))
            st["paths"].append(body["i"])
            status = b"500 Oops" if body["i"] == 4 else b"200 OK"
            w.write(b"HTTP/1.1 " + status + b"\r\nContent-Length: 2\r\n\r\n{}")
            await w.drain()

    async def main() -> None:
        server, port, st = await serve(slow)
        failures: list[tuple[str, str, Delivery]] = []
        box = Outbox(
            "slow", f"http://127.0.0.1:{port}", 2.0, on_failure=lambda *a: failures.append(a)
        )
        seen: list[int] = []
        futures = [box.send("/m", {"i": i}, before=lambda i=i: seen.append(i)) for i in range(8)]
        results = await asyncio.gather(*futures)
        assert st["paths"] == list(range(8)) and seen == list(range(8))
        assert [d.ok for d in results] == [True] * 4 + [False] + [True] * 3
        assert failures[0][:2] == ("slow", "/m") and failures[0][2].error == "HTTP 500"
        await box.close()
        server.close()

    asyncio.run(main())
