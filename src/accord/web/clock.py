"""Clocks: the real one and a virtual one that tests and agent-only runs move by hand.

A :class:`Clock` gives monotonic seconds (``now()``, or call it: a clock is also a
``Callable[[], float]``, the type HUMAINE's rules take), wall-clock epoch seconds
(``wall()``), an ``async sleep`` and an ``async wait_for`` with a timeout, all on
*its* time. Servers take a clock and never call :mod:`time` themselves, so the same
dialogue runs in real time in production and in no time on a :class:`VirtualClock`.

    >>> import asyncio
    >>> clock = VirtualClock()
    >>> async def dialogue() -> list[float]:
    ...     seen = []
    ...     async def agent(delay: float) -> None:
    ...         await clock.sleep(delay)
    ...         seen.append(clock.now())
    ...     tasks = [asyncio.create_task(agent(d)) for d in (5.0, 2.0)]
    ...     await clock.advance_async(10.0)
    ...     await asyncio.gather(*tasks)
    ...     return seen
    >>> asyncio.run(dialogue())
    [2.0, 5.0]
"""

from __future__ import annotations

import asyncio
import heapq
import threading
import time
from collections.abc import Awaitable
from dataclasses import dataclass, field
from typing import Protocol, TypeVar, runtime_checkable

__all__ = ["Clock", "RealClock", "VirtualClock"]

T = TypeVar("T")


@runtime_checkable
class Clock(Protocol):
    """Time as a server sees it."""

    def now(self) -> float:
        """Monotonic seconds."""
        ...

    def __call__(self) -> float:
        """Same as :meth:`now` (a clock is a ``Callable[[], float]``)."""
        ...

    def wall(self) -> float:
        """Epoch seconds (for timestamps people read)."""
        ...

    async def sleep(self, seconds: float) -> None:
        """Wait ``seconds`` of this clock's time."""
        ...

    async def wait_for(self, aw: Awaitable[T], seconds: float) -> T:
        """``aw``'s result, or ``TimeoutError`` after ``seconds`` of this clock's time."""
        ...


class RealClock:
    """The machine's clocks: :func:`time.monotonic`, :func:`time.time`, asyncio sleeps."""

    def now(self) -> float:
        return time.monotonic()

    def __call__(self) -> float:
        return time.monotonic()

    def wall(self) -> float:
        return time.time()

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(max(0.0, seconds))

    async def wait_for(self, aw: Awaitable[T], seconds: float) -> T:
        return await asyncio.wait_for(aw, seconds)


@dataclass(order=True)
class _Sleeper:
    deadline: float
    seq: int
    future: asyncio.Future[None] = field(compare=False)
    loop: asyncio.AbstractEventLoop = field(compare=False)


class VirtualClock:
    """A clock that stands still until :meth:`advance` moves it.

    ``advance(dt)`` wakes the sleepers due within ``dt`` one at a time, in deadline
    order, with :meth:`now` set to each one's deadline, and lets the event loop run what
    became ready before it moves on; then it sets the time to ``start + dt``. Call
    ``advance`` from a thread other than the loop's (a test driving a server in a
    thread), or ``await advance_async`` from inside the loop. ``wall()`` is
    ``wall_start + now()``.
    """

    def __init__(self, start: float = 0.0, wall_start: float = 1_700_000_000.0) -> None:
        self._t = float(start)
        self._wall0 = float(wall_start)
        self._sleepers: list[_Sleeper] = []
        self._seq = 0
        self._lock = threading.Lock()

    def now(self) -> float:
        return self._t

    def __call__(self) -> float:
        return self._t

    def wall(self) -> float:
        return self._wall0 + self._t

    @property
    def pending(self) -> list[float]:
        """Deadlines of the sleepers still waiting, earliest first."""
        with self._lock:
            return sorted(s.deadline for s in self._sleepers if not s.future.done())

    async def sleep(self, seconds: float) -> None:
        if seconds <= 0:
            await asyncio.sleep(0)
            return
        loop = asyncio.get_running_loop()
        fut: asyncio.Future[None] = loop.create_future()
        with self._lock:
            self._seq += 1
            heapq.heappush(self._sleepers, _Sleeper(self._t + seconds, self._seq, fut, loop))
        await fut

    async def wait_for(self, aw: Awaitable[T], seconds: float) -> T:
        task = asyncio.ensure_future(aw)
        timer = asyncio.ensure_future(self.sleep(seconds))
        try:
            await asyncio.wait({task, timer}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            timer.cancel()
        if task.done():
            return task.result()
        task.cancel()
        raise TimeoutError(f"no result within {seconds:g} s (virtual clock)")

    def _next_due(self, until: float) -> _Sleeper | None:
        with self._lock:
            while self._sleepers and self._sleepers[0].future.done():
                heapq.heappop(self._sleepers)  # cancelled sleepers
            if self._sleepers and self._sleepers[0].deadline <= until:
                s = heapq.heappop(self._sleepers)
                self._t = max(self._t, s.deadline)
                return s
            return None

    def advance(self, seconds: float) -> None:
        """Move the time on by ``seconds`` (from outside the sleepers' event loop)."""
        until = self._t + seconds
        while (s := self._next_due(until)) is not None:
            if s.loop.is_closed():
                continue
            try:
                running = asyncio.get_running_loop()
            except RuntimeError:
                running = None
            if running is s.loop:
                raise RuntimeError("inside the event loop, use `await clock.advance_async(dt)`")
            asyncio.run_coroutine_threadsafe(_wake(s.future), s.loop).result(timeout=10)
        self._t = max(self._t, until)

    async def advance_async(self, seconds: float) -> None:
        """Move the time on by ``seconds`` from inside the event loop."""
        until = self._t + seconds
        await _settle()  # let tasks that were just created reach their sleeps
        while (s := self._next_due(until)) is not None:
            await _wake(s.future)
        self._t = max(self._t, until)


async def _wake(future: asyncio.Future[None]) -> None:
    """Resolve ``future`` and let the loop run what became ready (a few rounds)."""
    if not future.done():
        future.set_result(None)
    await _settle()


async def _settle() -> None:
    for _ in range(20):
        await asyncio.sleep(0)
