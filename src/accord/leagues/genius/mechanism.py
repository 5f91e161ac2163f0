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

from collections.abc import Mapping, Sequence
from typing import Any, cast

import numpy as np

from accord.core.capabilities import OptsOut, ProposesPartial
from accord.core.errors import ConfigError
from accord.core.negotiator import Negotiator, NegotiatorView, Response
from accord.core.outcomes import Outcome, OutcomeSpace
from accord.core.protocols import (
    Action,
    BaseSession,
    EndReason,
    Phase,
    ProtocolInfo,
    SessionResult,
    TraceEntry,
    TurnStyle,
    register_protocol,
)
from accord.core.protocols.machine import FAILED
from accord.core.time import Deadline
from accord.core.utilities import LinearAdditiveUtility, UtilityFunction
from accord.leagues.genius.domain import Domain, Issue, Profile
from accord.leagues.genius.protocol import Action as GAction
from accord.leagues.genius.protocol import EndReason as GEnd
from accord.leagues.genius.protocol import GeniusSession, Rules, VirtualClock

__all__ = [
    "GENIUS_PARTIAL",
    "PartialConceder",
    "PartialOffersSession",
    "domain_from_utilities",
]

GENIUS_PARTIAL = ProtocolInfo(
    "genius-partial-v1",
    "GENIUS partial offers with opt-out",
    TurnStyle.SEQUENTIAL,
    frozenset({Action.OFFER, Action.ACCEPT, Action.REJECT, Action.END}),
    min_parties=2,
    max_parties=2,
    needs=(ProposesPartial, OptsOut),
    description="partial offers build a running agreement; opt-out; the deadline "
    "implements the partial agreement (the KBAgent paper's protocol)",
)


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


class PartialOffersSession(BaseSession):
    """``genius-partial-v1`` for core negotiators with the partial-offer capabilities."""

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
        super().__init__(space, negotiators, utilities, deadline, seed, time_limit, memories)
        self.domain = domain or domain_from_utilities(space, utilities)
        if len(self.domain.issues) != len(space.issues):
            raise ConfigError(
                f"domain {self.domain.name!r} has {len(self.domain.issues)} issues; "
                f"the space has {len(space.issues)}"
            )
        turns = deadline.rounds or 14
        self.rules = rules or Rules(turns=turns, turn_seconds=1.0)
        self.clock = VirtualClock()
        self.game = GeniusSession(self.domain, types, self.rules, self.clock)
        self._mover = 0

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

    def step(self) -> SessionResult | None:
        """One party's move in the current turn (both move once per turn)."""
        if self._result is not None:
            return self._result
        if self.phase is Phase.CREATED:
            if self.start():
                return self._result
            self.game.start()
        g = self.game
        if g.tick() is not None:
            return self._close()
        turn = g.turn
        k = (turn + self._mover) % 2
        t = turn / self.rules.turns
        view = self.views[k]
        view.update(t, self._steps, turn, None, -1)
        neg = self.negotiators[k]
        out = self.call(k, t, cast(OptsOut, neg).opt_out, view)
        if out is FAILED:
            return self._result
        if out is True:
            return self._opt_out(k, t)
        for offer in g.open_offers(k):
            partial = self._outcome(offer.row)
            answer = self.call(k, t, neg.respond, view, partial)
            if answer is FAILED:
                return self._result
            if answer is Response.END:
                return self._opt_out(k, t)
            accept = answer is Response.ACCEPT
            g.submit(k, GAction.accept(offer.id) if accept else GAction.reject(offer.id))
            self.record(k, Action.ACCEPT if accept else Action.REJECT, partial, t)
            if g.result is not None:
                return self._close()
        values = self.call(k, t, cast(ProposesPartial, neg).propose_partial, view)
        if values is FAILED:
            return self._result
        if values is None:
            return self._opt_out(k, t)
        if isinstance(values, Mapping) and values:
            event = g.submit(k, GAction.make_offer(self._values(values)))
            if event.ok and event.offer is not None:
                self.record(k, Action.OFFER, self._outcome(g.offers[event.offer].row), t)
        else:
            g.submit(k, f"propose_partial must return a non-empty mapping; got {values!r}")
        self._mover += 1
        if self._mover == 2:
            self._mover = 0
            self.clock.advance(self.rules.turn_seconds)
        return self._close() if g.tick() is not None else None

    def _opt_out(self, k: int, t: float) -> SessionResult:
        self.game.submit(k, GAction.opt_out())
        self.record(k, Action.END, None, t)
        return self._close()

    def _close(self) -> SessionResult:
        r = self.game.result
        assert r is not None
        self.phase = Phase.ENDED
        reason = {
            GEnd.AGREEMENT: EndReason.AGREEMENT,
            GEnd.OPT_OUT: EndReason.WALKAWAY,
            GEnd.DEADLINE: EndReason.DEADLINE,
        }[r.reason]
        agreement = self._outcome(self.game.agreement_row) if r.full else None
        self._result = SessionResult(
            agreement=agreement,
            reason=reason,
            ended_by=r.ended_by,
            time=min(r.turn / self.rules.turns, 1.0),
            steps=self._steps,
            rounds=r.turn,
            elapsed=0.0,
            utilities=r.utilities,
            names=self.names,
            failure=None,
            trace=[TraceEntry(*e) for e in self._trace],
        )
        for k, neg in enumerate(self.negotiators):
            try:
                neg.on_end(self.views[k], self._result)
            except Exception:  # noqa: BLE001, S112 - a failing end hook changes nothing
                continue
        return self._result


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
