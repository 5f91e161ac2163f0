"""Alternating offers: bilateral AOP and multilateral SAOP as one set of pure rules.

Parties act in turn order. The first acting party proposes. Every later party either
accepts the standing offer, rejects it and makes a counter-offer (which replaces it), or
ends the negotiation. The offer is agreed when every other party has accepted it in a
row. The session also ends when a party walks away, at the deadline (everyone gets its
reservation value) or when a negotiator fails (an exception, an invalid action or a
response slower than ``time_limit``): the failure is recorded against it and ``run()``
returns normally.

With ``simultaneous_start=True`` (the SCML variant) every party proposes in the first
round and one of those proposals, drawn at random, becomes the standing offer.

The rules are :class:`AOPRules` (a :class:`~accord.core.protocols.rules.Rules`: no clock,
no agent calls); :class:`Session` is the agent driver running them with negotiators.

    >>> from accord.core.outcomes import CategoricalIssue, OutcomeSpace
    >>> from accord.core.utilities import LinearAdditiveUtility
    >>> from accord.core.negotiator import Negotiator, NegotiatorView, Response
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

from collections.abc import Sequence
from typing import Any, cast

import numpy as np

from accord.core.interrupts import user_interrupted
from accord.core.negotiator import Negotiator, NegotiatorView, Response
from accord.core.outcomes import OutcomeSpace
from accord.core.protocols.base import Phase, ProtocolInfo, TurnStyle
from accord.core.protocols.offers import (
    NegotiationSetup,
    NegotiatorSeat,
    OfferAction,
    OfferRules,
    OfferSession,
    OfferState,
    TraceEvents,
    bad_answer,
    nothing,
    proposal_specs,
    response_specs,
)
from accord.core.protocols.result import Action, EndReason, SessionResult
from accord.core.protocols.rules import IllegalAction, Legal
from accord.core.protocols.tracelog import _BATCH as _TRACE_BATCH
from accord.core.time import Deadline
from accord.core.utilities import UtilityFunction

__all__ = ["AOP", "AOP_SIMULTANEOUS", "AOPRules", "Session"]

_DRAW_STREAM = 2**32  # the session's own random stream, apart from the parties' (seed, k)
_ACCEPT = Response.ACCEPT
_REJECT = Response.REJECT
_END = Response.END
_OFFER = Action.OFFER
_ACC = Action.ACCEPT
_ENDA = Action.END

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


class AOPRules(OfferRules):
    """The rules of alternating offers (``simultaneous_start``: the SCML variant).

    The party to act offers an outcome (the first offer, or a counter-offer that
    rejects the standing one), accepts the standing offer, or ends. The offer is agreed
    once every other party has accepted it in a row. An action that arrives at or after
    the deadline does not count: the play ends by the deadline.
    """

    info = AOP

    def __init__(self, simultaneous_start: bool = False) -> None:
        self.simultaneous_start = simultaneous_start
        if simultaneous_start:
            self.info = AOP_SIMULTANEOUS

    def initial(self, setup: NegotiationSetup, seed: int) -> OfferState:
        """A new play; with a simultaneous start every party proposes first."""
        state = OfferState(setup, seed)
        if self.simultaneous_start:
            state.proposals = []
        return state

    def to_act(self, state: OfferState) -> tuple[int, ...]:
        """The party whose turn it is (every party yet to propose in a simultaneous
        first round); () once over."""
        if state.over:
            return ()
        props = state.proposals
        if props is not None:
            return tuple(range(len(props), state.n))
        return state.singles[state.turn]

    def legal(self, state: OfferState, party: int) -> Legal:
        """Offer or end to open; accept, counter-offer or end to answer."""
        if party not in self.to_act(state):
            return nothing(party)
        if state.standing is None or state.proposals is not None:
            return Legal(party, proposal_specs(state))
        return Legal(party, response_specs(state, reject=False))

    def apply(
        self, state: OfferState, party: int, action: OfferAction, now: float
    ) -> tuple[OfferState, TraceEvents]:
        """Play ``action`` of ``party``; :class:`IllegalAction` if it may not."""
        lo = state.steps
        if state.proposals is not None:
            return self._simultaneous(state, party, action, now, lo)
        if state.over or party != state.turn:
            self._check_turn(state, party, action)
        # When it arrived: under a deadline in seconds, now; else the time of the step.
        t = self.time(state, now) if state.seconds is not None else state.t
        if t >= 1.0:  # too late: the action does not count
            self.end(state, EndReason.DEADLINE, None, None, 1.0, now)
            return state.emit(lo, True)
        if type(action) is tuple:
            if not state.setup.space.is_valid(action):
                raise self._invalid_offer(state, party, action)
            state.standing = action
            state.proposer = party
            state.accepts = 0
            state.offers._append(party, action)
            state.trace.add(state.steps, party, _OFFER, action, t)
            state.steps = lo + 1
            state.turn = (party + 1) % state.n
            ev = state.events
            ev.lo = lo
            ev.hi = lo + 1
            ev.ended = False
            return state, ev
        if action is _ACCEPT:
            standing = state.standing
            if standing is None:
                raise IllegalAction(party, action, "there is no offer to accept")
            state.trace.add(state.steps, party, _ACC, standing, t)
            state.steps += 1
            state.accepts += 1
            if state.accepts >= state.n - 1:
                self.end(state, EndReason.AGREEMENT, None, standing, t, now)
                return state.emit(lo, True)
            state.turn = (party + 1) % state.n
            return state.emit(lo, False)
        if action is _END:
            state.trace.add(state.steps, party, _ENDA, None, t)
            state.steps += 1
            self.end(state, EndReason.WALKAWAY, party, None, t, now)
            return state.emit(lo, True)
        raise IllegalAction(party, action, "alternating offers takes an offer, ACCEPT or END")

    def _simultaneous(
        self, state: OfferState, party: int, action: OfferAction, now: float, lo: int
    ) -> tuple[OfferState, TraceEvents]:
        props = state.proposals
        assert props is not None
        self._check_turn(state, party, action)
        if party != len(props):
            raise IllegalAction(party, action, f"party {len(props)} proposes first")
        t = state.t  # the whole first round is timed at its start
        if action is _END:
            state.trace.add(state.steps + party, party, _ENDA, None, t)
            state.steps += party + 1
            state.proposals = None
            self.end(state, EndReason.WALKAWAY, party, None, t, now)
            return state.emit(lo, True)
        if type(action) is not tuple:
            raise IllegalAction(party, action, "the first round takes an offer or END")
        if not state.setup.space.is_valid(action):
            raise self._invalid_offer(state, party, action)
        props.append(action)
        n = state.n
        if len(props) < n:
            return state.emit(lo, False)
        chosen = int(np.random.default_rng((state.seed, _DRAW_STREAM)).integers(n))
        for k, offer in enumerate(props):
            state.trace.add(state.steps + k, k, _OFFER, offer, t)
            if k != chosen:
                state.offers._append(k, offer)
        state.offers._append(chosen, props[chosen])
        state.standing = props[chosen]
        state.proposer = chosen
        state.accepts = 0
        state.steps += n
        state.turn = (chosen + 1) % n
        state.proposals = None
        return state.emit(lo, False)


_RULES = AOPRules()


def _in_process(seats: Sequence[object]) -> bool:
    """Whether every seat is a plain :class:`NegotiatorSeat` (the fused paths' case)."""
    for seat in seats:
        if type(seat) is not NegotiatorSeat:
            return False
    return True


SIMULTANEOUS_RULES = AOPRules(simultaneous_start=True)
"""The rules of ``aop-simultaneous-v1`` (the SCML variant)."""


class Session(OfferSession):
    """One alternating-offers negotiation among two or more negotiators: the agent
    driver running :class:`AOPRules`.

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
        rules = SIMULTANEOUS_RULES if simultaneous_start else _RULES
        super().__init__(
            rules, space, negotiators, utilities, deadline, seed, time_limit, first, memories
        )
        self.simultaneous_start = simultaneous_start
        self._fusable: bool | None = None  # may step() take the fused path (decided once)

    def step(self) -> SessionResult | None:
        """Let the party whose turn it is act once; the result if the session ended.

        Past a simultaneous first round, plain alternating offers under a deadline in
        rounds with in-process seats (SCML's sessions, stepped in lockstep) take
        :meth:`_step_fused`; anything else the generic agent driver's step. Both give
        the same trace and result.
        """
        state: OfferState = self.state
        if self._result is None and self.phase is Phase.RUNNING and state.proposals is None:
            fusable = self._fusable
            if fusable is None:
                fusable = self._fusable = (
                    (self.rules is _RULES or self.rules is SIMULTANEOUS_RULES)
                    and state.seconds is None
                    and state.total is not None
                    and _in_process(self.seats)
                )
            if fusable and not state.over:
                return self._step_fused(state)
        return cast("SessionResult | None", super().step())

    def _step_fused(self, state: OfferState) -> SessionResult | None:
        """One step of :meth:`AgentDriver.step` with :class:`AOPRules` under a deadline in
        rounds, the rules' ``tick``/``to_act``/``apply`` written out for an offer and an
        accept (the seat's ``act`` keeps its per-call time limit); the clock is read only
        when the session ends, where the result records it."""
        rules = cast(AOPRules, self.rules)
        steps = state.steps
        total = state.total
        assert total is not None
        t = steps / total
        state.t = t
        if t >= 1.0:
            rules.end(state, EndReason.DEADLINE, None, None, 1.0, self._clock() - self._t0)
            state.emit(steps, True)
            return self._finish()  # type: ignore[no-any-return]
        self._steps += 1
        k = state.turn
        try:
            action = self.seats[k].act(state, k)
        except IllegalAction as exc:
            return self._refused(state, k, exc)  # type: ignore[no-any-return]
        except BaseException as exc:  # noqa: BLE001 - an agent's failure, recorded
            if isinstance(exc, KeyboardInterrupt) and user_interrupted():
                raise
            return self._crashed(state, k, exc)  # type: ignore[no-any-return]
        if type(action) is tuple:
            if state.setup.space.is_valid(action):
                state.standing = action
                state.proposer = k
                state.accepts = 0
                state.offers._append(k, action)
                state.trace.add(steps, k, _OFFER, action, t)
                state.steps = steps + 1
                state.turn = (k + 1) % state.n
                ev = state.events
                ev.lo = steps
                ev.hi = steps + 1
                ev.ended = False
                return None
            state = self._invalid(state, k, rules._invalid_offer(state, k, action))
        elif action is _ACCEPT and state.standing is not None:
            standing = state.standing
            state.trace.add(steps, k, _ACC, standing, t)
            state.steps = steps + 1
            state.accepts += 1
            if state.accepts >= state.n - 1:
                rules.end(state, EndReason.AGREEMENT, None, standing, t, self._clock() - self._t0)
                state.emit(steps, True)
                self.state = state
                return self._finish()  # type: ignore[no-any-return]
            state.turn = (k + 1) % state.n
            state.emit(steps, False)
            return None
        else:
            try:
                state, _ = rules.apply(state, k, action, self._clock() - self._t0)
            except IllegalAction as exc:
                state = self._invalid(state, k, exc)
        self.state = state
        if state.over:
            return self._finish()  # type: ignore[no-any-return]
        return None

    def run(self) -> SessionResult:
        """Play until the session ends and return its result.

        Plain alternating offers under a deadline in rounds, with in-process negotiators
        (the common case), run in one fused loop (:meth:`_run_fused`); anything else
        steps the generic agent driver. Both give the same trace and result.
        """
        if (
            self._result is None
            and self.rules is _RULES
            and self.state.seconds is None
            and _in_process(self.seats)
        ):
            started_ended = self.phase is Phase.CREATED and self.start()
            if not started_ended and self._result is None:
                return self._run_fused()
        return super().run()  # (at once if the start ended it)

    def _run_fused(self) -> SessionResult:
        """The agent driver's step, the seat's call and the rules' ``apply`` in one loop.

        Exactly what :meth:`step` does with :class:`AOPRules` under a deadline in
        rounds, without the calls between the three (and the clock read only at the
        end, where the result records it): tests/core/test_golden_sessions.py plays every
        golden session both ways. An agent's exception, an answer that is no action and
        an invalid offer go to the driver's own failure handling; an END (and any
        action not inlined here) goes to :meth:`AOPRules.apply` itself.
        """
        state: OfferState = self.state
        rules = _RULES
        n = state.n
        total = state.total
        assert total is not None and state.proposals is None
        seats = cast(tuple[NegotiatorSeat, ...], self.seats)
        negs: list[Negotiator] = []
        views: list[NegotiatorView] = []
        limited = False  # any seat with a per-call time limit (then its act() times it)
        for seat in seats:
            negs.append(seat.negotiator)
            views.append(seat.view)
            if seat._limit is not None:
                limited = True
        is_valid = state.setup.space.is_valid
        trace_add = state.trace.add
        offers = state.offers
        offer_items, offer_chunk = offers._items, offers._chunk  # _append, inlined below
        pending = state.trace._pending  # TraceLog.add, inlined below
        clock = self._clock
        action: Any  # whatever the agent returned, until checked
        while True:
            steps = state.steps
            t = steps / total  # the tick: the time of this step
            state.t = t
            if t >= 1.0:
                rules.end(state, EndReason.DEADLINE, None, None, 1.0, clock() - self._t0)
                state.emit(steps, True)
                return self._finish()  # type: ignore[no-any-return]
            self._steps += 1
            k = state.turn
            standing = state.standing
            try:  # the seat's act(), inlined
                if limited:
                    action = seats[k].act(state, k)
                else:
                    view = views[k]
                    view.update(t, steps, steps // n, standing, state.proposer)
                    if standing is None:
                        action = negs[k].propose(view)
                        if type(action) is not tuple:
                            action = seats[k]._convert(k, action)
                    else:
                        action = negs[k].respond(view, standing)
                        if action is _REJECT:
                            action = negs[k].propose(view)
                            if type(action) is not tuple:
                                action = seats[k]._convert(k, action)
                        elif action is not _ACCEPT and action is not _END:
                            raise bad_answer(k, action)
            except IllegalAction as exc:
                if self._refused(state, k, exc) is not None:
                    return self._result  # type: ignore[no-any-return]
                state = self.state
                continue
            except BaseException as exc:  # noqa: BLE001 - an agent's failure, recorded
                if isinstance(exc, KeyboardInterrupt) and user_interrupted():
                    raise
                if self._crashed(state, k, exc) is not None:
                    return self._result  # type: ignore[no-any-return]
                state = self.state
                continue
            # the rules' apply(), inlined for an offer and an accept
            if type(action) is tuple:
                if is_valid(action):
                    state.standing = action
                    state.proposer = k
                    state.accepts = 0
                    offer_items.append((k, action))
                    if len(offer_items) >= offer_chunk:
                        offers._roll()
                        offer_items = offers._items
                    pending.append((steps, k, _OFFER, action, t))
                    if len(pending) >= _TRACE_BATCH:
                        state.trace._flush()
                    state.steps = steps + 1
                    state.turn = (k + 1) % n
                    continue
                state = self._invalid(state, k, rules._invalid_offer(state, k, action))
            elif action is _ACCEPT and standing is not None:
                trace_add(steps, k, _ACC, standing, t)
                state.steps = steps + 1
                state.accepts += 1
                if state.accepts >= n - 1:
                    rules.end(state, EndReason.AGREEMENT, None, standing, t, clock() - self._t0)
                    state.emit(steps, True)
                    self.state = state
                    return self._finish()  # type: ignore[no-any-return]
                state.turn = (k + 1) % n
                continue
            else:
                try:
                    state, _ = rules.apply(state, k, action, clock() - self._t0)
                except IllegalAction as exc:
                    state = self._invalid(state, k, exc)
                offer_items = offers._items  # (a new list if the rules rolled a chunk)
            self.state = state
            if state.over:
                return self._finish()  # type: ignore[no-any-return]
