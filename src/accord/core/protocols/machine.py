"""The pieces every turn-taking protocol reuses.

:class:`BaseSession` checks the parties, names them, builds their read-only views,
calls into negotiator code through one boundary (:meth:`BaseSession.call`: an exception,
an invalid offer or a slow answer becomes a recorded :class:`Failure`, never a crash),
keeps the trace, and builds the :class:`SessionResult`. A protocol subclasses it, sets
``info`` and writes :meth:`step`; :class:`~accord.core.protocols.alternating.Session` and
:class:`~accord.core.protocols.ultimatum.Ultimatum` are the two built-in examples.
"""

from __future__ import annotations

import secrets
import time as _time
import traceback as _tb
from collections.abc import Sequence
from typing import Any

from accord.core.errors import ConfigError, NegotiatorTimeout
from accord.core.interrupts import user_interrupted
from accord.core.negotiator import Negotiator, NegotiatorView, OfferLog
from accord.core.outcomes import Outcome, OutcomeSpace
from accord.core.protocols.base import Mechanism, Phase
from accord.core.protocols.result import (
    INVALID_OFFER,
    Action,
    EndReason,
    Failure,
    FailureKind,
    SessionResult,
)
from accord.core.protocols.tracelog import TraceLog
from accord.core.time import Deadline
from accord.core.utilities import UtilityFunction


class _Failed:
    """Marker returned by :meth:`BaseSession.call` when the negotiator failed."""


FAILED: Any = _Failed()
"""What :meth:`BaseSession.call` returns when the call failed (the session has ended)."""


