"""The one-shot ultimatum game: one offer, every other party accepts or rejects it once.

The first party (``first``) proposes; then each other party, in turn order, answers
once. If every one of them accepts, the offer is the agreement; the first rejection
ends the session without agreement (reason ``rejected``, ``ended_by`` the rejecter);
so does the deadline, should a wall-clock one pass first.
A party that answers END, or a proposer that proposes None, walks away. It asks
nothing of a negotiator beyond ``propose`` and ``respond``, so every AOP agent plays it;
time is normalised by the deadline as in AOP (so discounting applies the same way).

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

from accord.core.errors import ConfigError
from accord.core.negotiator import Negotiator, Response
from accord.core.outcomes import Outcome, OutcomeSpace
from accord.core.protocols.base import Phase, ProtocolInfo, TurnStyle
from accord.core.protocols.machine import FAILED, BaseSession
from accord.core.protocols.result import Action, EndReason, FailureKind, SessionResult
from accord.core.time import Deadline
from accord.core.utilities import UtilityFunction

ULTIMATUM = ProtocolInfo(
    "ultimatum-v1",
    "one-shot ultimatum",
    TurnStyle.SEQUENTIAL,
    frozenset({Action.OFFER, Action.ACCEPT, Action.REJECT, Action.END}),
    description="one offer; every other party accepts or rejects it once",
)


class Ultimatum(BaseSession):
    """One offer by party ``first``, one answer by each other party (see the module)."""

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
        super().__init__(space, negotiators, utilities, deadline, seed, time_limit, memories)
        if not 0 <= first < self._n:
            raise ConfigError(f"first must be a party index in 0..{self._n - 1}, got {first}")
        self.first = first
        self.offer: Outcome | None = None

    def step(self) -> SessionResult | None:
        """The proposal (first step), then one answer per step."""
        if self._result is not None:
            return self._result
        if self.phase is Phase.CREATED and self.start():
            return self._result
        n = self._n
        t = self.now()
        if t >= 1.0:
            return self.finish(EndReason.DEADLINE, None, None, 1.0)
        k = (self.first + self._steps) % n
        view = self.views[k]
        view.update(t, self._steps, 0, self.offer, -1 if self.offer is None else self.first)
        if self.offer is None:
            offer = self.call(k, t, self.negotiators[k].propose, view)
            if offer is FAILED:
                return self._result
            if offer is None:
                self.record(k, Action.END, None, t)
                return self.finish(EndReason.WALKAWAY, k, None, t)
            checked = self.check_offer(k, offer, t)
            if checked is None:
                return self._result
            self.offer = checked
            self.record(k, Action.OFFER, self.offer, t)
            return None
        answer = self.call(k, t, self.negotiators[k].respond, view, self.offer)
        if answer is FAILED:
            return self._result
        if answer is Response.ACCEPT:
            self.record(k, Action.ACCEPT, self.offer, t)
            if self._steps == n:
                return self.finish(EndReason.AGREEMENT, None, self.offer, t)
            return None
        if answer is Response.REJECT:
            self.record(k, Action.REJECT, self.offer, t)
            return self.finish(EndReason.REJECTED, k, None, t)
        if answer is Response.END:
            self.record(k, Action.END, None, t)
            return self.finish(EndReason.WALKAWAY, k, None, t)
        message = f"respond() must return a Response (ACCEPT, REJECT or END); got {answer!r}"
        self.fail(k, FailureKind.INVALID, message, t)
        return self._result
