"""The receive side: one in-process side's inbox and the loop that answers and dispatches.

IAGO runs each agent in one loop (its runner) over two queues, the **inbox** of events
sent to the agent and the **outbox** of the agent's answers. Each turn of the loop:

1. if an event waits in the inbox, take the oldest and ask the agent for its answers;
   if an answer holds a priority event, first drop the flushable events still waiting
   in the outbox (the send-side flush of :mod:`accord.leagues.han.dispatch`);
2. if an event waits in the outbox, dispatch the oldest: wait its ``delay``, send it,
   then wait the spacing (1.1 s); the side is *busy* all that time;
3. with both queues empty, sleep until an event arrives.

So the inbox fills while its side is busy, and the side takes **one** inbox event
between two dispatches. When an event arrives in the inbox (:meth:`Runner.receive`) and
it is a priority event (offer, accept, quit, game start or end, a preference), the
flushable events still waiting there are dropped first: they are never delivered. The
others (accepts, quits, TIME ticks, messages with a meaning or a value) stay, in their
order, and the priority event goes behind them.

Times are the caller's clock; nothing here sleeps. A side with nothing to send is
never busy, so it hears every event the moment it arrives:

    >>> from accord.leagues.han.events import Event, EventKind
    >>> heard = []
    >>> def answer(e, t):
    ...     heard.append((t, e.kind.name, e.emotion))
    ...     return [Event(EventKind.SEND_EXPRESSION, emotion="sad", delay=1.0)] if e.emotion == "happy" else []
    >>> r = Runner(answer)
    >>> r.receive(Event(EventKind.SEND_EXPRESSION, "person", emotion="happy"), 0.0)
    0
    >>> r.pop_due(0.0) is None, r.next_due()  # busy: "sad" goes out at 1.0, then 1.1 s more
    (True, 1.0)
    >>> r.receive(Event(EventKind.SEND_EXPRESSION, "person", emotion="angry"), 0.5)
    0
    >>> r.pop_due(1.0).emotion, r.next_due()  # "angry" waits until 2.1
    ('sad', 2.1)
    >>> r.receive(Event(EventKind.SEND_OFFER, "person"), 1.5)  # priority: drops "angry"
    1
    >>> r.pop_due(2.1), heard
    (None, [(0.0, 'SEND_EXPRESSION', 'happy'), (2.1, 'SEND_OFFER', '')])
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Sequence
from typing import Literal

from accord.core.errors import ConfigError
from accord.leagues.han.dispatch import SPACING
from accord.leagues.han.events import Event

__all__ = ["Inbox", "InboxFlush", "Runner"]

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
        self._queue: deque[Event] = deque()
        self.dropped: list[tuple[float, Event]] = []  # (arrival time of the flusher, event)

    def __len__(self) -> int:
        return len(self._queue)

    def put(self, event: Event, now: float) -> int:
        """Queue ``event``; returns how many waiting events it flushed."""
        n = 0
        if event.priority and self._queue:
            keep = deque(e for e in self._queue if self.flush == "flushable" and not e.flushable)
            gone = [e for e in self._queue if not any(e is k for k in keep)]
            self.dropped += [(now, e) for e in gone]
            n = len(gone)
            self._queue = keep
        self._queue.append(event)
        return n

    def take(self) -> Event | None:
        return self._queue.popleft() if self._queue else None

    def clear(self) -> None:
        self._queue.clear()


Answer = Callable[[Event, float], Sequence[Event]]


class Runner:
    """One side's loop over its :class:`Inbox` and its outbox (see the module doc).

    ``answer(event, now)`` asks the side for its answers (the caller checks them);
    ``limit`` bounds the outbox (extras are dropped and counted in :attr:`overflow`).
    """

    def __init__(
        self,
        answer: Answer,
        spacing: float = SPACING,
        *,
        limit: int = 50,
        flush: InboxFlush = "flushable",
    ) -> None:
        self.answer = answer
        self.spacing = spacing
        self.limit = limit
        self.inbox = Inbox(flush)
        self._out: deque[Event] = deque()
        self._current: tuple[Event, float] | None = None
        self._free_at = float("-inf")
        self.flushed = 0  # outbox events dropped by a priority answer
        self.overflow = 0  # answers dropped because the outbox was full

    def __len__(self) -> int:
        return len(self._out) + (self._current is not None)

    def receive(self, event: Event, now: float) -> int:
        """``event`` arrives at ``now``; returns how many waiting inbox events it flushed.
        It is answered when the side is next free (:meth:`pop_due`)."""
        return self.inbox.put(event, now)

    def next_due(self) -> float | None:
        """The next moment this side does something (None when it has nothing to do)."""
        if self._current is not None:
            return self._current[1]
        if len(self.inbox) or self._out:
            return self._free_at
        return None

    def pop_due(self, now: float) -> Event | None:
        """Run the loop up to ``now``; the event to dispatch at ``now``, if one is due."""
        if self._current is None and now >= self._free_at:
            self._work(now)
        if self._current is None or self._current[1] > now:
            return None
        event, due = self._current
        self._current = None
        self._free_at = due + self.spacing
        return event

    def clear(self) -> None:
        self.inbox.clear()
        self._out.clear()
        self._current = None

    def _work(self, now: float) -> None:
        while self._current is None:
            event = self.inbox.take()
            if event is not None:
                self._push(self.answer(event, now))
            if self._out:
                nxt = self._out.popleft()
                self._current = (nxt, now + nxt.delay)
            elif not len(self.inbox):
                return

    def _push(self, events: Sequence[Event]) -> None:
        if any(e.priority for e in events):
            keep = deque(e for e in self._out if not e.flushable)
            self.flushed += len(self._out) - len(keep)
            self._out = keep
        for e in events:
            if len(self._out) >= self.limit:
                self.overflow += 1
            else:
                self._out.append(e)
