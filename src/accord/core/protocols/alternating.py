"""Alternating offers: bilateral AOP and multilateral SAOP as one small state machine.

Parties act in turn order. The first acting party proposes. Every later party either
accepts the standing offer, rejects it and makes a counter-offer (which replaces it), or
ends the negotiation. The offer is agreed when every other party has accepted it in a
row. The session also ends when a party walks away, at the deadline (everyone gets its
reservation value) or when a negotiator fails (an exception, an invalid action or a
response slower than ``time_limit``): the failure is recorded against it and ``run()``
returns normally.

With ``simultaneous_start=True`` (the SCML variant) every party proposes in the first
round and one of those proposals, drawn at random, becomes the standing offer.

    >>> from accord.core.outcomes import CategoricalIssue, OutcomeSpace
    >>> from accord.core.utilities import LinearAdditiveUtility
    >>> from accord.core.negotiator import Negotiator, Response
    >>> space = OutcomeSpace([CategoricalIssue("x", ["a", "b"])])
    >>> class Yes(Negotiator):
    ...     def propose(self, view): return ("a",)
    ...     def respond(self, view, offer): return Response.ACCEPT
    >>> u = LinearAdditiveUtility(space, [1.0], [{"a": 1.0, "b": 0.0}])
    >>> result = Session(space, [Yes(), Yes()], [u, u], Deadline(rounds=5)).run()
    >>> result.agreement, result.reason.value, result.steps
    (('a',), 'agreement', 2)
"""

from __future__ import annotations

import secrets
import time as _time
import traceback as _tb
from collections.abc import Sequence
from enum import Enum
from typing import Any

import numpy as np

from accord.core.errors import ConfigError, NegotiatorTimeout
from accord.core.negotiator import Negotiator, NegotiatorView, OfferLog, Response
from accord.core.outcomes import Outcome, OutcomeSpace
from accord.core.protocols.result import (
    Action,
    EndReason,
    Failure,
    FailureKind,
    SessionResult,
    TraceEntry,
)
from accord.core.time import Deadline
from accord.core.utilities import UtilityFunction

_DRAW_STREAM = 2**32  # the session's own random stream, apart from the parties' (seed, k)
_ACCEPT = Response.ACCEPT
_REJECT = Response.REJECT
_END = Response.END
_OFFER = Action.OFFER
_ACC = Action.ACCEPT
_ENDA = Action.END


class Phase(Enum):
    """Where the session is."""

    CREATED = "created"
    RUNNING = "running"
    ENDED = "ended"


