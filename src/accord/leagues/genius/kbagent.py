"""The KBAgent (spec section 2.1): QO offer list, backward-induction thresholds, Bayes types.

Per believed opponent type ``l`` the agent plans one full offer per turn, ``o_KB(t)``,
from the QOValue-ordered list of :func:`~accord.leagues.genius.qo.offer_list` (with
``ExpectedOppAvg_l`` and the concession rate), and an acceptance threshold per turn by
backward induction (:func:`thresholds`, eqs. 4-7)::

    alpha(dl-1) = u(SQ, dl-1)
    E(dl-1)     = sum_{u(o,dl-1) >= alpha} P(o,dl-1) u(o,dl-1) + sum_{<} P(o,dl-1) u(SQ,dl-1)
    alpha(t)    = Q(o_KB(t+1)) u(o_KB(t+1), t+1) + (1 - Q(o_KB(t+1))) E(t+1)        (eq. 7)
    E(t)        = sum_{u(o,t) >= alpha(t)} P(o,t) u(o,t) + sum_{<} P(o,t) alpha(t)   (eq. 6)

The believed type is updated by Bayes' rule (eqs. 8-9) each time an opponent's offer
arrives (likelihood ``P_l(o, t)``) or the opponent accepts one of the agent's offers
(likelihood ``Q_l(o)``); the prior is uniform. The agent sends at most one offer a turn,
answers every offer and never opts out. It accepts when the running agreement with the
offer, its open issues completed with the believed type's **per-issue expectations**
(:class:`~accord.leagues.genius.knowledge.TypeModel.expectations`), is worth at least the
threshold of the believed type and more than the running agreement alone.

Choices the paper leaves open (it says nothing about partial offers):

- ``partial="expect"`` (default) completes open issues with per-issue expectations, as
  the original agent does with its knowledge base's per-issue averages;
  ``partial="mean"`` uses the uniform mean of each issue's evaluations (our earlier rule).
- With an empty database (the prior) and ``partial="expect"``, a partial offer must also
  reach :func:`prior_floor` (the agent's value of its expected agreement) during the first
  60 % of the turns, so that a single issue at its worst value is not taken at once.
- The paper has no extra acceptance rule; ``deadline_guard=True`` adds one that is not in
  the paper: a partial agreement is accepted only if, implemented as it stands at the
  deadline, it is worth at least the status quo (off by default).
- ``compose="keep"`` (default): once some issues are agreed, its full offers keep the
  agreed values and take the planned offer's values on the open issues only (the paper
  plans full outcomes and does not say what to offer after a partial agreement; sending
  the list's outcome as it stands would re-open agreed issues). ``compose="list"`` sends
  the list's outcome unchanged, as the original Java agent does.
- ``response_delay=(mean, sd)`` seconds: the original waited a Gaussian delay (mean 5 s,
  sd 2 s) before answering people. The agent then answers only once the session's clock
  has passed the moment it scheduled (it never sleeps: the server keeps polling and the
  other participants are not held up). Off by default (agent-only games run on virtual
  clocks); on in studies with people (:mod:`accord.leagues.genius.live`). The delay is
  clipped to ``[0, turn_seconds / 4]`` so that it never costs the agent a turn.

``KBAgent(likelihood="code")`` identifies the type as the original Java code does instead:
the likelihood of a received offer under type ``l`` is the Luce/softmax
``exp(0.3 U_l(o, t)) / sum_b exp(0.3 U_l(b, t))`` over all full outcomes (the code's swapped
turn argument is not reproduced).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from accord.core.errors import ConfigError
from accord.leagues.genius.agent import GeniusAgent, PartyView
from accord.leagues.genius.domain import Domain
from accord.leagues.genius.knowledge import OpponentModel, SessionLog, TypeModel
from accord.leagues.genius.protocol import Action, Kind
from accord.leagues.genius.qo import OfferPlan, offer_list, qo_values

__all__ = [
    "KBAgent",
    "TypePlan",
    "prior_floor",
    "thresholds",
]

Floats = npt.NDArray[np.float64]
_FLOOR = 1e-9


def thresholds(
    p: Sequence[Floats],
    own: Floats,
    time_effect: float,
    status_quo: float,
    offer_values: Floats,
    q_offers: Floats,
    first_turn: int = 0,
) -> tuple[Floats, Floats]:
    """Acceptance thresholds ``alpha(t)`` and expected utilities ``E(t)`` for t = 0..dl-1.

    Args:
        p: ``p[t]`` = P(o, t) over the full outcomes, one array per turn.
        own: the agent's time-free utility of every full outcome.
        time_effect, status_quo: the agent's constants.
        offer_values: time-free utility of the agent's own offer at each turn, ``o_KB(t)``.
        q_offers: ``Q(o_KB(t))`` for each turn.
        first_turn: number of the first period (utilities use ``t + first_turn``).
    """
    dl = len(p)
    alpha = np.zeros(dl)
    exp = np.zeros(dl)
    for t in range(dl - 1, -1, -1):
        period = t + first_turn
        u = own + period * time_effect
        if t == dl - 1:
            a = status_quo + period * time_effect
            below_value = a
        else:
            nxt = offer_values[t + 1] + (period + 1) * time_effect
            a = q_offers[t + 1] * nxt + (1 - q_offers[t + 1]) * exp[t + 1]
            below_value = a
        above = u >= a
        exp[t] = float(p[t][above] @ u[above]) + float(p[t][~above].sum()) * below_value
        alpha[t] = a
    return alpha, exp


class TypePlan:
    """What the agent plans against one believed type: offers and thresholds per turn."""

    def __init__(
        self,
        model: TypeModel,
        own: Floats,
        view_domain: Domain,
        sq: float,
        te: float,
        turns: int,
        first_turn: int,
    ) -> None:
        qo = qo_values(own, model.full)
        self.plan: OfferPlan = offer_list(
            qo, model.full, own > sq + first_turn * te, model.expected_opp_avg, turns
        )
        offers = np.array([self.plan.offer(t) for t in range(turns)])
        self.offer_rows = view_domain.rows[offers]
        p = [model.p(t) for t in range(turns)]
        self.alpha, self.expected = thresholds(
            p, own, te, sq, own[offers], model.q(model.full[offers]), first_turn
        )
        self.floor = (
            prior_floor(model.expectations, te, turns, first_turn)
            if model.prior
            else np.full(turns, -np.inf)
        )


PRIOR_FLOOR_SHARE = 0.6
"""Share of the turns during which the empty-database prior keeps its floor on partial
offers (:func:`prior_floor`): in 14 turns, turns 0 to 8."""


def prior_floor(
    expectations: Floats, time_effect: float, turns: int, first_turn: int = 0
) -> Floats:
    """The empty-database prior's floor for partial offers (a documented choice; the paper
    learns its thresholds from people and is silent on partial offers).

    During the first ``PRIOR_FLOOR_SHARE`` of the turns a partial offer, completed with the
    per-issue expectations, must be worth at least the agent's value of the expected
    agreement (the sum of those expectations, with the time effect): the issues it settles
    must give at least what the agent expects from them. Afterwards only the backward
    induction's thresholds hold. ``-inf`` marks turns without a floor.

    >>> prior_floor(np.array([100.0, 50.0]), -10.0, 5).tolist()
    [150.0, 140.0, 130.0, -inf, -inf]
    """
    t = np.arange(turns)
    value = float(expectations.sum()) + (t + first_turn) * time_effect
    return np.where(t < PRIOR_FLOOR_SHARE * turns, value, -np.inf)


HUMAN_DELAY = (5.0, 2.0)
"""The original agent's response delay towards people: Gaussian, mean and sd in seconds."""


