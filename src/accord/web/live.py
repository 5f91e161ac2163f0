"""The live channel from a server to its pages: server-sent events (SSE).

SSE is one long HTTP response of ``text/event-stream`` that the browser's built-in
``EventSource`` reads and reconnects by itself; it goes through proxies as plain HTTP
and needs no extra dependency. It is one-way: pages send with ordinary ``fetch`` POSTs,
which keeps every change a typed, authenticated, logged request.

A :class:`Live` hub has *topics* (a study's progress, one participant's page, a round).
``publish(topic, event, data)`` may be called from any thread (sync routes run in a
thread pool); each open stream of that topic gets ``event`` with ``data`` as JSON, in
publish order, with an increasing ``id``. A stream starts with ``initial`` messages
(the current state, so a page that (re)connects is up to date at once) and sends a
comment every ``heartbeat`` seconds so idle connections stay open.

In a page::

    const live = new EventSource("api/live");
    live.addEventListener("progress", (e) => show(JSON.parse(e.data)));
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import AsyncIterator, Iterable
from dataclasses import dataclass
from typing import Any

from fastapi.responses import StreamingResponse

__all__ = ["Live", "Message", "sse"]


@dataclass(frozen=True)
class Message:
    """One server-sent event."""

    event: str
    data: Any
    id: int | None = None


def sse(message: Message) -> str:
    """The wire text of one event.

    >>> sse(Message("progress", {"done": 1}, 7))
    'id: 7\\nevent: progress\\ndata: {"done":1}\\n\\n'
    """
    head = f"id: {message.id}\n" if message.id is not None else ""
    data = json.dumps(message.data, separators=(",", ":"))
    return f"{head}event: {message.event}\ndata: {data}\n\n"


_CLOSE = Message("close", None)


class Live:
    """Topics of server-sent events (see the module doc)."""

    def __init__(self, heartbeat: float = 15.0) -> None:
        self.heartbeat = heartbeat
        self._subs: dict[str, set[tuple[asyncio.Queue[Message], asyncio.AbstractEventLoop]]] = {}
        self._lock = threading.Lock()
        self._next = 0

    def subscribers(self, topic: str) -> int:
        """How many streams of ``topic`` are open."""
        with self._lock:
            return len(self._subs.get(topic, ()))

    def publish(self, topic: str, event: str, data: Any) -> None:
        """Send ``event`` to every open stream of ``topic`` (from any thread)."""
        with self._lock:
            self._next += 1
            message = Message(event, data, self._next)
            subs = list(self._subs.get(topic, ()))
        for queue, loop in subs:
            _put(queue, loop, message)

    def close(self) -> None:
        """End every open stream (at shut-down)."""
        with self._lock:
            subs = [s for group in self._subs.values() for s in group]
        for queue, loop in subs:
            _put(queue, loop, _CLOSE)

    async def messages(
        self, topic: str, initial: Iterable[Message] = ()
    ) -> AsyncIterator[str | None]:
        """The wire text of ``topic``'s events (None on each idle ``heartbeat``)."""
        queue: asyncio.Queue[Message] = asyncio.Queue()
        sub = (queue, asyncio.get_running_loop())
        with self._lock:
            self._subs.setdefault(topic, set()).add(sub)
        try:
            for message in initial:
                yield sse(message)
            while True:
                try:
                    message = await asyncio.wait_for(queue.get(), self.heartbeat)
                except TimeoutError:
                    yield None
                    continue
                if message is _CLOSE:
                    return
                yield sse(message)
        finally:
            with self._lock:
                group = self._subs.get(topic, set())
                group.discard(sub)
                if not group:
                    self._subs.pop(topic, None)

    def response(self, topic: str, initial: Iterable[Message] = ()) -> StreamingResponse:
        """A streaming response of ``topic`` for a route to return."""

        async def body() -> AsyncIterator[str]:
            yield ": connected\n\n"
            async for text in self.messages(topic, list(initial)):
                yield ": ping\n\n" if text is None else text

        headers = {"Cache-Control": "no-store", "X-Accel-Buffering": "no"}
        return StreamingResponse(body(), media_type="text/event-stream", headers=headers)


def _put(queue: asyncio.Queue[Message], loop: asyncio.AbstractEventLoop, m: Message) -> None:
    try:
        running = asyncio.get_running_loop()
    except RuntimeError:
        running = None
    if running is loop:
        queue.put_nowait(m)
    elif not loop.is_closed():
        loop.call_soon_threadsafe(queue.put_nowait, m)