class Session:
    """One alternating-offers negotiation among two or more parties.

    Args:
        space: the outcome space.
        negotiators: the parties, in turn order.
        utilities: one utility per party (same order); each sees only its own.
        deadline: rounds and/or seconds.
        seed: seeds the per-negotiator generators (``(seed, index)``) and the
            simultaneous-start draw; None draws a fresh seed.
        time_limit: seconds a single ``propose``/``respond`` call may take (None: no limit).
        simultaneous_start: every party proposes in round one; one proposal is drawn.
        first: index of the party that acts first (ignored with ``simultaneous_start``).
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
        simultaneous_start: bool = False,
        first: int = 0,
        memories: Sequence[Any] | None = None,
    ) -> None:
        n = len(negotiators)
        if n < 2:
            raise ConfigError(f"a negotiation needs at least 2 negotiators, got {n}")
        if len(utilities) != n:
            raise ConfigError(f"expected {n} utilities (one per negotiator), got {len(utilities)}")
        if not 0 <= first < n:
            raise ConfigError(f"first must be a party index in 0..{n - 1}, got {first}")
        for k, u in enumerate(utilities):
            if u.space != space:
                raise ConfigError(f"utility {k} is defined on {u.space!r}, not on {space!r}")
        self.space = space
        self.negotiators = tuple(negotiators)
        self.utilities = tuple(utilities)
        self.deadline = deadline
        self.time_limit = time_limit
        self.simultaneous_start = simultaneous_start
        self.names = _unique_names([neg.name for neg in negotiators])
        self.seed = int(seed) if seed is not None else secrets.randbits(63)
        self._offers: list[tuple[int, Outcome]] = []
        log = OfferLog(self._offers)
        mem = list(memories) if memories is not None else [None] * n
        self.views = tuple(
            NegotiatorView(u, k, self.names, log, (self.seed, k), m)
            for k, (u, m) in enumerate(zip(utilities, mem, strict=True))
        )
        self.phase = Phase.CREATED
        self._n = n
        self._turn = first
        self._steps = 0
        self._standing: Outcome | None = None
        self._proposer = -1
        self._accepts = 0
        self._trace: list[tuple[int, int, Action, Outcome | None, float]] = []
        self._started_at = 0.0
        self._total_steps = deadline.rounds * n if deadline.rounds is not None else None
        self._result: SessionResult | None = None

    # -- public state --------------------------------------------------------------------
    @property
    def result(self) -> SessionResult | None:
        """The result once the session has ended."""
        return self._result

    @property
    def standing_offer(self) -> Outcome | None:
        """The offer on the table."""
        return self._standing

    @property
    def steps(self) -> int:
        """Actions taken so far."""
        return self._steps

    def run(self) -> SessionResult:
        """Step until the session ends and return its result."""
        step = self.step
        while self._result is None:
            step()
        return self._result

    def step(self) -> SessionResult | None:
        """Let the next party act; returns the result if this step ended the session."""
        if self._result is not None:
            return self._result
        if self.phase is Phase.CREATED and self._start():
            return self._result
        t = self._now()
        if t >= 1.0:
            return self._finish(EndReason.DEADLINE, None, None, 1.0)
        if self._standing is None:
            if self.simultaneous_start and self._steps == 0:
                return self._simultaneous_round(t)
            return self._propose(self._turn, t)
        return self._respond(self._turn, t)

    # -- internals -----------------------------------------------------------------------
    def _start(self) -> bool:
        self.phase = Phase.RUNNING
        self._started_at = _time.perf_counter()
        for k, neg in enumerate(self.negotiators):
            # Start-up (precomputation) is not a response: the time limit does not apply.
            if self._call(k, 0.0, neg.on_start, self.views[k], timed=False) is _FAILED:
                return True
        return False

    def _now(self) -> float:
        total = self._total_steps
        t = self._steps / total if total is not None else 0.0
        if self.deadline.seconds is not None:
            elapsed = _time.perf_counter() - self._started_at
            t = max(t, elapsed / self.deadline.seconds)
        return t

    def _prepare(self, k: int, t: float) -> NegotiatorView:
        view = self.views[k]
        view._t = t
        view._step = self._steps
        view._round = self._steps // self._n
        view._standing = self._standing
        view._proposer = self._proposer
        return view

    def _call(self, k: int, t: float, fn: Any, *args: Any, timed: bool = True) -> Any:
        """Call a negotiator method, turning exceptions and slowness into a failure.

        Anything the negotiator raises, ``SystemExit`` included, is its failure (only
        ``KeyboardInterrupt`` passes: the user stops the run); :class:`NegotiatorTimeout`
        (raised by a caller that pre-empts slow calls) is recorded as a timeout."""
        start = _time.perf_counter()
        try:
            out = fn(*args)
        except KeyboardInterrupt:
            raise
        except BaseException as exc:  # noqa: BLE001 - any negotiator error ends the session
            kind = (
                FailureKind.TIMEOUT if isinstance(exc, NegotiatorTimeout) else FailureKind.EXCEPTION
            )
            self._fail(k, kind, f"{type(exc).__name__}: {exc}", t, _traceback(exc))
            return _FAILED
        limit = self.time_limit
        if limit is not None and timed:
            took = _time.perf_counter() - start
            if took > limit:
                msg = f"{fn.__name__} took {took:.3f} s; the limit is {limit:.3f} s"
                self._fail(k, FailureKind.TIMEOUT, msg, t)
                return _FAILED
        return out

    def _check_offer(self, k: int, offer: Any, t: float) -> Any:
        """The offer as an outcome tuple (from a tuple, list, dict or 1-D array), or
        ``_FAILED`` after recording an invalid offer against party ``k``."""
        if type(offer) is tuple and self.space.is_valid(offer):
            return offer
        try:
            return self.space.validate(offer)
        except Exception as exc:  # noqa: BLE001 - InvalidOutcome, or garbage that breaks checks
            self._fail(k, FailureKind.INVALID, f"invalid offer: {exc}", t, _traceback(exc))
            return _FAILED

    def _propose(self, k: int, t: float) -> SessionResult | None:
        view = self._prepare(k, t)
        offer = self._call(k, t, self.negotiators[k].propose, view)
        if offer is _FAILED:
            return self._result
        if offer is None:
            self._trace.append((self._steps, k, _ENDA, None, t))
            self._steps += 1
            return self._finish(EndReason.WALKAWAY, k, None, t)
        offer = self._check_offer(k, offer, t)
        if offer is _FAILED:
            return self._result
        self._place(k, offer, t)
        self._steps += 1
        self._turn = (k + 1) % self._n
        return None

    def _place(self, k: int, offer: Outcome, t: float) -> None:
        self._standing = offer
        self._proposer = k
        self._accepts = 0
        self._offers.append((k, offer))
        self._trace.append((self._steps, k, _OFFER, offer, t))

    def _respond(self, k: int, t: float) -> SessionResult | None:
        view = self._prepare(k, t)
        answer = self._call(k, t, self.negotiators[k].respond, view, self._standing)
        if answer is _FAILED:
            return self._result
        if answer is _ACCEPT:
            self._trace.append((self._steps, k, _ACC, self._standing, t))
            self._steps += 1
            self._accepts += 1
            if self._accepts >= self._n - 1:
                return self._finish(EndReason.AGREEMENT, None, self._standing, t)
            self._turn = (k + 1) % self._n
            return None
        if answer is _REJECT:
            return self._propose(k, t)
        if answer is _END:
            self._trace.append((self._steps, k, _ENDA, None, t))
            self._steps += 1
            return self._finish(EndReason.WALKAWAY, k, None, t)
        self._fail(
            k,
            FailureKind.INVALID,
            f"respond() must return a Response (ACCEPT, REJECT or END); got {answer!r}",
            t,
        )
        return self._result

    def _simultaneous_round(self, t: float) -> SessionResult | None:
        proposals: list[Outcome] = []
        for k in range(self._n):
            view = self._prepare(k, t)
            offer = self._call(k, t, self.negotiators[k].propose, view)
            if offer is _FAILED:
                return self._result
            if offer is None:
                self._trace.append((self._steps + k, k, _ENDA, None, t))
                self._steps += k + 1
                return self._finish(EndReason.WALKAWAY, k, None, t)
            offer = self._check_offer(k, offer, t)
            if offer is _FAILED:
                return self._result
            proposals.append(offer)
        chosen = int(np.random.default_rng((self.seed, _DRAW_STREAM)).integers(self._n))
        for k, offer in enumerate(proposals):
            if k != chosen:
                self._offers.append((k, offer))
                self._trace.append((self._steps + k, k, _OFFER, offer, t))
        self._place(chosen, proposals[chosen], t)
        self._trace[-1] = (self._steps + chosen, chosen, _OFFER, proposals[chosen], t)
        self._trace.sort(key=lambda e: e[0])
        self._steps += self._n
        self._turn = (chosen + 1) % self._n
        return None

    def _fail(self, k: int, kind: FailureKind, message: str, t: float, trace: str = "") -> None:
        failure = Failure(k, self.names[k], kind, message, trace)
        self._finish(EndReason.FAILURE, k, None, t, failure)

    def _finish(
        self,
        reason: EndReason,
        ended_by: int | None,
        agreement: Outcome | None,
        t: float,
        failure: Failure | None = None,
    ) -> SessionResult:
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
            trace=[TraceEntry(*e) for e in self._trace],
        )
        for k, neg in enumerate(self.negotiators):
            try:
                neg.on_end(self.views[k], self._result)
            except KeyboardInterrupt:
                raise
            except BaseException:  # noqa: BLE001, S112 - a failing end hook changes nothing
                continue
        return self._result


def _traceback(exc: BaseException, limit: int = 20_000) -> str:
    """The formatted traceback of ``exc`` (its last ``limit`` characters)."""
    text = "".join(_tb.format_exception(exc))
    return text[-limit:]


class _Failed:
    """Marker returned by ``Session._call`` when the negotiator failed."""


_FAILED = _Failed()


def _unique_names(names: list[str]) -> tuple[str, ...]:
    """Make names unique by suffixing repeats: ``['A', 'A'] -> ('A', 'A@1')``."""
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
