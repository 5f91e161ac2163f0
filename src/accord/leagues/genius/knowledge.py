"""The KBAgent's general opponent model, learnt from a database of past sessions.

For one side of a domain (the agent's) and each type ``l`` of the other side:

- ``P_l(o, t)``: the probability that an opponent of type ``l`` proposes ``o`` at turn
  ``t``: a Gaussian kernel density estimate over the *ranks* of the offers such opponents
  proposed at turn ``t`` (rank 1 = the opponent's best outcome; Silverman's bandwidth, at
  least 2 % of ``|O|``), evaluated at every outcome's rank and normalised over ``O``. Turns
  with no sample use every turn's offers of that type.
- ``Q_l(o)``: the share of the *acceptable offers* (every offer proposed or accepted by a
  party in the opponent's role) worth less to the opponent than ``o``.
- ``ExpectedOppAvg_l``: the mean final utility of the opponent's role over the sessions
  that ended with an (full or implemented partial) agreement.
- ``expectations_l`` (per issue, in the agent's own utility): what the agent expects each
  issue to be worth to it in the final agreement against type ``l``; it completes partial
  offers, as the original agent's ``AvrageValuesPerIssue`` table does (the paper is
  silent on partial offers). Learnt as the agent's mean value of the issue's agreed values
  in the database (every row accepted by either side of a type-``l`` session); an issue
  without such data takes the prior's expectation.

Sessions whose opponent type is unknown are labelled by the Bayes classifier of
:func:`classify` (the type under which the offers are most likely).

**Prior for an empty database** (documented choice; the paper needs data, and a study
server starts with none): each type is modelled from pseudo-data. Its acceptable offers are
its *individually rational* outcomes (worth more to it than its status quo and its
opt-out); at turn ``t`` it proposes one pseudo-offer of rank ``1 + (t / turns) * R_l / 2``
where ``R_l`` is the number of those outcomes (it starts at its best and has conceded
half-way through them by the deadline). As the paper defines them from the data, the
acceptable offers are the offers proposed: these pseudo-offers. ``ExpectedOppAvg_l`` is the type's utility at the
*Nash bargaining outcome* (the full outcome maximising the product of both sides' gains
over their disagreement values, max(status quo, opt-out)): people who bargain over
several turns end near a fair split rather than at the first outcome both prefer to the
status quo, and with this target the agent walks down its offer list at a human pace
(in Job Candidate 6 to 12 distinct offers in 14 turns, where the mean over the mutually
rational outcomes was passed at list entry 2, i.e. 3 distinct offers). The prior's
per-issue expectations are the agent's mean value of each issue over the *Pareto-optimal*
outcomes rational for both sides (leaving out those with a "No agreement" value when
others remain): people's agreements are not random among the acceptable outcomes but
mostly efficient. In Job Candidate this completes the agent's best salary alone to 490 to
610 (the original's knowledge base: 506 for the short-term employer).
A model built this way has ``prior=True``; the agent then also holds partial offers to a
floor during the first 60 % of the turns
(:func:`accord.leagues.genius.kbagent.prior_floor`).

The acceptance probability example of the paper:

>>> acceptance_probability([400, 380, 300, 200, 280], 290)
0.4
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from accord.leagues.genius.domain import Domain, Profile

__all__ = [
    "OpponentModel",
    "SessionLog",
    "TypeModel",
    "acceptance_probability",
    "classify",
    "issue_expectations",
    "kde_over_ranks",
    "nash_outcome",
    "pareto_mask",
    "ranks_best_first",
]

Floats = npt.NDArray[np.float64]
Row = tuple[int, ...]
_SQRT_2PI = float(np.sqrt(2 * np.pi))
MIN_BANDWIDTH = 0.02
"""Smallest KDE bandwidth as a share of |O|."""


@dataclass(frozen=True)
class SessionLog:
    """What the database keeps of one past session (rows use -1 for open issues).

    ``offers`` are ``(party, turn, row)``; ``accepted`` are ``(party, row)`` for offers a
    party accepted; ``types`` may be None when unknown; ``agreement`` says whether an
    agreement (full, or partial implemented at the deadline) ended the session.
    """

    types: tuple[int | None, int | None]
    offers: tuple[tuple[int, int, Row], ...]
    accepted: tuple[tuple[int, Row], ...]
    agreement: bool
    utilities: tuple[float, float]


def acceptance_probability(acceptable: Sequence[float] | Floats, u: float) -> float:
    """``Q``: the share of acceptable offers worth less than ``u`` to the opponent."""
    arr = np.asarray(acceptable, dtype=float)
    if arr.size == 0:
        return 0.0
    return float(np.count_nonzero(arr < u)) / arr.size


def ranks_best_first(full: Floats, u: npt.ArrayLike) -> Floats:
    """Rank of each utility in ``u`` among the full outcomes' ``full`` (1 = best)."""
    desc = np.sort(full)
    below_or_equal = np.searchsorted(desc, np.asarray(u, dtype=float), side="right")
    return np.asarray(1 + (full.size - below_or_equal), dtype=np.float64)