class BaseSession(Mechanism):
    """Shared state and boundary of a negotiation among two or more parties.

    Args:
        space: the outcome space.
        negotiators: the parties, in turn order.
        utilities: one utility per party (same order); each sees only its own.
        deadline: rounds and/or seconds.
        seed: seeds the per-negotiator generators (``(seed, index)``); None draws one.
        time_limit: seconds a single ``propose``/``respond`` call may take (None: none).
        memories: optional per-party data the tournament lets each negotiator read.
    """

    def __init__(
        self,
        space: OutcomeSpace,
        negotiators: Sequence[Negotiator],
        utilities: Sequence[UtilityFunction],
        deadline: Deadline,
        seed: int | None = 0,
        time_limit: float | None = None,
        memories: Sequence[Any] | None = None,
    ) -> None:
        n = len(negotiators)
        if n < 2:
            raise ConfigError(f"a negotiation needs at least 2 negotiators, got {n}")
        self.info.check_parties(n)
        if len(utilities) != n:
            raise ConfigError(f"expected {n} utilities (one per negotiator), got {len(utilities)}")
        for k, u in enumerate(utilities):
            if u.space != space:
                raise ConfigError(f"utility {k} is defined on {u.space!r}, not on {space!r}")
        self.info.check_negotiators(negotiators)
        self.space = space
        self.negotiators = tuple(negotiators)
        self.utilities = tuple(utilities)
        self.deadline = deadline
        self.time_limit = time_limit
        self.names = unique_names([neg.name for neg in negotiators])
        self.seed = int(seed) if seed is not None else secrets.randbits(63)
        self._offers = OfferLog()
        log = self._offers
        mem = list(memories) if memories is not None else [None] * n
        self.views = tuple(
            NegotiatorView(u, k, self.names, log, (self.seed, k), m, deadline)
            for k, (u, m) in enumerate(zip(utilities, mem, strict=True))
        )
        self.phase = Phase.CREATED
        self._n = n
        self._steps = 0
        self._trace = TraceLog()
        self._started_at = 0.0
        self._result: SessionResult | None = None

    @property
    def result(self) -> SessionResult | None:
        """The result once the session has ended."""
        return self._result

    @property
    def steps(self) -> int:
        """Actions taken so far."""
        return self._steps

    def start(self) -> bool:
        """Enter :attr:`Phase.RUNNING` and call every ``on_start``; True if one failed."""
        self.phase = Phase.RUNNING
        self._started_at = _time.perf_counter()
        for k, neg in enumerate(self.negotiators):
            # Start-up (precomputation) is not a response: the time limit does not apply.
            if self.call(k, 0.0, neg.on_start, self.views[k], timed=False) is FAILED:
                return True
        return False

    def call(self, k: int, t: float, fn: Any, *args: Any, timed: bool = True) -> Any:
        """Call negotiator ``k``'s method; an exception or slowness ends the session.

        Returns what the method returned, or :data:`FAILED` (the result is then set).
        Anything the negotiator raises, ``SystemExit`` included, is its failure, with its
        traceback (only the user's Ctrl-C passes, see :mod:`accord.core.interrupts`);
        :class:`NegotiatorTimeout` (raised by a caller that pre-empts slow calls) is
        recorded as a timeout.
        """
        start = _time.perf_counter()
        try:
            out = fn(*args)
        except KeyboardInterrupt as exc:
            if user_interrupted():  # the user's Ctrl-C stops the run; an agent's does not
                raise
            self.fail(k, FailureKind.EXCEPTION, "KeyboardInterrupt raised by the agent", t,
                      format_traceback(exc))  # fmt: skip
            return FAILED
        except BaseException as exc:  # noqa: BLE001 - any negotiator error ends the session
            timeout = isinstance(exc, NegotiatorTimeout)
            kind = FailureKind.TIMEOUT if timeout else FailureKind.EXCEPTION
            self.fail(k, kind, f"{type(exc).__name__}: {exc}", t, format_traceback(exc))
            return FAILED
        limit = self.time_limit
        if limit is not None and timed:
            took = _time.perf_counter() - start
            if took > limit:
                msg = f"{fn.__name__} took {took:.3f} s; the limit is {limit:.3f} s"
                self.fail(k, FailureKind.TIMEOUT, msg, t)
                return FAILED
        return out

    def check_offer(self, k: int, offer: Any, t: float) -> Outcome | None:
        """``offer`` as an outcome tuple of the space (from any documented form: a tuple,
        a list, a dict ``{issue: value}`` or a 1-D array); None after recording party
        ``k``'s failure if it is not one."""
        if type(offer) is tuple and self.space.is_valid(offer):
            return offer
        try:
            return self.space.validate(offer)
        except Exception as exc:  # noqa: BLE001 - InvalidOutcome, or garbage that breaks checks
            self.fail(k, FailureKind.INVALID, f"{INVALID_OFFER}: {exc}", t, format_traceback(exc))
            return None

    def now(self) -> float:
        """Normalised time: the larger of the rounds and the seconds fractions, at most 1."""
        elapsed = _time.perf_counter() - self._started_at
        return self.deadline.fraction(self._steps, self._n, elapsed)

    def record(self, k: int, action: Action, outcome: Outcome | None, t: float) -> None:
        """Append one action of party ``k`` to the trace and count the step.

        An offer also goes to the offer log every view shows (``view.offers``).
        """
        if action is Action.OFFER and outcome is not None:
            self._offers._append(k, outcome)
        self._trace.add(self._steps, k, action, outcome, t)
        self._steps += 1

    def fail(self, k: int, kind: FailureKind, message: str, t: float, trace: str = "") -> None:
        """End the session with a failure recorded against party ``k`` (``trace``: the
        formatted traceback, if it raised)."""
        failure = Failure(k, self.names[k], kind, message, trace)
        self.finish(EndReason.FAILURE, k, None, t, failure)

    def finish(
        self,
        reason: EndReason,
        ended_by: int | None,
        agreement: Outcome | None,
        t: float,
        failure: Failure | None = None,
    ) -> SessionResult:
        """End the session: build the result and call every ``on_end``."""
        self.phase = Phase.ENDED
        if agreement is not None:
            utilities = tuple(u.at(agreement, t) for u in self.utilities)
        else:
            utilities = tuple(u.reservation_at(t) for u in self.utilities)
        self._result = SessionResult(
            agreement=agreement,
            reason=reason,
            ended_by=ended_by,
            time=t,
            steps=self._steps,
            rounds=-(-self._steps // self._n),
            elapsed=_time.perf_counter() - self._started_at,
            utilities=utilities,
            names=self.names,
            failure=failure,
            trace=self._trace,
        )
        for k, neg in enumerate(self.negotiators):
            try:
                neg.on_end(self.views[k], self._result)
            except KeyboardInterrupt:
                if user_interrupted():
                    raise
                continue
            except BaseException:  # noqa: BLE001, S112 - a failing end hook changes nothing
                continue
        return self._result


def format_traceback(exc: BaseException, limit: int = 20_000) -> str:
    """The formatted traceback of ``exc`` (its last ``limit`` characters)."""
    return "".join(_tb.format_exception(exc))[-limit:]


def unique_names(names: list[str]) -> tuple[str, ...]:
    """Make names unique by suffixing repeats.

    >>> unique_names(["A", "A", "B"])
    ('A', 'A@1', 'B')
    """
    seen: dict[str, int] = {}
    out = []
    for name in names:
        if name in seen:
            seen[name] += 1
            out.append(f"{name}@{seen[name]}")
        else:
            seen[name] = 0
            out.append(name)
    return tuple(out)
