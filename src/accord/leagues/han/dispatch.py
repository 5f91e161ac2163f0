"""Flood protection: one side's outgoing events, delayed, spaced and flushed.

Each event waits its own ``delay`` once it reaches the head of the queue, is dispatched,
and the next one may start only ``spacing`` seconds later (1.1 s, as IAGO's runner). A
priority event (offer, accept, quit, a preference) first drops the flushable events still
waiting. Times are the caller's clock; nothing here sleeps.

    >>> from accord.leagues.han.events import Event, EventKind
    >>> box = Outbox()
    >>> box.push([Event(EventKind.SEND_EXPRESSION, emotion="happy"),
    ...           Event(EventKind.SEND_EXPRESSION, emotion="sad")], now=0.0)
    0
    >>> [box.pop_due(t) is not None for t in (0.0, 1.0, 1.1)]
    [True, False, True]
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence

from accord.leagues.han.events import Event

__all__ = ["SPACING", "Outbox"]

SPACING = 1.1


class Outbox:
    """Queued events of one side; ``limit`` bounds the queue (extras are dropped)."""

    def __init__(self, spacing: float = SPACING, limit: int = 50) -> None:
        self.spacing = spacing
        self.limit = limit
        self._queue: deque[Event] = deque()
        self._current: tuple[Event, float] | None = None
        self._free_at = float("-inf")
        self.flushed = 0
        self.dropped = 0

    def __len__(self) -> int:
        return len(self._queue) + (self._current is not None)

    def push(self, events: Sequence[Event], now: float) -> int:
        """Queue ``events``; returns how many waiting events a priority one flushed."""
        flushed = 0
        if any(e.priority for e in events):
            kept = deque(e for e in self._queue if not e.flushable)
            flushed = len(self._queue) - len(kept)
            self._queue = kept
        for e in events:
            if len(self._queue) >= self.limit:
                self.dropped += 1
                continue
            self._queue.append(e)
        self.flushed += flushed
        self._start(now)
        return flushed

    def clear(self) -> None:
        self._queue.clear()
        self._current = None

    def next_due(self) -> float | None:
        """When the event in flight is due (None when idle)."""
        return None if self._current is None else self._current[1]

    def pop_due(self, now: float) -> Event | None:
        """The event in flight if it is due at ``now``; the next one starts after the spacing."""
        self._start(now)
        if self._current is None or self._current[1] > now:
            return None
        event, due = self._current
        self._current = None
        self._free_at = due + self.spacing
        self._start(now)
        return event

    def _start(self, now: float) -> None:
        if self._current is None and self._queue:
            event = self._queue.popleft()
            start = max(now, self._free_at)
            self._current = (event, start + event.delay)
