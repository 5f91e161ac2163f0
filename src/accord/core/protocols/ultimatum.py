"""The one-shot ultimatum game: one offer, every other party accepts or rejects it once.

The first party (``first``) proposes; then each other party, in turn order, answers
once. If every one of them accepts, the offer is the agreement; the first rejection
ends the session without agreement (reason ``rejected``, ``ended_by`` the rejecter);
so does the deadline, should a wall-clock one pass first.
A party that answers END, or a proposer that proposes None, walks away. It asks
nothing of a negotiator beyond ``propose`` and ``respond``, so every AOP agent plays it;
time is normalised by the deadline as in AOP (so discounting applies the same way), and
every action is timed at the start of its step.

The rules are :class:`UltimatumRules`; :class:`Ultimatum` is the agent driver running
them with negotiators.

    >>> from accord.core.outcomes import CategoricalIssue, OutcomeSpace
    >>> from accord.core.utilities import LinearAdditiveUtility
    >>> space = OutcomeSpace([CategoricalIssue("split", ["90/10", "50/50"])])
    >>> me = LinearAdditiveUtility(space, [1.0], [{"90/10": 0.9, "50/50": 0.5}])
    >>> you = LinearAdditiveUtility(space, [1.0], [{"90/10": 0.1, "50/50": 0.5}],
    ...                             reservation=0.3)
    >>> class Greedy(Negotiator):
    ...     def propose(self, view): return view.best_outcome
    >>> class Fair(Negotiator):
    ...     def respond(self, view, offer):
    ...         ok = view.utility(offer) >= view.reservation
    ...         return Response.ACCEPT if ok else Response.REJECT
    >>> r = Ultimatum(space, [Greedy(), Fair()], [me, you], Deadline(rounds=10)).run()
    >>> r.reason.value, [e.action.value for e in r.trace], r.utilities
    ('rejected', ['offer', 'reject'], (0.0, 0.3))
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from accord.core.negotiator import Negotiator, Response
from accord.core.outcomes import Outcome, OutcomeSpace
from accord.core.protocols.base import ProtocolInfo, TurnStyle
from accord.core.protocols.offers import (
    OfferAction,
    OfferRules,
    OfferSession,
    OfferState,
    TraceEvents,
    nothing,
    proposal_specs,
    response_specs,
)
from accord.core.protocols.result import Action, EndReason
from accord.core.protocols.rules import IllegalAction, Legal
from accord.core.time import Deadline
from accord.core.utilities import UtilityFunction

__all__ = ["ULTIMATUM", "Ultimatum", "UltimatumRules"]

ULTIMATUM = ProtocolInfo(
    "ultimatum-v1",
    "one-shot ultimatum",
    TurnStyle.SEQUENTIAL,
    frozenset({Action.OFFER, Action.ACCEPT, Action.REJECT, Action.END}),
    description="one offer; every other party accepts or rejects it once",
)


class UltimatumRules(OfferRules):
    """The rules of the one-shot ultimatum game (see the module)."""

    info = ULTIMATUM
    counter_offers = False
    counts_rounds = False
    panels = ("standing", "offers", "events")  # one offer, one answer each: no rounds

    def legal(self, state: OfferState, party: int) -> Legal:
        """Offer or end for the proposer; accept, reject or end for the others."""
        if party not in self.to_act(state):
            return nothing(party)
        if state.standing is None:
            return Legal(party, proposal_specs(state))
        return Legal(party, response_specs(state, reject=True))

    def apply(
        self, state: OfferState, party: int, action: OfferAction, now: float
    ) -> tuple[OfferState, TraceEvents]:
        """Play ``action`` of ``party``; :class:`IllegalAction` if it may not."""
        if state.over or party != state.turn:
            self._check_turn(state, party, action)
        lo, t, trace = state.steps, state.t, state.trace
        standing = state.standing
        if standing is None:
            if type(action) is tuple:
                if not state.setup.space.is_valid(action):
                    raise self._invalid_offer(state, party, action)
                state.standing = action
                state.proposer = party
                state.offers._append(party, action)
                trace.add(lo, party, Action.OFFER, action, t)
                return self._next(state, party, lo)
            if action is not Response.END:
                raise IllegalAction(party, action, "the proposer offers an outcome or ends")
        elif action is Response.ACCEPT:
            trace.add(lo, party, Action.ACCEPT, standing, t)
            if lo + 1 == state.n:
                state.steps = lo + 1
                self.end(state, EndReason.AGREEMENT, None, standing, t, now)
                return state.emit(lo, True)
            return self._next(state, party, lo)
        elif action is Response.REJECT:
            trace.add(lo, party, Action.REJECT, standing, t)
            state.steps = lo + 1
            self.end(state, EndReason.REJECTED, party, None, t, now)
            return state.emit(lo, True)
        elif action is not Response.END:
            raise IllegalAction(party, action, "a responder accepts, rejects or ends")
        trace.add(lo, party, Action.END, None, t)
        state.steps = lo + 1
        self.end(state, EndReason.WALKAWAY, party, None, t, now)
        return state.emit(lo, True)

    def _next(self, state: OfferState, party: int, lo: int) -> tuple[OfferState, TraceEvents]:
        state.steps = lo + 1
        state.turn = (party + 1) % state.n
        return state.emit(lo, False)


_RULES = UltimatumRules()


class Ultimatum(OfferSession):
    """One offer by party ``first``, one answer by each other party (see the module):
    the agent driver running :class:`UltimatumRules`."""

    info = ULTIMATUM

    def __init__(
        self,
        space: OutcomeSpace,
        negotiators: Sequence[Negotiator],
        utilities: Sequence[UtilityFunction],
        deadline: Deadline,
        seed: int | None = 0,
        time_limit: float | None = None,
        first: int = 0,
        memories: Sequence[Any] | None = None,
    ) -> None:
        super().__init__(
            _RULES, space, negotiators, utilities, deadline, seed, time_limit, first, memories
        )
        self.first = first

    @property
    def offer(self) -> Outcome | None:
        """The offer, once made."""
        return self.state.standing  # type: ignore[no-any-return]
