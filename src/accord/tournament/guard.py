"""Containing an in-process agent: every call is watched, and pre-empted at its limit.

:class:`Guarded` stands in for an agent that runs in the session's own process (the
default mode). Around each call it

* arms a ``SIGALRM`` interval timer (in the main thread of the process; worker
  processes run sessions there): when the call's limit passes, the agent's code is
  interrupted by an exception it cannot catch with ``except Exception``, and the
  session records a ``timeout`` against that agent;
* writes the acting party, the call and its hard deadline (the limit plus
  :data:`HARD_GRACE`) into the worker's :class:`~accord.tournament.workers.Beacon`, so
  that the supervising process can kill a worker whose agent ignores the pre-emption
  (stuck in C code, or catching ``BaseException``), or name the agent that killed its
  worker (``os._exit``, a crash, memory).

    >>> from accord.agents.timebased import Boulware
    >>> g = Guarded(Boulware(name="B"), party=0, limit=2.0)
    >>> g.name, g.limit
    ('B', 2.0)
"""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Callable
from typing import Any

from accord.core.errors import NegotiatorTimeout
from accord.core.negotiator import Negotiator, NegotiatorView, Response
from accord.core.outcomes import Outcome
from accord.core.protocols.result import SessionResult
from accord.tournament.workers import current_beacon

HARD_GRACE = 2.0  # seconds past a call's limit before its worker process is killed
_REFIRE = 0.1  # seconds between repeated alarms if the agent swallows the first


class _Preempted(BaseException):
    """Raised inside an agent's call when its time is up (not an ``Exception``)."""


_ARMED = [False]  # is a guarded call running (in this process's main thread)?
_PREVIOUS: list[Any] = []  # the SIGALRM handler there was before ours (installed once)


def _alarm(signum: int, frame: Any) -> None:
    if _ARMED[0]:
        raise _Preempted("the call was pre-empted at its time limit")
    previous = _PREVIOUS[0] if _PREVIOUS else None
    if callable(previous):
        previous(signum, frame)


def _install() -> None:
    """Install the SIGALRM handler unless it is already ours.

    Checked before every guarded call: other code (pytest-timeout, a library) may have
    put its own handler back since, and an alarm with the default action kills the process.
    """
    current = signal.getsignal(signal.SIGALRM)
    if current is not _alarm:
        _PREVIOUS[:] = [current]
        signal.signal(signal.SIGALRM, _alarm)


def _disarm() -> None:
    _ARMED[0] = False
    signal.setitimer(signal.ITIMER_REAL, 0)


class Guarded(Negotiator):
    """Runs ``inner``'s calls under a time limit (``limit`` s per propose/respond;
    ``setup_limit`` s for ``on_start``/``on_end``, default the same)."""

    def __init__(
        self, inner: Negotiator, party: int, limit: float, setup_limit: float | None = None
    ) -> None:
        super().__init__(inner.name)
        self.inner = inner
        self.party = party
        self.limit = limit
        self.setup_limit = setup_limit if setup_limit is not None else limit
        self._alarm = threading.current_thread() is threading.main_thread()
        if self._alarm:
            _install()

    def on_start(self, view: NegotiatorView) -> None:
        self._run(0, self.setup_limit, self.inner.on_start, view)

    def propose(self, view: NegotiatorView) -> Outcome | None:
        out: Outcome | None = self._run(1, self.limit, self.inner.propose, view)
        return out

    def respond(self, view: NegotiatorView, offer: Outcome) -> Response:
        out: Response = self._run(2, self.limit, self.inner.respond, view, offer)
        return out

    def on_end(self, view: NegotiatorView, result: SessionResult) -> None:
        self._run(3, self.setup_limit, self.inner.on_end, view, result)

    def _run(self, op: int, limit: float, fn: Callable[..., Any], *args: Any) -> Any:
        beacon = current_beacon()
        alarm = self._alarm
        if beacon is not None:
            beacon.enter(self.party, op, time.monotonic() + limit + HARD_GRACE)
        if alarm:
            _install()
            _ARMED[0] = True
            signal.setitimer(signal.ITIMER_REAL, limit, _REFIRE)
        try:
            try:
                return fn(*args)
            finally:
                if alarm:
                    _disarm()
                if beacon is not None:
                    beacon.leave()
        except _Preempted as exc:  # the traceback shows where the agent was
            if alarm:  # an alarm that fired while disarming: make sure it is off
                _disarm()
            raise NegotiatorTimeout(
                f"{fn.__name__}() did not return within {limit:g} s; it was pre-empted"
            ) from exc
