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

:meth:`Live.follow` is the other kind of stream: a page's whole state, read again (in a
worker thread) whenever its topic is woken (:meth:`Live.wake`, after every change), when
the state says it next changes by itself (a clock running down, an event due), and at
least every ``heartbeat``, until it is final. A league serves its game page with it::

    live.follow(f"game:{pid}", lambda: state(pid), clock=clock,
                due_in=lambda: next_change(pid) - clock.now(), done=lambda s: "result" in s)
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import AsyncIterator, Callable, Iterable
from dataclasses import dataclass
from typing import Any

from fastapi.responses import StreamingResponse

from accord.core.errors import StateError
from accord.web.clock import Clock, RealClock
from accord.web.errors import WebError

__all__ = ["Live", "Message", "NotYet", "sse", "stream_response"]


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
_HEADERS = {"Cache-Control": "no-store", "X-Accel-Buffering": "no"}
_Sub = tuple[asyncio.Queue[Message], asyncio.AbstractEventLoop]  # a stream's queue, its loop


class NotYet(StateError):
    """A :meth:`Live.follow` reader has nothing to show yet (say, its game is being
    built): nothing is sent, and it is asked again when woken or after ``retry``."""


class Live:
    """Topics of server-sent events (see the module doc)."""

    def __init__(self, heartbeat: float = 15.0) -> None:
        self.heartbeat = heartbeat
        self._subs: dict[str, set[_Sub]] = {}
        self._lock = threading.Lock()
        self._next = 0
        self._closed = False  # closed: a follow() stream opened now ends at once

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

    def wake(self, *topics: str) -> None:
        """Make the open :meth:`follow` streams of ``topics`` read their state now."""
        for topic in topics:
            self.publish(topic, "wake", None)

    def close(self) -> None:
        """End every open stream (at shut-down)."""
        with self._lock:
            self._closed = True
            subs = [s for group in self._subs.values() for s in group]
        for queue, loop in subs:
            _put(queue, loop, _CLOSE)

    async def messages(
        self, topic: str, initial: Iterable[Message] = ()
    ) -> AsyncIterator[str | None]:
        """The wire text of ``topic``'s events (None on each idle ``heartbeat``)."""
        queue, sub = self._subscribe(topic)
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
            self._unsubscribe(topic, sub)

    async def follow(
        self,
        topic: str,
        read: Callable[[], Any],
        *,
        clock: Clock | None = None,
        due_in: Callable[[], float] | None = None,
        done: Callable[[Any], bool] = lambda state: False,
        event: str = "state",
        retry: float = 0.25,
    ) -> AsyncIterator[str]:
        """The wire text of ``read()``'s answers as ``event`` messages (ids 1, 2, ...).

        ``read`` runs in a worker thread, never on the event loop (keep it from waiting
        on an agent: raise :class:`NotYet` instead); it is read again when ``topic`` is
        woken (any message published to it: :meth:`wake`), ``due_in()`` seconds of
        ``clock`` after a read (when the state next changes by itself), and at least
        every ``heartbeat`` seconds, until ``done(answer)``. A wake that comes while it reads
        makes it read once more. A :class:`~accord.web.errors.WebError` from ``read``
        is sent as one ``error`` event (``{"error": message}``) that ends the stream; so
        does :meth:`close` end it.
        """
        clock = clock or RealClock()
        queue, sub = self._subscribe(topic)
        n = 0
        try:
            while not self._closed:
                while not queue.empty():  # every wake so far is answered by this read
                    if queue.get_nowait() is _CLOSE:
                        return
                try:
                    answer = await asyncio.to_thread(read)
                except NotYet:
                    wait = retry
                except WebError as exc:
                    yield sse(Message("error", {"error": exc.message}))
                    return
                else:
                    n += 1
                    yield sse(Message(event, answer, n))
                    if done(answer):
                        return
                    wait = self.heartbeat
                    if due_in is not None:
                        wait = min(max(due_in(), 0.01), wait)
                try:
                    if await clock.wait_for(queue.get(), wait) is _CLOSE:
                        return
                except TimeoutError:
                    pass
        finally:
            self._unsubscribe(topic, sub)

    def response(self, topic: str, initial: Iterable[Message] = ()) -> StreamingResponse:
        """A streaming response of ``topic`` for a route to return."""

        async def body() -> AsyncIterator[str]:
            async for text in self.messages(topic, list(initial)):
                yield ": ping\n\n" if text is None else text

        return stream_response(body())

    def _subscribe(self, topic: str) -> tuple[asyncio.Queue[Message], _Sub]:
        queue: asyncio.Queue[Message] = asyncio.Queue()
        sub = (queue, asyncio.get_running_loop())
        with self._lock:
            self._subs.setdefault(topic, set()).add(sub)
        return queue, sub

    def _unsubscribe(self, topic: str, sub: _Sub) -> None:
        with self._lock:
            group = self._subs.get(topic, set())
            group.discard(sub)
            if not group:
                self._subs.pop(topic, None)


def stream_response(body: AsyncIterator[str]) -> StreamingResponse:
    """An event stream's response (``body``: its wire text), opened with a comment so
    the page sees it connected at once."""

    async def opened() -> AsyncIterator[str]:
        yield ": connected\n\n"
        async for text in body:
            yield text

    return StreamingResponse(opened(), media_type="text/event-stream", headers=_HEADERS)


def _put(queue: asyncio.Queue[Message], loop: asyncio.AbstractEventLoop, m: Message) -> None:
    try:
        running = asyncio.get_running_loop()
    except RuntimeError:
        running = None
    if running is loop:
        queue.put_nowait(m)
    elif not loop.is_closed():
        loop.call_soon_threadsafe(queue.put_nowait, m)
