"""Ordered per-party delivery with timeouts.

Each party gets its own :class:`Outbox`: messages to it go out in the order they were
sent, one at a time, each with a timeout on the server's :class:`~accord.web.clock.Clock`.
A slow or dead party delays only its own queue, never the others, and never the reply to
whoever caused the message. A delivery never raises: its outcome (reply or error) is a
:class:`Delivery`, and an optional callback gets the reply.

The transport is any ``async (path, body) -> reply`` callable that raises
:class:`DeliveryError` on failure: :class:`HttpTransport` POSTs JSON over a keep-alive
connection; a plain async function serves in-process parties (agents on a virtual clock).

    >>> import asyncio
    >>> from accord.web.clock import VirtualClock
    >>> async def demo() -> list[str]:
    ...     clock, got = VirtualClock(), []
    ...     async def party(path: str, body: dict) -> dict:
    ...         await clock.sleep(body["think"])
    ...         got.append(body["text"])
    ...         return {"ok": True}
    ...     box = Outbox("p", party, timeout=3.0, clock=clock)
    ...     slow = box.send("/say", {"text": "slow", "think": 10})
    ...     fast = box.send("/say", {"text": "fast", "think": 1})
    ...     await clock.advance_async(20)
    ...     return [(await slow).error, (await fast).ok, got]
    >>> asyncio.run(demo())
    ['no answer within 3 s', True, ['fast']]
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from accord.core.errors import AccordError
from accord.web.clock import Clock, RealClock
from accord.web.http11 import Connection, HttpError

__all__ = ["Delivery", "DeliveryError", "HttpTransport", "Outbox", "Transport"]

log = logging.getLogger("accord.web.delivery")

Transport = Callable[[str, dict[str, Any]], Awaitable[Any]]
"""``async (path, body) -> reply``; raises :class:`DeliveryError` when the call fails."""
Callback = Callable[[Any], Awaitable[None] | None]


class DeliveryError(AccordError):
    """A party could not be reached or refused a message; ``reply`` is its answer, if any."""

    def __init__(self, message: str, reply: Any = None) -> None:
        super().__init__(message)
        self.reply = reply


@dataclass
class Delivery:
    """Outcome of one message: ``response`` is the reply (None on failure)."""

    party: str
    path: str
    ok: bool
    response: Any = None
    error: str | None = None
    seconds: float = 0.0


class HttpTransport:
    """POST JSON to ``base_url + path`` on one keep-alive connection; HTTP >= 400 fails."""

    def __init__(self, base_url: str) -> None:
        self.base_url = base_url
        self.connection = Connection(base_url)

    async def __call__(self, path: str, body: dict[str, Any]) -> Any:
        try:
            status, data = await self.connection.post_json(path, body, timeout=3600.0)
        except HttpError as e:
            raise DeliveryError(str(e)) from None
        if status >= 400:
            raise DeliveryError(f"HTTP {status}", data)
        return data

    def close(self) -> None:
        self.connection.close()


@dataclass
class _Job:
    path: str
    body: dict[str, Any]
    future: asyncio.Future[Delivery]
    callback: Callback | None = None
    before: Callable[[], None] | None = None


@dataclass
class Outbox:
    """Ordered deliveries to one party, one at a time, each within ``timeout`` seconds.

    ``transport`` is a :data:`Transport` or a base URL (an :class:`HttpTransport`);
    ``on_failure(party, path, delivery)`` hears every failed delivery.
    """

    name: str
    transport: Transport | str
    timeout: float = 5.0
    clock: Clock = field(default_factory=RealClock)
    on_failure: Callable[[str, str, Delivery], None] | None = None
    sent: int = 0
    failed: int = 0
    _queue: asyncio.Queue[_Job] = field(default_factory=asyncio.Queue)
    _worker: asyncio.Task[None] | None = None

    def __post_init__(self) -> None:
        if isinstance(self.transport, str):
            self.transport = HttpTransport(self.transport)

    def send(
        self,
        path: str,
        body: dict[str, Any],
        callback: Callback | None = None,
        before: Callable[[], None] | None = None,
    ) -> asyncio.Future[Delivery]:
        """Queue ``body`` for ``path``; returns a future of the outcome. ``before`` runs
        just before the message goes out, ``callback`` with the reply (None on failure)."""
        loop = asyncio.get_running_loop()
        fut: asyncio.Future[Delivery] = loop.create_future()
        self._queue.put_nowait(_Job(path, body, fut, callback, before))
        if self._worker is None or self._worker.done():
            self._worker = loop.create_task(self._run(), name=f"outbox:{self.name}")
        return fut

    @property
    def pending(self) -> int:
        """Messages queued and not yet sent."""
        return self._queue.qsize()

    async def deliver(self, path: str, body: dict[str, Any]) -> Delivery:
        """Send one message now (outside the queue); never raises."""
        assert not isinstance(self.transport, str)
        t0 = self.clock.now()
        try:
            reply = await self.clock.wait_for(self.transport(path, body), self.timeout)
        except TimeoutError:
            error = f"no answer within {self.timeout:g} s"
            return Delivery(self.name, path, False, None, error, self.clock.now() - t0)
        except DeliveryError as e:
            return Delivery(self.name, path, False, e.reply, str(e), self.clock.now() - t0)
        return Delivery(self.name, path, True, reply, None, self.clock.now() - t0)

    async def _run(self) -> None:
        while True:
            job = await self._queue.get()
            try:
                await self._one(job)
            finally:
                self._queue.task_done()

    async def _one(self, job: _Job) -> None:
        if job.before is not None:
            job.before()
        result = await self.deliver(job.path, job.body)
        self.sent += 1
        if not result.ok:
            self.failed += 1
            log.warning("delivery to %s %s failed: %s", self.name, job.path, result.error)
            if self.on_failure is not None:
                self.on_failure(self.name, job.path, result)
        if not job.future.done():
            job.future.set_result(result)
        if job.callback is not None:
            try:
                out = job.callback(result.response if result.ok else None)
                if out is not None:
                    await out
            except Exception:  # a callback bug must not stop the deliveries
                log.exception("callback after %s %s failed", self.name, job.path)

    async def drain(self) -> None:
        """Wait until everything queued so far went out."""
        await self._queue.join()

    async def close(self) -> None:
        """Stop the worker and close the transport (queued messages are dropped)."""
        if self._worker is not None:
            self._worker.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._worker
            self._worker = None
        close = getattr(self.transport, "close", None)
        if close is not None:
            close()
