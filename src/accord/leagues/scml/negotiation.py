"""Running the day's negotiations on the core's alternating-offers session.

Every negotiation is a session of the core's registered ``aop-simultaneous-v1``
protocol (both parties propose in round one, one proposal is drawn at random). All of a day's
sessions are stepped in lockstep, one action each per pass, so a controller sees its
negotiations progress together. A session gets at most ``negotiation_speed`` rounds a
day and ends at ``neg_n_steps`` rounds; the wall-clock limits of Table 2 are enforced
here (per negotiation) and by the session (per call).

Example:
    >>> from accord.leagues.scml.contracts import Agenda
    >>> space = outcome_space(Agenda(True, "a", "b", 0, (1, 3), (1, 2), (0, 0)))
    >>> space.cardinality
    6
"""

from __future__ import annotations

import time as _time
from collections.abc import Callable
from dataclasses import dataclass, field

from accord.core import (
    CallableUtility,
    Deadline,
    IntegerIssue,
    Negotiator,
    Outcome,
    OutcomeSpace,
    SessionResult,
    UtilityFunction,
)
from accord.core.protocols import AOP_SIMULTANEOUS, Mechanism, make_session
from accord.leagues.scml.agent import utility_of
from accord.leagues.scml.contracts import Agenda
from accord.leagues.scml.params import SimulationParams

__all__ = ["Negotiation", "NegotiationRunner", "outcome_space"]

_SPACES: dict[tuple[tuple[int, int], ...], OutcomeSpace] = {}


def outcome_space(agenda: Agenda) -> OutcomeSpace:
    """The outcome space (unit_price, quantity, time) of an agenda (cached)."""
    key = (agenda.unit_price, agenda.quantity, agenda.time)
    space = _SPACES.get(key)
    if space is None:
        if len(_SPACES) > 50_000:
            _SPACES.clear()
        space = OutcomeSpace(
            [
                IntegerIssue("unit_price", *agenda.unit_price),
                IntegerIssue("quantity", *agenda.quantity),
                IntegerIssue("time", *agenda.time),
            ]
        )
        _SPACES[key] = space
    return space


def _zero(_: Outcome) -> float:
    return 0.0


@dataclass(eq=False)
class Negotiation:
    """One registered negotiation: agenda, parties (indices) and their negotiators."""

    id: str
    agenda: Agenda
    requester: int
    partner: int
    negotiators: tuple[Negotiator, Negotiator]
    requested_on: int
    session: Mechanism | None = None
    result: SessionResult | None = None
    timed_out: bool = False
    started_at: float = field(default=0.0, repr=False)

    @property
    def buyer(self) -> int:
        return self.requester if self.agenda.is_buy else self.partner

    @property
    def seller(self) -> int:
        return self.partner if self.agenda.is_buy else self.requester

    @property
    def agreement(self) -> Outcome | None:
        return None if self.result is None else self.result.agreement


class NegotiationRunner:
    """Creates the core sessions and steps them in lockstep, one day at a time."""

    def __init__(self, params: SimulationParams, seed_source: Callable[[], int]) -> None:
        self.params = params
        self._seed = seed_source

    def _utility(self, negotiator: Negotiator, space: OutcomeSpace) -> UtilityFunction:
        fn = utility_of(negotiator)
        if isinstance(fn, UtilityFunction) and fn.space == space:
            return fn
        return CallableUtility(space, fn if fn is not None else _zero)

    def start(self, neg: Negotiation) -> None:
        """Create the session of a registered negotiation."""
        space = outcome_space(neg.agenda)
        p = self.params
        neg.session = make_session(
            AOP_SIMULTANEOUS,
            space,
            list(neg.negotiators),
            [self._utility(n, space) for n in neg.negotiators],
            Deadline(rounds=p.neg_n_steps),
            seed=self._seed(),
            time_limit=p.neg_step_time_limit,
        )
        neg.started_at = _time.perf_counter()

    def run_day(
        self, negotiations: list[Negotiation]
    ) -> tuple[list[Negotiation], list[Negotiation]]:
        """Advance ``negotiations`` by up to one day; return (finished, still running)."""
        for neg in negotiations:
            if neg.session is None:
                self.start(neg)
        limit = self.params.neg_time_limit
        max_steps = 2 * self.params.negotiation_speed
        active = list(negotiations)
        first_step = {id(n): n.session.steps for n in active if n.session is not None}
        finished: list[Negotiation] = []
        while active:
            still: list[Negotiation] = []
            for neg in active:
                session = neg.session
                assert session is not None
                result = session.step()
                if result is not None:
                    neg.result = result
                    finished.append(neg)
                elif limit is not None and _time.perf_counter() - neg.started_at > limit:
                    neg.timed_out = True
                    finished.append(neg)
                elif session.steps - first_step[id(neg)] >= max_steps:
                    continue  # out of rounds for today; resumes tomorrow
                else:
                    still.append(neg)
            active = still
        running = [n for n in negotiations if n.result is None and not n.timed_out]
        return finished, running
