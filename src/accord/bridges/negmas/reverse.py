"""The other direction: an Accord negotiator inside NegMAS (``SAOMechanism``, tournaments).

:class:`AccordSAONegotiator` is a NegMAS ``SAONegotiator`` that runs one Accord agent,
named as everywhere in Accord (a short name or ``package.module:Class``, with its
parameters). At the start of each NegMAS negotiation it builds the Accord agent afresh
and an Accord :class:`~accord.core.negotiator.NegotiatorView` from what the NegMAS
negotiator was given: the outcome space (categorical, contiguous integer and continuous
issues), its own utility (a linear additive one with ``ExpDiscountedUFun(factor=
"relative_time")`` keeps its discount as Accord's ``delta``; anything else is asked as
is), the party ids, the offers so far and the deadline (``n_steps``, ``time_limit``).
NegMAS's ``relative_time`` is the Accord agent's ``t`` and ``state.step`` its round.

==========================  ============================================
Accord answer               NegMAS
==========================  ============================================
``Response.ACCEPT``         ``ACCEPT_OFFER``
``Response.REJECT``         ``REJECT_OFFER`` (then ``propose`` is called)
``Response.END``            ``END_NEGOTIATION``
an outcome from propose     that offer
``None`` from propose       ``None`` (NegMAS ends the negotiation)
==========================  ============================================

    >>> from negmas.sao import SAOMechanism, AspirationNegotiator
    >>> from negmas.outcomes import make_issue, make_os
    >>> from negmas.preferences import LinearAdditiveUtilityFunction as U
    >>> os = make_os([make_issue(10, "price")])
    >>> m = SAOMechanism(outcome_space=os, n_steps=20)
    >>> m.add(AccordSAONegotiator(agent="boulware"), preferences=U.random(os, reserved_value=0))
    True
    >>> m.add(AspirationNegotiator(), preferences=U.random(os, reserved_value=0))
    True
    >>> m.run().started, type(m.negotiators[0].accord).__name__
    (True, 'Boulware')

``as_negmas("boulware")`` makes a named NegMAS class of it (for NegMAS tournaments, which
take classes); the class is picklable when made at module level.
"""

from __future__ import annotations

import math
from typing import Any

from accord.bridges.negmas._require import require_negmas
from accord.core.errors import ConfigError
from accord.core.negotiator import Negotiator, NegotiatorView, OfferLog, Response
from accord.core.outcomes import CategoricalIssue, IntegerIssue, Issue, OutcomeSpace, RealIssue
from accord.core.time import Deadline
from accord.core.utilities import CallableUtility, LinearAdditiveUtility, UtilityFunction

require_negmas()

from negmas.gb.common import ResponseType  # noqa: E402
from negmas.sao import SAONegotiator, SAOState  # noqa: E402


def accord_space(os: Any) -> OutcomeSpace:
    """The Accord outcome space of a NegMAS Cartesian outcome space (same issue order)."""
    from negmas.outcomes import CategoricalIssue as NCat
    from negmas.outcomes import ContiguousIssue, ContinuousIssue

    issues: list[Issue] = []
    for issue in getattr(os, "issues", ()):
        if isinstance(issue, ContiguousIssue):
            issues.append(IntegerIssue(issue.name, int(issue.min_value), int(issue.max_value)))
        elif isinstance(issue, ContinuousIssue):
            issues.append(RealIssue(issue.name, float(issue.min_value), float(issue.max_value)))
        elif isinstance(issue, NCat) or issue.is_discrete():
            issues.append(CategoricalIssue(issue.name, list(issue.all)))
        else:
            raise ConfigError(
                f"NegMAS issue {issue.name!r} ({type(issue).__name__}) has no Accord form"
            )
    if not issues:
        raise ConfigError(f"the NegMAS outcome space {os!r} has no issues Accord can read")
    return OutcomeSpace(issues)


def accord_utility(ufun: Any, space: OutcomeSpace) -> UtilityFunction:
    """An Accord utility equal to the NegMAS ``ufun`` on ``space``."""
    from negmas.preferences import ExpDiscountedUFun, LinearAdditiveUtilityFunction

    discount: float | None = None
    base = ufun
    if isinstance(ufun, ExpDiscountedUFun) and ufun.factor == "relative_time":
        discount, base = float(ufun.discount), ufun.ufun
    rv = getattr(ufun, "reserved_value", None)
    reservation = float(rv) if rv is not None and math.isfinite(float(rv)) else 0.0
    if isinstance(base, LinearAdditiveUtilityFunction) and space.is_discrete:
        weights = [float(w) for w in base.weights]
        evaluators = [
            {v: float(f(v)) for v in issue.values()}
            for f, issue in zip(base.values, space.issues, strict=True)
        ]
        return LinearAdditiveUtility(
            space, weights, evaluators, reservation, discount, normalize=False
        )
    if discount is None and base is not ufun:  # pragma: no cover - other discounted kinds
        base = ufun
    return CallableUtility(space, lambda o: float(base(o)), reservation, discount)


