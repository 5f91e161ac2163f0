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

Sessions whose opponent type is unknown are labelled by the Bayes classifier of
:func:`classify` (the type under which the offers are most likely).

**Prior for an empty database** (documented choice; the paper needs data): each type is
modelled from pseudo-data. Its acceptable offers are its *individually rational* outcomes
(worth more to it than its status quo and its opt-out); at turn ``t`` it proposes one
pseudo-offer of rank ``1 + (t / turns) * R_l / 2`` where ``R_l`` is the number of those
outcomes (it starts at its best and has conceded half-way through them by the deadline);
``ExpectedOppAvg_l`` is its mean utility over the outcomes rational for both sides.

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
    "kde_over_ranks",
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
    ) -> None:
        self.profile = profile
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


def _prior_type(
    domain: Domain, side: int, k: int, turns: int, own: Profile | None = None
) -> TypeModel:
    profile = domain.types[side][k]
    full = profile.scores(domain.rows)
    ok = _rational(profile, full)
    if not ok.any():
        ok = full >= np.median(full)
    count = int(ok.sum())
    samples = {t: [1.0 + (t / turns) * count / 2.0] for t in range(turns)}
    both = ok if own is None else ok & _rational(own, own.scores(domain.rows))
    avg = float(full[both].mean()) if both.any() else float(full[ok].mean())
    return TypeModel(profile, domain, turns, samples, full[ok], avg)


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
            if log.agreement:
                finals[kind].append(log.utilities[opp])
        self.types: list[TypeModel] = []
        for k in range(n_types):
            prior = _prior_type(domain, opp, k, turns, own)
            if not samples[k] and not acceptable[k]:
                self.types.append(prior)
                continue
            avg = float(np.mean(finals[k])) if finals[k] else prior.expected_opp_avg
            self.types.append(
                TypeModel(
                    domain.types[opp][k],
                    domain,
                    turns,
                    samples[k],
                    np.asarray(acceptable[k], dtype=float),
                    avg,
                )
            )
