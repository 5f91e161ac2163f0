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

import time as _time
from collections.abc import Sequence
from typing import Any

import numpy as np

from accord.core.errors import ConfigError
from accord.core.negotiator import Negotiator, NegotiatorView, Response
from accord.core.outcomes import Outcome, OutcomeSpace
from accord.core.protocols.base import Phase, ProtocolInfo, TurnStyle
from accord.core.protocols.machine import FAILED, BaseSession
from accord.core.protocols.result import Action, EndReason, FailureKind, SessionResult
from accord.core.time import Deadline
from accord.core.utilities import UtilityFunction

__all__ = ["AOP", "AOP_SIMULTANEOUS", "Phase", "Session"]

_DRAW_STREAM = 2**32  # the session's own random stream, apart from the parties' (seed, k)
_ACCEPT = Response.ACCEPT
_REJECT = Response.REJECT
_END = Response.END
_OFFER = Action.OFFER
_ACC = Action.ACCEPT
_ENDA = Action.END
_FAILED = FAILED

AOP = ProtocolInfo(
    "aop-v1",
    "alternating offers",
    TurnStyle.SEQUENTIAL,
    frozenset({Action.OFFER, Action.ACCEPT, Action.END}),
    description="bilateral AOP and multilateral SAOP: offer, accept or end, in turn",
)
"""Alternating offers (bilateral AOP, multilateral SAOP)."""

AOP_SIMULTANEOUS = ProtocolInfo(
    "aop-simultaneous-v1",
    "alternating offers, simultaneous first round",
    TurnStyle.SIMULTANEOUS_START,
    frozenset({Action.OFFER, Action.ACCEPT, Action.END}),
    description="every party proposes first, one proposal is drawn; then AOP (SCML)",
)
"""The SCML variant: every party proposes in round one, one proposal is drawn."""


class Session(BaseSession):
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

    info = AOP

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
        if simultaneous_start:
            self.info = AOP_SIMULTANEOUS
        super().__init__(space, negotiators, utilities, deadline, seed, time_limit, memories)
        n = self._n
        if not 0 <= first < n:
            raise ConfigError(f"first must be a party index in 0..{n - 1}, got {first}")
        self.simultaneous_start = simultaneous_start
        self._turn = first
        self._standing: Outcome | None = None
        self._proposer = -1
        self._accepts = 0
        self._total_steps = deadline.rounds * n if deadline.rounds is not None else None

    # -- public state --------------------------------------------------------------------
    @property
    def standing_offer(self) -> Outcome | None:
        """The offer on the table."""
        return self._standing

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
        if self.phase is Phase.CREATED and self.start():
            return self._result
        t = self._now()
        if t >= 1.0:
            return self.finish(EndReason.DEADLINE, None, None, 1.0)
        if self._standing is None:
            if self.simultaneous_start and self._steps == 0:
                return self._simultaneous_round(t)
            return self._propose(self._turn, t)
        return self._respond(self._turn, t)

    # -- internals -----------------------------------------------------------------------
    def _now(self) -> float:
        total = self._total_steps
        t = self._steps / total if total is not None else 0.0
        if self.deadline.seconds is not None:
            elapsed = _time.perf_counter() - self._started_at
            t = max(t, elapsed / self.deadline.seconds)
        return t

    def _arrived(self, t: float) -> float:
        """When an action arrived: now, under a deadline in seconds (an action is
        discounted at the time it arrives, and one arriving at or after the deadline does
        not count); otherwise ``t``, the time of the step (rounds are counted, not timed)."""
        return self._now() if self.deadline.seconds is not None else t

    def _prepare(self, k: int, t: float) -> NegotiatorView:
        view = self.views[k]
        view.update(t, self._steps, self._steps // self._n, self._standing, self._proposer)
        return view

    def _propose(self, k: int, t: float) -> SessionResult | None:
        view = self._prepare(k, t)
        offer = self.call(k, t, self.negotiators[k].propose, view)
        if offer is _FAILED:
            return self._result
        t = self._arrived(t)
        if t >= 1.0:  # too late: the action does not count
            return self.finish(EndReason.DEADLINE, None, None, 1.0)
        if offer is None:
            self._trace.add(self._steps, k, _ENDA, None, t)
            self._steps += 1
            return self.finish(EndReason.WALKAWAY, k, None, t)
        offer = self.check_offer(k, offer, t)
        if offer is None:
            return self._result
        self._place(k, offer, t)
        self._steps += 1
        self._turn = (k + 1) % self._n
        return None

    def _place(self, k: int, offer: Outcome, t: float) -> None:
        self._standing = offer
        self._proposer = k
        self._accepts = 0
        self._offers._append(k, offer)
        self._trace.add(self._steps, k, _OFFER, offer, t)

    def _respond(self, k: int, t: float) -> SessionResult | None:
        view = self._prepare(k, t)
        answer = self.call(k, t, self.negotiators[k].respond, view, self._standing)
        if answer is _FAILED:
            return self._result
        t = self._arrived(t)
        if t >= 1.0:  # too late: the answer does not count
            return self.finish(EndReason.DEADLINE, None, None, 1.0)
        if answer is _ACCEPT:
            self._trace.add(self._steps, k, _ACC, self._standing, t)
            self._steps += 1
            self._accepts += 1
            if self._accepts >= self._n - 1:
                return self.finish(EndReason.AGREEMENT, None, self._standing, t)
            self._turn = (k + 1) % self._n
            return None
        if answer is _REJECT:
            return self._propose(k, t)
        if answer is _END:
            self._trace.add(self._steps, k, _ENDA, None, t)
            self._steps += 1
            return self.finish(EndReason.WALKAWAY, k, None, t)
        self.fail(
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
            offer = self.call(k, t, self.negotiators[k].propose, view)
            if offer is _FAILED:
                return self._result
            if offer is None:
                self._trace.add(self._steps + k, k, _ENDA, None, t)
                self._steps += k + 1
                return self.finish(EndReason.WALKAWAY, k, None, t)
            offer = self.check_offer(k, offer, t)
            if offer is None:
                return self._result
            proposals.append(offer)
        chosen = int(np.random.default_rng((self.seed, _DRAW_STREAM)).integers(self._n))
        for k, offer in enumerate(proposals):
            if k != chosen:
                self._offers._append(k, offer)
                self._trace.add(self._steps + k, k, _OFFER, offer, t)
        self._place(chosen, proposals[chosen], t)
        self._trace[-1] = (self._steps + chosen, chosen, _OFFER, proposals[chosen], t)
        self._trace.sort_by_step()
        self._steps += self._n
        self._turn = (chosen + 1) % self._n
        return None
