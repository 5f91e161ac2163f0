"""The GENIUS partial-offer protocol in the core protocol registry (``genius-partial-v1``).

Registered as ``genius-partial-v1`` (also ``genius-partial``, ``genius``), it runs core
negotiators that extend the negotiator API by capability: besides ``respond`` they need
:class:`~accord.core.capabilities.ProposesPartial` (``propose_partial(view)`` returns the
issue -> value mapping of the issues an offer fixes) and
:class:`~accord.core.capabilities.OptsOut` (``opt_out(view)``). Each turn both parties
act once (the first mover alternates): a party may opt out, then answers each open offer
of the other side (``respond(view, offer)``, the offer as an outcome tuple with ``None``
for its open issues: ACCEPT, REJECT, or END to opt out), then makes its offer. The rules
are those of :mod:`accord.leagues.genius.protocol`; an invalid offer is recorded and ends
nothing. ``deadline.rounds`` is the number of turns (14 when only seconds are given).

Utilities come from ``domain=`` (a :class:`~accord.leagues.genius.domain.Domain`, with
``types=``) or, for any scenario with linear additive utilities on discrete issues, from
the utilities themselves (each type's status quo and opt-out value are its reservation
value, no time effect). The :class:`SessionResult` has the agreement when it is full;
a partial agreement implemented at the deadline is in :attr:`PartialOffersSession.game`
and counts in the utilities.

    >>> from accord.core.protocols import make_session, protocol_info
    >>> from accord.core.time import Deadline
    >>> from accord.formats import load_scenario
    >>> protocol_info("genius").id
    'genius-partial-v1'
    >>> sc = load_scenario("job_offer")
    >>> s = make_session("genius-partial-v1", sc.space, [PartialConceder(), PartialConceder()],
    ...                  sc.utilities, Deadline(rounds=10))
    >>> s.run().reason.value
    'agreement'
"""

from __future__ import annotations

import time as _time
from collections.abc import Mapping, Sequence
from typing import Any, cast

import numpy as np

from accord.core.capabilities import OptsOut, ProposesPartial
from accord.core.errors import ConfigError
from accord.core.negotiator import Negotiator, NegotiatorView, OfferLog, Response
from accord.core.outcomes import Outcome, OutcomeSpace
from accord.core.protocols import (
    Action,
    EndReason,
    Phase,
    SessionResult,
    TraceEntry,
    register_protocol,
)
from accord.core.protocols.driver import AgentDriver, SlowCall
from accord.core.protocols.offers import check_negotiation
from accord.core.time import Deadline
from accord.core.utilities import LinearAdditiveUtility, UtilityFunction
from accord.leagues.genius.domain import Domain, Issue, Profile
from accord.leagues.genius.protocol import Action as GAction
from accord.leagues.genius.protocol import EndReason as GEnd
from accord.leagues.genius.protocol import GeniusSession, Rules
from accord.leagues.genius.rules import GENIUS_PARTIAL, GeniusRules, GeniusSetup, GeniusState

__all__ = [
    "GENIUS_PARTIAL",
    "PartialConceder",
    "PartialOffersSession",
    "PartialSeat",
    "domain_from_utilities",
]


def domain_from_utilities(space: OutcomeSpace, utilities: Sequence[UtilityFunction]) -> Domain:
    """A one-type-per-side domain from linear additive utilities on discrete issues."""
    if not space.is_discrete or not all(isinstance(u, LinearAdditiveUtility) for u in utilities):
        raise ConfigError(
            "genius-partial-v1 needs domain= or linear additive utilities on discrete issues; "
            f"got {[type(u).__name__ for u in utilities]}"
        )
    issues = tuple(
        Issue(i.name, tuple(f"{k}:{v}" for k, v in enumerate(i.values()))) for i in space.issues
    )
    profiles = []
    for k, u in enumerate(utilities):
        lin = cast(LinearAdditiveUtility, u)
        profiles.append(
            Profile(
                f"party{k}",
                issues,
                tuple(1.0 for _ in issues),
                tuple(tuple(float(x) for x in t) for t in lin.tables),
                float(u.reservation),
                float(u.reservation),
                0.0,
                1.0,
            )
        )
    return Domain("scenario", issues, ("party0", "party1"), ((profiles[0],), (profiles[1],)), 1.0)


