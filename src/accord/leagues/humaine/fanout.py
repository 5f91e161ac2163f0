"""Deliveries from the orchestrator to the parties of a round.

Each party of each round has its own :class:`Outbox`: messages to it go out in order,
one at a time, each with a timeout. A slow or dead party delays only its own queue,
never the relay of a message to the others, and never the reply to the sender.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from .http11 import Connection, HttpError

__all__ = ["Delivery", "Outbox", "post_json"]

log = logging.getLogger("accord.humaine.fanout")

Callback = Callable[[dict[str, Any] | None], Awaitable[None] | None]


@dataclass
class Delivery:
    """Outcome of one POST: ``response`` is the parsed JSON reply (None on failure)."""

    url: str
    ok: bool
    response: Any = None
    error: str | None = None
    seconds: float = 0.0


async def post_json(conn: Connection, path: str, body: dict[str, Any], timeout: float) -> Delivery:
    """POST ``body`` and parse the reply; never raises, reports failures in the result."""
    loop = asyncio.get_running_loop()
    t0 = loop.time()
    url = f"{conn.scheme}://{conn.host_header}{conn.prefix}{path}"
    try:
        status, data = await conn.post_json(path, body, timeout)
    except TimeoutError:
        return Delivery(url, False, None, f"no answer within {timeout:g} s", loop.time() - t0)
    except HttpError as e:
        return Delivery(url, False, None, str(e), loop.time() - t0)
    dt = loop.time() - t0
    if status >= 400:
        return Delivery(url, False, data, f"HTTP {status}", dt)
    return Delivery(url, True, data, None, dt)


@dataclass
class _Job:
    path: str
    body: dict[str, Any]
    future: asyncio.Future[Delivery]
    callback: Callback | None = None
    before: Callable[[], None] | None = None


@dataclass
class Outbox:
    """Ordered deliveries to one party (``base_url``), one at a time, with a timeout."""

    base_url: str
    name: str
    timeout: float = 5.0
    on_failure: Callable[[str, str, Delivery], None] | None = None
    _queue: asyncio.Queue[_Job] = field(default_factory=asyncio.Queue)
    _conn: Connection | None = None
    _worker: asyncio.Task[None] | None = None
    sent: int = 0
    failed: int = 0

    def send(
        self,
        path: str,
        body: dict[str, Any],
        callback: Callback | None = None,
        before: Callable[[], None] | None = None,
    ) -> asyncio.Future[Delivery]:
        """Queue ``body`` for ``POST base_url + path``; returns a future of the outcome.
        ``before`` runs just before the request goes out, ``callback`` with the reply."""
        loop = asyncio.get_running_loop()
        fut: asyncio.Future[Delivery] = loop.create_future()
        self._queue.put_nowait(_Job(path, body, fut, callback, before))
        if self._worker is None or self._worker.done():
            self._worker = loop.create_task(self._run(), name=f"outbox:{self.name}")
        return fut

    @property
    def pending(self) -> int:
        return self._queue.qsize()

    async def _run(self) -> None:
        while True:
            job = await self._queue.get()
            if job.before is not None:
                job.before()
            if self._conn is None:
                self._conn = Connection(self.base_url)
            result = await post_json(self._conn, job.path, job.body, self.timeout)
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
            self._queue.task_done()

    async def drain(self) -> None:
        """Wait until everything queued so far went out."""
        await self._queue.join()

    async def close(self) -> None:
        if self._worker is not None:
            self._worker.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._worker
            self._worker = None
        if self._conn is not None:
            self._conn.close()
            self._conn = None