def kde_over_ranks(samples: Floats, at: Floats, size: int) -> Floats:
    """Gaussian KDE of rank ``samples`` evaluated at ranks ``at`` (unnormalised density)."""
    n = samples.size
    sd = float(samples.std()) if n > 1 else 0.0
    h = max(1.06 * sd * n ** (-0.2), MIN_BANDWIDTH * size)
    z = (at[:, None] - samples[None, :]) / h
    return np.asarray(np.exp(-0.5 * z * z).sum(axis=1) / (n * h * _SQRT_2PI), dtype=np.float64)


class TypeModel:
    """P(o, t), Q(o) and ExpectedOppAvg for one opponent type."""

    def __init__(
        self,
        profile: Profile,
        domain: Domain,
        turns: int,
        samples_by_turn: dict[int, list[float]],
        acceptable: Floats,
        expected_opp_avg: float,
        expectations: Floats | None = None,
        prior: bool = False,
    ) -> None:
        self.profile = profile
        self.prior = prior
        self.expectations = (
            np.zeros(len(domain.issues)) if expectations is None else np.asarray(expectations)
        )
        self.turns = turns
        self.full = profile.scores(domain.rows)
        self.full_ranks = ranks_best_first(self.full, self.full)
        self.acceptable = np.sort(acceptable)
        self.expected_opp_avg = expected_opp_avg
        self._size = domain.size
        pooled = [r for rs in samples_by_turn.values() for r in rs]
        self._samples = {t: np.asarray(v, dtype=float) for t, v in samples_by_turn.items() if v}
        self._pooled = np.asarray(pooled, dtype=float)
        self._p: dict[int, tuple[Floats, float]] = {}

    def _density(self, turn: int) -> tuple[Floats, float]:
        if turn not in self._p:
            samples = self._samples.get(turn, self._pooled)
            if samples.size == 0:
                dens = np.ones(self._size)
            else:
                dens = kde_over_ranks(samples, self.full_ranks, self._size)
            self._p[turn] = (dens, float(dens.sum()))
        return self._p[turn]

    def p(self, turn: int) -> Floats:
        """P(o, t) over every full outcome (sums to 1)."""
        dens, total = self._density(turn)
        return np.asarray(dens / total, dtype=np.float64)

    def p_of(self, score: float, turn: int) -> float:
        """P of one (possibly partial) offer with time-free utility ``score`` at ``turn``."""
        samples = self._samples.get(turn, self._pooled)
        _, total = self._density(turn)
        r = ranks_best_first(self.full, np.array([score]))
        if samples.size == 0:
            return 1.0 / self._size
        return float(kde_over_ranks(samples, r, self._size)[0] / total)

    def q(self, score: float | Floats) -> Floats:
        """Q of time-free utilities (vectorised)."""
        if self.acceptable.size == 0:
            return np.zeros(np.shape(score))
        below = np.searchsorted(self.acceptable, np.asarray(score, dtype=float), side="left")
        return np.asarray(below / self.acceptable.size, dtype=np.float64)


def classify(domain: Domain, side: int, offers: Sequence[tuple[int, Row]], turns: int) -> int:
    """Most likely type of ``side`` given its ``(turn, row)`` offers (eqs. 8-9, prior model)."""
    models = [_prior_type(domain, side, k, turns) for k in range(len(domain.types[side]))]
    logp = np.zeros(len(models))
    for turn, row in offers:
        for k, m in enumerate(models):
            score = m.profile.score(row)
            logp[k] += np.log(max(m.p_of(score, turn), 1e-300))
    return int(np.argmax(logp))


def _rational(profile: Profile, scores: Floats) -> npt.NDArray[np.bool_]:
    return np.asarray(scores > max(profile.status_quo, profile.opt_out), dtype=np.bool_)


def _disagreement(profile: Profile) -> float:
    return max(profile.status_quo, profile.opt_out)


def nash_outcome(own: Profile, other: Profile, domain: Domain) -> int:
    """Index of the full outcome maximising the product of both sides' gains.

    Gains are over each side's disagreement value, max(status quo, opt-out); when no
    outcome gains for both, the outcome with the largest sum of (clipped) gains.
    """
    a = own.scores(domain.rows) - _disagreement(own)
    b = other.scores(domain.rows) - _disagreement(other)
    both = (a > 0) & (b > 0)
    if both.any():
        return int(np.argmax(np.where(both, a * b, -np.inf)))
    return int(np.argmax(a.clip(0) + b.clip(0)))


