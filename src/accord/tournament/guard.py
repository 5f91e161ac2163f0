"""Containing an in-process agent: every call is watched, and pre-empted at its limit.

:class:`Guarded` stands in for an agent that runs in the session's own process (the
default mode). Around each call it

* makes sure a ``SIGALRM`` timer will fire by the call's deadline (in the main thread
  of the process; worker processes run sessions there): when the call's limit passes,
  the agent's code is interrupted by an exception it cannot catch with ``except
  Exception``, and the session records a ``timeout`` against that agent. The timer is
  armed lazily (a system call about once per limit period, not two per call), so the
  guard costs a call little more than a clock read;
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

import _signal
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


# The timer is armed lazily: a call only writes its deadline into ``_CALL``; the one
# ``ITIMER_REAL`` timer of the process is set only when none is pending early enough
# (``_TIMER``: when it fires, 0 when off). An alarm that comes before the running call's
# deadline re-arms for the rest of it; one with no call running just lapses. So a call
# costs a clock read and two stores, not two ``setitimer`` system calls, and a call past
# its limit is still pre-empted at it. ``on_end`` (and any pre-emption) stops the timer.
# Other code may cancel the timer behind our back (pytest-timeout does at every test's
# end): ``_TIMER`` then names an instant with no timer set. A guard re-reads the real
# timer when it is built (once per session), and a call re-arms whenever ``_TIMER`` is
# in the past, so a stale entry never leaves a call without its alarm.
_CALL = [0.0]  # monotonic deadline of the guarded call running in the main thread (0: none)
_TIMER = [0.0]  # monotonic instant our timer fires (0: not armed)
_PREVIOUS: list[Any] = []  # the SIGALRM handler there was before ours
_monotonic = time.monotonic
_getsignal = _signal.getsignal
_SIGALRM = int(signal.SIGALRM)
_NO_END = Negotiator.on_end  # the base class's hook: does nothing


def _alarm(signum: int, frame: Any) -> None:
    deadline = _CALL[0]
    if deadline == 0.0:  # no guarded call: our timer lapses (or the alarm is not ours)
        if _TIMER[0] != 0.0:
            _TIMER[0] = 0.0
            return
        previous = _PREVIOUS[0] if _PREVIOUS else None
        if callable(previous):
            previous(signum, frame)
        return
    now = _monotonic()
    if now < deadline:  # armed for an earlier call: wait for the rest of this one's time
        _TIMER[0] = deadline
        signal.setitimer(signal.ITIMER_REAL, deadline - now)
        return
    _TIMER[0] = now + _REFIRE  # again, if the agent swallows this one
    signal.setitimer(signal.ITIMER_REAL, _REFIRE)
    raise _Preempted("the call was pre-empted at its time limit")


def _install() -> None:
    """Install the SIGALRM handler unless it is already ours.

    Checked whenever the timer is armed: other code (pytest-timeout, a library) may have
    put its own handler back since, and an alarm with the default action kills the process.
    """
    current = _getsignal(_SIGALRM)  # the raw handler: no enum conversion (a hot path)
    if current is not _alarm:
        _PREVIOUS[:] = [current]
        signal.signal(signal.SIGALRM, _alarm)


def _arm(deadline: float, now: float) -> None:
    _install()
    _TIMER[0] = deadline
    signal.setitimer(signal.ITIMER_REAL, max(deadline - now, 1e-6))


def _resync() -> None:
    """Forget our timer if none is set any more (someone cancelled it), and make sure
    the handler is ours: called when a guard is built, not per call."""
    _install()
    if _TIMER[0] != 0.0 and signal.getitimer(signal.ITIMER_REAL)[0] == 0.0:
        _TIMER[0] = 0.0


def _disarm() -> None:
    """Stop our timer (between sessions no alarm of ours may remain pending)."""
    _CALL[0] = 0.0
    if _TIMER[0] != 0.0:
        _TIMER[0] = 0.0
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
        beacon = current_beacon()  # set when a worker process starts
        self._cells: memoryview[float] | None = None if beacon is None else beacon.cells
        if self._alarm:
            _resync()

    def on_start(self, view: NegotiatorView) -> None:
        self._run(0, self.setup_limit, self.inner.on_start, view)

    # propose and respond are _run written out (the hot path: no argument tuples, one
    # frame less a call); on_start and on_end go through _run.
    def propose(self, view: NegotiatorView) -> Outcome | None:
        now = _monotonic()
        deadline = now + self.limit
        cells = self._cells
        if cells is not None:
            cells[0] = self.party
            cells[1] = 1
            cells[2] = deadline + HARD_GRACE
        alarm = self._alarm
        if alarm:
            at = _TIMER[0]
            if not now < at <= deadline:
                _arm(deadline, now)
            _CALL[0] = deadline
        try:
            return self.inner.propose(view)
        except _Preempted as exc:
            raise self._preempted(exc, "propose", self.limit) from exc
        except KeyboardInterrupt:
            if alarm:
                _disarm()
            raise
        finally:
            _CALL[0] = 0.0
            if cells is not None:
                cells[2] = 0.0

    def respond(self, view: NegotiatorView, offer: Outcome) -> Response:
        now = _monotonic()
        deadline = now + self.limit
        cells = self._cells
        if cells is not None:
            cells[0] = self.party
            cells[1] = 2
            cells[2] = deadline + HARD_GRACE
        alarm = self._alarm
        if alarm:
            at = _TIMER[0]
            if not now < at <= deadline:
                _arm(deadline, now)
            _CALL[0] = deadline
        try:
            return self.inner.respond(view, offer)
        except _Preempted as exc:
            raise self._preempted(exc, "respond", self.limit) from exc
        except KeyboardInterrupt:
            if alarm:
                _disarm()
            raise
        finally:
            _CALL[0] = 0.0
            if cells is not None:
                cells[2] = 0.0

    def _preempted(self, exc: _Preempted, name: str, limit: float) -> NegotiatorTimeout:
        """The timeout a pre-empted call raises (the repeated alarms stopped)."""
        if self._alarm:
            _disarm()
        return NegotiatorTimeout(f"{name}() did not return within {limit:g} s; it was pre-empted")

    def on_end(self, view: NegotiatorView, result: SessionResult) -> None:
        try:
            end = self.inner.on_end
            if getattr(end, "__func__", None) is not _NO_END:  # else no agent code to guard
                self._run(3, self.setup_limit, end, view, result)
        finally:
            if self._alarm:
                _disarm()  # the session is over: leave no alarm pending

    def _run(self, op: int, limit: float, fn: Callable[..., Any], *args: Any) -> Any:
        now = _monotonic()
        deadline = now + limit
        cells = self._cells  # the worker's beacon: who acts, in what, until when
        if cells is not None:
            cells[0] = self.party
            cells[1] = op
            cells[2] = deadline + HARD_GRACE
        alarm = self._alarm
        if alarm:
            at = _TIMER[0]
            if not now < at <= deadline:  # none pending (or a stale one), or one too late
                _arm(deadline, now)
            _CALL[0] = deadline
        try:
            return fn(*args)
        except _Preempted as exc:  # the traceback shows where the agent was
            raise self._preempted(exc, fn.__name__, limit) from exc
        except KeyboardInterrupt:
            if alarm:
                _disarm()
            raise
        finally:
            _CALL[0] = 0.0
            if cells is not None:
                cells[2] = 0.0
