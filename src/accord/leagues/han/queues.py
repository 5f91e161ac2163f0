"""Flood protection as data: one side's inbox and its spaced outbox, on the caller's clock.

IAGO runs each agent in one loop over two queues, the **inbox** of events sent to the
agent and the **outbox** of the agent's answers. Each turn of the loop:

1. if an event waits in the inbox, take the oldest and ask the agent for its answers;
   if an answer holds a priority event, first drop the flushable events still waiting
   in the outbox;
2. if an event waits in the outbox, dispatch the oldest: wait its ``delay``, send it,
   then wait the spacing (1.1 s); the side is *busy* all that time;
3. with both queues empty, wait until an event arrives.

So the inbox fills while its side is busy, and the side takes **one** inbox event
between two dispatches. A priority event arriving in the inbox (offer, accept, quit,
game start or end, a preference) first drops the flushable events still waiting there.

Here the loop is data that the rules (:mod:`accord.leagues.han.table`) move through
time: nothing sleeps and no agent is called. Where IAGO's loop would ask the agent,
:meth:`Side.work` stops with the question in :attr:`Side.asking`; the driver asks the
agent and the rules hand its answer to :meth:`Side.answered`.

    >>> from accord.leagues.han.events import Event, EventKind
    >>> s = Side()
    >>> _ = s.inbox.put(Event(EventKind.SEND_EXPRESSION, "person", emotion="happy"), 0.0)
    >>> s.work(0.0), s.asking.emotion  # the agent must answer "happy" now
    (True, 'happy')
    >>> s.answered([Event(EventKind.SEND_EXPRESSION, emotion="sad", delay=1.0)], 0.0)
    >>> s.pop_due(0.0), s.next_due()  # busy: "sad" goes out at 1.0, then 1.1 s more
    (None, 1.0)
    >>> s.pop_due(1.0).emotion, s.free_at
    ('sad', 2.1)
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from accord.core.errors import ConfigError
from accord.leagues.han.events import Event

__all__ = ["SPACING", "Inbox", "InboxFlush", "Outbox", "Side"]

SPACING = 1.1
"""Seconds between two dispatches of one side (IAGO's runner)."""

InboxFlush = Literal["flushable", "all"]
"""What a priority event drops from an inbox: the flushable events waiting (the
documented behaviour, the default) or every event waiting (what the decompiled IAGO
code does: its flush keeps the unflushable events in a new queue that it then discards)."""


class Inbox:
    """Events sent to one side, waiting for it; a priority arrival flushes (see module doc)."""

    def __init__(self, flush: InboxFlush = "flushable") -> None:
        if flush not in ("flushable", "all"):
            raise ConfigError(f"flush is 'flushable' or 'all'; got {flush!r}")
        self.flush = flush
        self.queue: deque[Event] = deque()
        self.dropped: list[tuple[float, Event]] = []  # (arrival time of the flusher, event)

    def __len__(self) -> int:
        return len(self.queue)

    def put(self, event: Event, now: float) -> int:
        """Queue ``event``; returns how many waiting events it flushed."""
        n = 0
        if event.priority and self.queue:
            keep = deque(e for e in self.queue if self.flush == "flushable" and not e.flushable)
            gone = [e for e in self.queue if not any(e is k for k in keep)]
            self.dropped += [(now, e) for e in gone]
            n = len(gone)
            self.queue = keep
        self.queue.append(event)
        return n

    def take(self) -> Event | None:
        return self.queue.popleft() if self.queue else None

    def clear(self) -> None:
        self.queue.clear()


class Outbox:
    """A side's events queued to go out, each after its ``delay``, ``spacing`` apart;
    ``limit`` bounds the queue (extras are dropped). A person's side has spacing 0.

        >>> from accord.leagues.han.events import Event, EventKind
        >>> box = Outbox()
        >>> box.push([Event(EventKind.SEND_EXPRESSION, emotion="happy"),
        ...           Event(EventKind.SEND_EXPRESSION, emotion="sad")], now=0.0)
        0
        >>> [box.pop_due(t) is not None for t in (0.0, 1.0, 1.1)]
        [True, False, True]
    """

    def __init__(self, spacing: float = SPACING, limit: int = 50) -> None:
        self.spacing = spacing
        self.limit = limit
        self.queue: deque[Event] = deque()
        self.current: tuple[Event, float] | None = None
        self.free_at = float("-inf")
        self.flushed = 0
        self.dropped = 0

    def __len__(self) -> int:
        return len(self.queue) + (self.current is not None)

    def push(self, events: Sequence[Event], now: float) -> int:
        """Queue ``events``; returns how many waiting events a priority one flushed."""
        self.queue, flushed, dropped = _queued(self.queue, events, self.limit)
        self.flushed += flushed
        self.dropped += dropped
        self._start(now)
        return flushed

    def clear(self) -> None:
        self.queue.clear()
        self.current = None

    def next_due(self) -> float | None:
        """When the event in flight is due (None when idle)."""
        return None if self.current is None else self.current[1]

    def pop_due(self, now: float) -> Event | None:
        """The event in flight if it is due at ``now``; the next one starts after the spacing."""
        self._start(now)
        event = _sent(self, now)
        if event is not None:
            self._start(now)
        return event

    def _start(self, now: float) -> None:
        if self.current is None and self.queue:
            event = self.queue.popleft()
            self.current = (event, max(now, self.free_at) + event.delay)


@dataclass
class Side:
    """One agent's side of IAGO's loop: its inbox, its outbox, the question it must
    answer now (:attr:`asking`), when it is next free; ``limit`` bounds the outbox."""

    spacing: float = SPACING
    limit: int = 50
    flush: InboxFlush = "flushable"
    inbox: Inbox = field(init=False)
    out: deque[Event] = field(default_factory=deque)
    current: tuple[Event, float] | None = None
    free_at: float = float("-inf")
    asking: Event | None = None
    flushed: int = 0
    """Outbox events dropped by a priority answer."""
    overflow: int = 0
    """Answers dropped because the outbox was full."""

    def __post_init__(self) -> None:
        self.inbox = Inbox(self.flush)

    def next_due(self) -> float | None:
        """The next moment this side does something (None when it has nothing to do)."""
        if self.current is not None:
            return self.current[1]
        if len(self.inbox) or self.out:
            return self.free_at
        return None

    def work(self, now: float) -> bool:
        """Run the loop at ``now`` until something is in flight or nothing is left; True
        if it stopped because the agent must answer :attr:`asking` first."""
        while self.current is None:
            if self.asking is not None:
                return True
            event = self.inbox.take()
            if event is not None:
                self.asking = event
                return True
            if not self._next(now) and not len(self.inbox):
                return False
        return False

    def answered(self, events: Sequence[Event], now: float) -> None:
        """The agent's answer to :attr:`asking` (checked by the caller), at ``now``."""
        self.asking = None
        self.out, flushed, dropped = _queued(self.out, events, self.limit)
        self.flushed += flushed
        self.overflow += dropped
        self._next(now)

    def _next(self, now: float) -> bool:
        if self.current is None and self.out:
            nxt = self.out.popleft()
            self.current = (nxt, now + nxt.delay)
            return True
        return False

    def pop_due(self, now: float) -> Event | None:
        """The event to dispatch at ``now``, if one is due (call :meth:`work` first)."""
        return _sent(self, now)

    def clear(self) -> None:
        self.inbox.clear()
        self.out.clear()
        self.current = None
        self.asking = None


def _queued(
    queue: deque[Event], events: Sequence[Event], limit: int
) -> tuple[deque[Event], int, int]:
    """``queue`` with ``events`` added (a priority one first drops the flushable events
    waiting; beyond ``limit`` events are dropped): the queue, how many were flushed and
    how many dropped."""
    if not events:
        return queue, 0, 0
    flushed = dropped = 0
    if any(e.priority for e in events):
        kept = deque(e for e in queue if not e.flushable)
        flushed = len(queue) - len(kept)
        queue = kept
    for e in events:
        if len(queue) >= limit:
            dropped += 1
        else:
            queue.append(e)
    return queue, flushed, dropped


def _sent(q: Outbox | Side, now: float) -> Event | None:
    """The event ``q`` has in flight if it is due at ``now`` (``q`` is then busy for its
    spacing after the event's due time), else None."""
    current = q.current
    if current is None or current[1] > now:
        return None
    q.current = None
    q.free_at = current[1] + q.spacing
    return current[0]