class PartialSeat:
    """A core negotiator with the partial-offer capabilities at the
    :class:`~accord.leagues.genius.rules.GeniusRules` table (one ask a turn each).

    Asked, it may opt out (``opt_out``), then answers each open offer of the other side
    (``respond``: ACCEPT, REJECT, or END to opt out), then makes its offer
    (``propose_partial``; None opts out); the answers go to the rules as one batch. Each
    call is timed against ``time_limit`` (a slower answer raises :class:`SlowCall`).
    Before each ask the negotiator's view gets the time, the counters and the offers
    made since it last looked.
    """

    def __init__(
        self,
        negotiator: Negotiator,
        view: NegotiatorView,
        session: PartialOffersSession,
        time_limit: float | None,
    ) -> None:
        self.negotiator = negotiator
        self.view = view
        self.name = negotiator.name
        self._session = session
        self._limit = time_limit

    def _timed(self, fn: Any, *args: Any) -> Any:
        limit = self._limit
        if limit is None:
            return fn(*args)
        start = _time.perf_counter()
        out = fn(*args)
        took = _time.perf_counter() - start
        if took > limit:
            raise SlowCall(f"{fn.__name__} took {took:.3f} s; the limit is {limit:.3f} s")
        return out

    def start(self, state: GeniusState) -> None:
        self.negotiator.on_start(self.view)

    def act(self, state: GeniusState, party: int) -> tuple[Any, ...]:
        owner, g = self._session, state.session
        owner._catch_up(g)
        turn = g.turn
        self.view.update(turn / owner.n_turns, owner.steps, turn, None, -1)
        neg, view = self.negotiator, self.view
        if self._timed(cast(OptsOut, neg).opt_out, view) is True:
            return (GAction.opt_out(),)
        batch: list[Any] = []
        agreed = g.agreement_row.copy()
        for offer in g.open_offers(party):
            answer = self._timed(neg.respond, view, owner._outcome(offer.row))
            if answer is Response.END:
                return (*batch, GAction.opt_out())
            if answer is not Response.ACCEPT:
                batch.append(GAction.reject(offer.id))
                continue
            batch.append(GAction.accept(offer.id))
            fixed = offer.row >= 0
            agreed[fixed] = offer.row[fixed]
            if bool((agreed >= 0).all()):
                return tuple(batch)  # a full agreement: the session ends here
        values = self._timed(cast(ProposesPartial, neg).propose_partial, view)
        if values is None:
            return (*batch, GAction.opt_out())
        if isinstance(values, Mapping) and values:
            batch.append(GAction.make_offer(owner._values(values)))
        else:
            batch.append(f"propose_partial must return a non-empty mapping; got {values!r}")
        return tuple(batch)

    def end(self, result: Any) -> None:
        self.negotiator.on_end(self.view, result)