class KBAgent(GeniusAgent):
    """The KBAgent; ``logs`` is its database of past sessions (empty: the documented prior).

    >>> KBAgent(response_delay=HUMAN_DELAY).response_delay
    (5.0, 2.0)
    """

    def __init__(
        self,
        logs: Sequence[SessionLog] = (),
        likelihood: Literal["paper", "code"] = "paper",
        partial: Literal["expect", "mean"] = "expect",
        deadline_guard: bool = False,
        response_delay: tuple[float, float] | None = None,
        compose: Literal["keep", "list"] = "keep",
    ) -> None:
        if likelihood not in ("paper", "code"):
            raise ConfigError(f"likelihood must be 'paper' or 'code', got {likelihood!r}")
        if partial not in ("expect", "mean"):
            raise ConfigError(f"partial must be 'expect' or 'mean', got {partial!r}")
        if compose not in ("keep", "list"):
            raise ConfigError(f"compose must be 'keep' or 'list', got {compose!r}")
        if response_delay is not None and (len(response_delay) != 2 or min(response_delay) < 0):
            raise ConfigError(
                f"response_delay must be (mean, sd) seconds, both >= 0, got {response_delay!r}"
            )
        self.logs = tuple(logs)
        self.likelihood = likelihood
        self.partial = partial
        self.deadline_guard = deadline_guard
        self.compose = compose
        self.response_delay = None if response_delay is None else tuple(response_delay)

    def on_start(self, view: PartyView) -> None:
        prof = view.profile
        turns, first = view.turns, view.rules.first_turn
        self.model = OpponentModel(view.domain, view.side, prof, self.logs, turns)
        own = view.scores
        self.plans = [
            TypePlan(m, own, view.domain, prof.status_quo, prof.time_effect, turns, first)
            for m in self.model.types
        ]
        k = len(self.plans)
        self.belief = np.full(k, 1.0 / k)
        self.mean_eval = prof.table[:, :-1].copy()
        widths = [len(i.values) for i in view.domain.issues]
        self.issue_mean = np.array(
            [float(self.mean_eval[i, : widths[i]].mean()) for i in range(len(widths))]
        )
        self._seen: set[int] = set()
        self._accepted_mine: set[int] = set()
        self._offered_turn = -1
        self._due: float | None = None
        self._waiting_for: tuple[int, frozenset[int]] | None = None

    def on_resume(self, view: PartyView) -> None:
        """After a restart: the belief from every offer already answered (its own
        accepted offers and the other's answered ones, as :meth:`act` saw them) and the
        turn of its last offer, so it neither forgets the person's type nor offers twice
        in a turn. Offers still pending are left for the next :meth:`act`."""
        pending = {o.id for o in view.pending()}
        for o in view.my_offers():
            if o.answer is Kind.ACCEPT:
                self._accepted_mine.add(o.id)
                self.update(np.array([m.q(m.profile.score(o.row))[()] for m in self.model.types]))
        for o in view.offers():
            if o.party != view.side and o.id not in pending:
                self._seen.add(o.id)
                self.update(self._offer_likelihood(view, o.row, o.turn))
        mine = [o.turn for o in view.my_offers()]
        if mine:
            self._offered_turn = max(mine)

    def memory(self) -> dict[str, Any]:
        """Its decisions so far: the turn it last decided to offer in (an offer made or
        skipped), the offers it has weighed, its belief, and a response delay being
        waited out (the news and its moment), so that a restored agent decides no turn
        twice and waits out the very same delay."""
        waiting = self._waiting_for
        return {
            "offered_turn": self._offered_turn,
            "seen": sorted(self._seen),
            "accepted_mine": sorted(self._accepted_mine),
            "belief": [float(b) for b in self.belief],
            "due": self._due,
            "waiting_for": None if waiting is None else [waiting[0], sorted(waiting[1])],
        }

    def recall(self, memory: dict[str, Any]) -> None:
        """Back to what :meth:`memory` saved (exactly: floats round-trip through JSON)."""
        self._offered_turn = int(memory["offered_turn"])
        self._seen = {int(i) for i in memory["seen"]}
        self._accepted_mine = {int(i) for i in memory["accepted_mine"]}
        self.belief = np.array(memory["belief"], dtype=float)
        due = memory.get("due")
        self._due = None if due is None else float(due)
        waiting = memory.get("waiting_for")
        self._waiting_for = (
            None if waiting is None else (int(waiting[0]), frozenset(int(i) for i in waiting[1]))
        )

    @property
    def believed_type(self) -> int:
        """BT(t): the most probable opponent type (eq. 9)."""
        return int(np.argmax(self.belief))

    def update(self, likelihoods: Floats) -> None:
        """Bayes' rule (eq. 8) with one likelihood per type."""
        post = self.belief * np.maximum(likelihoods, _FLOOR)
        total = float(post.sum())
        self.belief = post / total if total > 0 else np.full(len(post), 1.0 / len(post))

    def _offer_likelihood(self, view: PartyView, row: npt.NDArray[np.int64], turn: int) -> Floats:
        """P(o_t | type_l) for every type: the KDE model (paper) or the code's softmax."""
        if self.likelihood == "paper":
            return np.array([m.p_of(m.profile.score(row), turn) for m in self.model.types])
        out = []
        period = turn + view.rules.first_turn
        for m in self.model.types:
            te = m.profile.time_effect * period
            full = 0.3 * (m.full + te)
            top = float(full.max())
            out.append(
                np.exp(0.3 * (m.profile.score(row) + te) - top) / float(np.exp(full - top).sum())
            )
        return np.array(out)

    def _safe_at_deadline(self, view: PartyView, row: npt.NDArray[np.int64]) -> bool:
        """Option (not in the paper): a partial agreement must beat the SQ at the deadline."""
        if not self.deadline_guard:
            return True
        if bool((row >= 0).all()) or view.rules.deadline_rule != "paper":
            return True
        dl = view.turns
        return view.value(row, t=dl) >= view.profile.status_quo_at(dl)

    def _completed_value(self, view: PartyView, row: npt.NDArray[np.int64]) -> float:
        prof = view.profile
        cols = np.arange(row.size)
        fill = (
            self.issue_mean
            if self.partial == "mean"
            else self.model.types[self.believed_type].expectations
        )
        own = np.where(row >= 0, prof.table[cols, np.maximum(row, 0)], fill)
        return float(own.sum()) + view.period * prof.time_effect

    def _ready(self, view: PartyView) -> bool:
        """With a response delay: is the scheduled moment to answer what is new here yet?"""
        if self.response_delay is None:
            return True
        news = (
            view.turn if self._offered_turn < view.turn else -1,
            frozenset(o.id for o in view.pending()),
        )
        if news == (-1, frozenset()):
            return True
        now = view.elapsed
        if self._waiting_for != news:
            self._waiting_for = news
            mean, sd = self.response_delay
            cap = view.rules.turn_seconds / 4
            left = view.rules.turn_seconds * (view.turn + 1) - now
            self._due = now + min(max(float(view.rng.normal(mean, sd)), 0.0), cap, left / 2)
        return self._due is not None and now >= self._due

    def act(self, view: PartyView) -> list[Action]:
        if not self._ready(view):
            return []
        self._waiting_for = None
        out: list[Action] = []
        turn = min(view.turn, view.turns - 1)
        for o in view.my_offers():
            if o.answer is Kind.ACCEPT and o.id not in self._accepted_mine:
                self._accepted_mine.add(o.id)
                self.update(np.array([m.q(m.profile.score(o.row))[()] for m in self.model.types]))
        current = view.value(view.agreement_row)
        agreed = view.agreement_row.copy()  # with what this call accepts written over it
        for o in view.pending():
            if o.id not in self._seen:
                self._seen.add(o.id)
                self.update(self._offer_likelihood(view, o.row, o.turn))
            plan = self.plans[self.believed_type]
            combined = view.combined(o.row)
            worth = self._completed_value(view, combined)
            partial = self.partial == "expect" and bool((combined < 0).any())
            floor = plan.floor[turn] if partial else -np.inf
            if (
                worth >= max(plan.alpha[turn], floor)
                and view.value(combined) > current
                and worth > current
                and self._safe_at_deadline(view, combined)
            ):
                out.append(Action.accept(o.id))
                current = view.value(combined)
                agreed = np.where(o.row >= 0, o.row, agreed)
            else:
                out.append(Action.reject(o.id))
        if self._offered_turn < view.turn:
            self._offered_turn = view.turn
            row = self.plans[self.believed_type].offer_rows[turn]
            if self.compose == "keep":
                row = np.where(agreed >= 0, agreed, row)
            if view.value(row) > current:
                out.append(Action.make_offer(view.offer_of(row)))
        return out