class AccordSAONegotiator(SAONegotiator):  # type: ignore[misc]
    """A NegMAS SAO negotiator that plays the Accord agent ``agent`` (with ``params``).

    Args:
        agent: a short name or ``package.module:Class`` of an Accord agent.
        params: the agent's constructor parameters.
        seed: seeds the Accord agent's generator (``view.rng``).
        **kwargs: passed to NegMAS's ``SAONegotiator`` (``name``, ``preferences``, ...).
    """

    def __init__(
        self,
        agent: str = "boulware",
        params: dict[str, Any] | None = None,
        seed: int = 0,
        **kwargs: Any,
    ) -> None:
        from accord.agents.registry import get_agent

        self.accord_agent = agent
        self.accord_params = dict(params or {})
        self.seed = int(seed)
        self.accord: Negotiator = get_agent(agent, **self.accord_params)  # fails early
        kwargs.setdefault("name", self.accord.name)
        super().__init__(**kwargs)
        self._view: NegotiatorView | None = None
        self._log = OfferLog()
        self._seen = 0

    # -- NegMAS calls ----------------------------------------------------------------------
    def on_negotiation_start(self, state: SAOState) -> None:
        from accord.agents.registry import get_agent

        super().on_negotiation_start(state)
        nmi = self.nmi
        space = accord_space(nmi.outcome_space)
        utility = accord_utility(self.ufun, space)
        ids = list(nmi.negotiator_ids)
        index = ids.index(self.id) if self.id in ids else 0
        rounds = nmi.n_steps if nmi.n_steps is not None and math.isfinite(nmi.n_steps) else None
        limit = nmi.time_limit if nmi.time_limit is not None else math.inf
        seconds = float(limit) if math.isfinite(limit) else None
        deadline = None if rounds is None and seconds is None else Deadline(rounds, seconds)
        self.accord = get_agent(self.accord_agent, **self.accord_params)
        self._log = OfferLog()
        self._seen = 0
        self._view = NegotiatorView(
            utility, index, ids, self._log, (self.seed, index), None, deadline
        )
        self._sync(state)
        self.accord.on_start(self._view)

    def propose(self, state: SAOState, dest: str | None = None) -> Any:
        view = self._sync(state)
        return self.accord.propose(view)

    def respond(self, state: SAOState, source: str | None = None) -> ResponseType:
        view = self._sync(state)
        offer = state.current_offer
        if offer is None:
            return ResponseType.REJECT_OFFER
        answer = self.accord.respond(view, tuple(offer))
        if answer == Response.ACCEPT:
            return ResponseType.ACCEPT_OFFER
        if answer == Response.END:
            return ResponseType.END_NEGOTIATION
        return ResponseType.REJECT_OFFER

    def on_negotiation_end(self, state: SAOState) -> None:
        super().on_negotiation_end(state)
        view = self._view
        if view is None:
            return
        from accord.core.protocols.result import EndReason, SessionResult

        self._sync(state)
        reason = (
            EndReason.AGREEMENT
            if state.agreement is not None
            else EndReason.DEADLINE
            if state.timedout
            else EndReason.WALKAWAY
        )
        agreement = None if state.agreement is None else tuple(state.agreement)
        u = view.utility
        t = view.time
        utility = u.at(agreement, t) if agreement is not None else u.reservation_at(t)
        result = SessionResult(
            agreement=agreement,
            reason=reason,
            ended_by=None,
            time=t,
            steps=view.step,
            rounds=int(state.step),
            elapsed=float(state.time),
            utilities=tuple(
                utility if k == view.index else math.nan for k in range(view.n_parties)
            ),
            names=view.names,
            failure=None,
        )
        self.accord.on_end(view, result)

    # -- internals ---------------------------------------------------------------------------
    def _sync(self, state: SAOState) -> NegotiatorView:
        view = self._view
        if view is None:
            raise ConfigError("the Accord negotiator was called before the negotiation started")
        nmi = self.nmi
        ids = list(view.names)
        trace = nmi.trace
        for nid, offer in trace[self._seen :]:
            if offer is not None and nid in ids:
                self._log._append(ids.index(nid), tuple(offer))
        self._seen = len(trace)
        proposer = state.current_proposer
        k = ids.index(proposer) if proposer in ids else -1
        offer = state.current_offer
        n = view.n_parties
        view.update(
            float(min(1.0, max(0.0, state.relative_time))),
            int(state.step) * n,
            int(state.step),
            None if offer is None else tuple(offer),
            k,
        )
        return view


def as_negmas(agent: str, **params: Any) -> type[AccordSAONegotiator]:
    """A NegMAS negotiator class that plays the Accord agent ``agent`` with ``params``.

    >>> Boulware = as_negmas("boulware")
    >>> Boulware().accord_agent, Boulware.__name__
    ('boulware', 'AccordBoulware')
    """
    from accord.agents.registry import display_name

    frozen = dict(params)

    def __init__(self: Any, **kwargs: Any) -> None:
        AccordSAONegotiator.__init__(self, agent=agent, params=frozen, **kwargs)

    name = "Accord" + display_name(agent).replace(" ", "")
    return type(name, (AccordSAONegotiator,), {"__init__": __init__, "__module__": __name__})