class PartialOffersSession(AgentDriver):
    """``genius-partial-v1`` for core negotiators with the partial-offer capabilities:
    the agent driver running :class:`~accord.leagues.genius.rules.GeniusRules` (one ask
    a turn for each party, the first alternating with the turn; a failure ends the
    session) with a :class:`PartialSeat` per negotiator."""

    info = GENIUS_PARTIAL

    def __init__(
        self,
        space: OutcomeSpace,
        negotiators: Sequence[Negotiator],
        utilities: Sequence[UtilityFunction],
        deadline: Deadline,
        seed: int | None = 0,
        time_limit: float | None = None,
        memories: Sequence[Any] | None = None,
        domain: Domain | None = None,
        types: tuple[int, int] = (0, 0),
        rules: Rules | None = None,
    ) -> None:
        seed_, names = check_negotiation(GENIUS_PARTIAL, space, negotiators, utilities, seed)
        self.domain = domain or domain_from_utilities(space, utilities)
        if len(self.domain.issues) != len(space.issues):
            raise ConfigError(
                f"domain {self.domain.name!r} has {len(self.domain.issues)} issues; "
                f"the space has {len(space.issues)}"
            )
        self.settings = rules or Rules(turns=deadline.rounds or 14, turn_seconds=1.0)
        self.n_turns = self.settings.turns
        machine = GeniusRules(self.settings, asks_per_turn=1, failure_ends=True)
        super().__init__(machine, GeniusSetup(self.domain, types), (), names, seed_)
        self.space = space
        self.negotiators = tuple(negotiators)
        self.utilities = tuple(utilities)
        self.deadline = deadline
        self.time_limit = time_limit
        self._offers = OfferLog()
        self._logged = 0
        mem = list(memories) if memories is not None else [None] * len(negotiators)
        self.views = tuple(
            NegotiatorView(u, k, names, self._offers, (seed_, k), mem[k], deadline)
            for k, u in enumerate(utilities)
        )
        self.seats = tuple(
            PartialSeat(neg, self.views[k], self, time_limit) for k, neg in enumerate(negotiators)
        )
        self._acted: list[TraceEntry] = []

    @property
    def game(self) -> GeniusSession:
        """The GENIUS session (the rules' state)."""
        state: GeniusState = self.state
        return state.session

    @property
    def steps(self) -> int:
        """Actions taken so far (offers, answers, opt-outs)."""
        return len(self._trace(self.game))

    def _outcome(self, row: np.ndarray[Any, Any]) -> Outcome:
        values = [i.values() for i in self.space.issues]
        return tuple(None if k < 0 else values[j][int(k)] for j, k in enumerate(row))

    def _values(self, mapping: Mapping[str, Any]) -> dict[str, str]:
        out: dict[str, str] = {}
        for name, value in mapping.items():
            if name not in self.space.names:
                out[str(name)] = str(value)  # the game reports the unknown issue
                continue
            j = self.space.names.index(name)
            issue = self.space.issues[j]
            if not issue.contains(value):
                out[name] = f"?{value}"  # the game reports the unknown value
                continue
            out[name] = self.domain.issues[j].values[issue.index_of(value)]
        return out

    def _catch_up(self, g: GeniusSession) -> None:
        """Put the offers made since the views last looked into their offer log."""
        for offer in g.offers[self._logged :]:
            self._offers._append(offer.party, self._outcome(offer.row))
        self._logged = len(g.offers)

    def _trace(self, g: GeniusSession) -> list[TraceEntry]:
        """The actions so far, from the session's valid events (time: turn / turns)."""
        out: list[TraceEntry] = []
        for e in g.events:
            if not e.ok or e.kind not in _TRACED:
                continue
            t = e.turn / self.n_turns
            outcome = None if e.offer is None else self._outcome(g.offers[e.offer].row)
            out.append(TraceEntry(len(out), e.party, _TRACED[e.kind], outcome, t))
        return out

    def _finish(self) -> SessionResult:
        self.phase = Phase.ENDED
        state: GeniusState = self.state
        g = state.session
        r = g.result
        assert r is not None
        trace = self._trace(g)
        failure = state.failure
        if failure is not None:
            t = g.turn / self.n_turns
            self._result = SessionResult(
                agreement=None, reason=EndReason.FAILURE, ended_by=failure.party, time=t,
                steps=len(trace), rounds=-(-len(trace) // 2), elapsed=0.0,
                utilities=tuple(u.reservation_at(t) for u in self.utilities),
                names=self.names, failure=failure, trace=trace,
            )  # fmt: skip
        else:
            self._result = SessionResult(
                agreement=self._outcome(g.agreement_row) if r.full else None,
                reason=_REASONS[r.reason], ended_by=r.ended_by,
                time=min(r.turn / self.n_turns, 1.0), steps=len(trace), rounds=r.turn,
                elapsed=0.0, utilities=r.utilities, names=self.names, failure=None, trace=trace,
            )  # fmt: skip
        for seat in self.seats:
            try:
                seat.end(self._result)
            except Exception:  # noqa: BLE001, S112 - a failing end hook changes nothing
                continue
        return self._result  # type: ignore[no-any-return]


_TRACED = {
    "offer": Action.OFFER,
    "accept": Action.ACCEPT,
    "reject": Action.REJECT,
    "opt_out": Action.END,
}
_REASONS = {
    GEnd.AGREEMENT: EndReason.AGREEMENT,
    GEnd.OPT_OUT: EndReason.WALKAWAY,
    GEnd.DEADLINE: EndReason.DEADLINE,
}


class PartialConceder(Negotiator, ProposesPartial, OptsOut):
    """A time-based conceder for ``genius-partial-v1``: full offers from its best down to
    its 20 % quantile (or its reservation value, if higher) at the deadline; accepts what
    is worth at least its current target; never opts out."""

    def on_start(self, view: NegotiatorView) -> None:
        rows = view.space.enumerate_rows()
        scores = view.utility.batch(rows)
        order = np.argsort(-scores, kind="stable")
        self._rows, self._scores = rows[order], scores[order]

    def _target(self, view: NegotiatorView) -> float:
        top = float(self._scores[0])
        low = max(float(np.quantile(self._scores, 0.2)), view.utility.reservation)
        return top - (top - low) * view.time

    def respond(self, view: NegotiatorView, offer: Outcome) -> Response:
        if any(v is None for v in offer):
            return Response.REJECT
        return Response.ACCEPT if view.utility(offer) >= self._target(view) else Response.REJECT

    def propose(self, view: NegotiatorView) -> Outcome | None:
        k = int(np.searchsorted(-self._scores, -self._target(view), side="right")) - 1
        return view.space.outcome_of_row(self._rows[max(k, 0)])

    def propose_partial(self, view: NegotiatorView) -> Mapping[str, Any] | None:
        offer = self.propose(view)
        return None if offer is None else dict(zip(view.space.names, offer, strict=True))

    def opt_out(self, view: NegotiatorView) -> bool:
        return False


register_protocol(PartialOffersSession, GENIUS_PARTIAL, names=["genius-partial", "genius"])