def issue_expectations(own: Profile, domain: Domain, mask: npt.NDArray[np.bool_]) -> Floats:
    """The agent's mean value of each issue over the full outcomes in ``mask``.

    Outcomes with a "No agreement" value on some issue are left out when others remain.
    """
    rows = domain.rows
    clean = np.ones(len(rows), dtype=bool)
    for i, issue in enumerate(domain.issues):
        if issue.no_agreement is not None:
            clean &= rows[:, i] != issue.values.index(issue.no_agreement)
    pick = mask & clean if (mask & clean).any() else mask
    if not pick.any():
        pick = clean if clean.any() else np.ones(len(rows), dtype=bool)
    cols = np.arange(rows.shape[1])
    values = own.table[cols[None, :], rows[pick]]
    return np.asarray(values.mean(axis=0), dtype=np.float64)


def pareto_mask(a: Floats, b: Floats) -> npt.NDArray[np.bool_]:
    """Outcomes not dominated for utilities ``a`` and ``b`` (ties kept once).

    >>> pareto_mask(np.array([3.0, 2.0, 1.0, 1.0]), np.array([1.0, 2.0, 3.0, 1.0])).tolist()
    [True, True, True, False]
    """
    order = np.lexsort((-b, -a))
    keep = np.zeros(a.size, dtype=bool)
    best = -np.inf
    for i in order.tolist():
        if b[i] > best:
            keep[i] = True
            best = float(b[i])
    return keep


def _prior_type(
    domain: Domain, side: int, k: int, turns: int, own: Profile | None = None
) -> TypeModel:
    profile = domain.types[side][k]
    full = profile.scores(domain.rows)
    ok = _rational(profile, full)
    if not ok.any():
        ok = full >= np.median(full)
    count = int(ok.sum())
    if own is None:
        last = count / 2.0
        avg = float(full[ok].mean())
        expect = None
    else:
        mine = own.scores(domain.rows)
        both = ok & _rational(own, mine)
        avg = float(full[nash_outcome(own, profile, domain)])
        last = float(ranks_best_first(full, [avg])[0]) - 1.0
        front = pareto_mask(mine, full) & (both if both.any() else ok)
        expect = issue_expectations(own, domain, front)
    samples = {t: [1.0 + (t / turns) * last] for t in range(turns)}
    desc = np.sort(full)[::-1]
    pseudo = desc[np.minimum(np.array([int(v[0]) - 1 for v in samples.values()]), full.size - 1)]
    return TypeModel(profile, domain, turns, samples, pseudo, avg, expect, prior=own is not None)


class OpponentModel:
    """The per-type models of the other side for an agent on ``side``."""

    def __init__(
        self, domain: Domain, side: int, own: Profile, logs: Sequence[SessionLog], turns: int
    ) -> None:
        self.domain = domain
        self.side = side
        opp = 1 - side
        n_types = len(domain.types[opp])
        samples: list[dict[int, list[float]]] = [{} for _ in range(n_types)]
        acceptable: list[list[float]] = [[] for _ in range(n_types)]
        finals: list[list[float]] = [[] for _ in range(n_types)]
        n_issues = len(domain.issues)
        agreed_sum = np.zeros((n_types, n_issues))
        agreed_n = np.zeros((n_types, n_issues))
        cols = np.arange(n_issues)
        self.sessions = 0
        for log in logs:
            offers = [(t, r) for p, t, r in log.offers if p == opp]
            kind = log.types[opp]
            if kind is None:
                if not offers:
                    continue
                kind = classify(domain, opp, offers, turns)
            if not 0 <= kind < n_types:
                continue
            self.sessions += 1
            prof = domain.types[opp][kind]
            full = prof.scores(domain.rows)
            for t, r in offers:
                score = prof.score(r)
                samples[kind].setdefault(t, []).append(float(ranks_best_first(full, [score])[0]))
                acceptable[kind].append(score)
            for p, r in log.accepted:
                if p == opp:
                    acceptable[kind].append(prof.score(r))
                arr = np.asarray(r, dtype=np.int64)
                on = arr >= 0
                agreed_sum[kind, on] += own.table[cols[on], arr[on]]
                agreed_n[kind, on] += 1
            if log.agreement:
                finals[kind].append(log.utilities[opp])
        self.types: list[TypeModel] = []
        for k in range(n_types):
            prior = _prior_type(domain, opp, k, turns, own)
            if not samples[k] and not acceptable[k]:
                self.types.append(prior)
                continue
            avg = float(np.mean(finals[k])) if finals[k] else prior.expected_opp_avg
            seen = agreed_n[k] > 0
            expect = prior.expectations.copy()
            expect[seen] = agreed_sum[k, seen] / agreed_n[k, seen]
            self.types.append(
                TypeModel(
                    domain.types[opp][k],
                    domain,
                    turns,
                    samples[k],
                    np.asarray(acceptable[k], dtype=float),
                    avg,
                    expect,
                )
            )
