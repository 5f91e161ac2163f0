"""Peer-designed agents (PDAs): ten strategies in the families of the BIU students' agents.

Each is a small :class:`GeniusAgent` written here (not ported), seeded through the view's
generator. Together they are the default opponent pool of ``accord genius evaluate``.
Utilities below are "normalised" as ``(v - min) / (max - min)`` over the agent's own full
outcomes; a partial offer is judged by its best completion (the running agreement, the
offer, and the agent's best values on the issues still open) unless said otherwise.

- **conceder**: walks down its own sorted list of outcomes above its floor (status quo at
  the deadline or opt-out, the better), at a rate ``(t / (dl-1))^1.5``; accepts an offer
  worth at least 85 % of its current offer (the fixed-list concession family).
- **fair**: fairness target: offers the outcome that is best for the opponent (averaged over
  its possible types) among those where its own normalised share beats the opponent's by a
  gap shrinking from 50 % to 0; accepts when its share is at least the opponent's minus 5 %.
- **bayes**: Bayesian type guesser: a softmax (Luce) likelihood of the opponent's offers
  updates its belief over types; its threshold falls from its best to the value of the
  "fair" outcome (best product of gains) for the believed type; it offers a random outcome
  above the threshold and accepts above it.
- **issues**: issue-by-issue partial-agreement builder: offers one open issue at a time
  (heaviest first) at a value within its bottom limit, which falls 0.1 every 4 turns from
  0.9 to 0.4 of the issue's best; accepts a partial offer when each offered issue is
  within that limit.
- **threats**: threat-sensitive conceder: time-based, conceding faster after each of the
  first three threats it receives; threatens when offered below half its best, comments
  when offered well; accepts at ≥ 1/2 of its best (1/3 after half the turns).
- **optout**: opt-out prone: offers random outcomes from its top ``p`` % (``p`` grows 5 % a
  turn); threatens to opt out, then opts out after half the turns when nothing offered beats
  its opt-out value; accepts at ≥ 80 % of its current bound.
- **coin**: probabilistic acceptor: accepts an offer with probability equal to its
  normalised quality (never below its floor); offers, in turn, the best joint outcome
  with each possible opponent type, conceding 5 % a turn.
- **qo**: QO template: walks down the outcomes ordered by their worst QOValue over the
  opponent's types; accepts an offer worth at least its own next offer.
- **graft**: sorted-list conceder that grafts the opponent's last offered issue values into
  its offers (the outcome above its target that shares most values with that offer).
- **complete**: completer: offers the running agreement completed with its best values on
  the open issues, re-offers after rejections with a falling target, accepts above it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt

from accord.core.errors import ConfigError
from accord.core.imports import import_object
from accord.leagues.genius.agent import GeniusAgent, PartyView
from accord.leagues.genius.protocol import Action, Kind, Offer
from accord.leagues.genius.qo import qo_values

__all__ = [
    "PDA",
    "PDAS",
    "agent_names",
    "make_agent",
]

Rows = npt.NDArray[np.int64]


class PDA(GeniusAgent):
    """Shared plumbing: own scores, floor, once-a-turn offers, answering pending offers."""

    label = "pda"

    def __init__(self, seed: int | None = None) -> None:
        self.seed = seed

    @property
    def name(self) -> str:
        return self.label

    def on_start(self, view: PartyView) -> None:
        self.rng = np.random.default_rng(self.seed) if self.seed is not None else view.rng
        self.s = view.scores
        self.lo, self.hi = float(self.s.min()), float(self.s.max())
        self.order = np.argsort(-self.s, kind="stable")
        self.last_turn = -1
        self.setup(view)

    def setup(self, view: PartyView) -> None:
        """Strategy-specific precomputation."""

    def norm(self, v: float) -> float:
        return (v - self.lo) / (self.hi - self.lo) if self.hi > self.lo else 1.0

    def floor(self, view: PartyView) -> float:
        """Time-free value below which giving up is better (status quo at dl or opt-out now)."""
        p, te = view.profile, view.profile.time_effect
        walk = max(p.status_quo_at(view.turns), p.opt_out_at(view.period))
        return walk - view.period * te

    def best_completion(self, view: PartyView, row: Rows) -> Rows:
        out = view.combined(row)
        table = view.profile.table[:, :-1]
        widths = [len(i.values) for i in view.domain.issues]
        for i in np.flatnonzero(out < 0):
            out[i] = int(np.argmax(table[i, : widths[i]]))
        return out

    def worth(self, view: PartyView, offer: Offer) -> float:
        """Time-free value of the offer's best completion."""
        return view.profile.score(self.best_completion(view, offer.row))

    def accepts(self, view: PartyView, offer: Offer, worth: float) -> bool:
        return False

    def propose(self, view: PartyView) -> list[Action]:
        return []

    def act(self, view: PartyView) -> list[Action]:
        out: list[Action] = []
        current = view.value(view.agreement_row)
        for o in view.pending():
            gain = view.value(view.combined(o.row)) > current or not (o.row < 0).any()
            if gain and self.accepts(view, o, self.worth(view, o)):
                out.append(Action.accept(o.id))
                current = view.value(view.combined(o.row))
            else:
                out.append(Action.reject(o.id))
        if self.last_turn < view.turn:
            self.last_turn = view.turn
            out.extend(self.propose(view))
        return out

    def offer_index(self, view: PartyView, k: int) -> list[Action]:
        return [Action.make_offer(view.offer_of(view.domain.rows[int(k)]))]

    def progress(self, view: PartyView) -> float:
        return view.turn / max(view.turns - 1, 1)


class Conceder(PDA):
    label = "conceder"

    def setup(self, view: PartyView) -> None:
        self.current = self.hi

    def propose(self, view: PartyView) -> list[Action]:
        ok = self.order[self.s[self.order] > self.floor(view)]
        if ok.size == 0:
            return []
        k = ok[min(int(self.progress(view) ** 1.5 * ok.size), ok.size - 1)]
        self.current = float(self.s[k])
        return self.offer_index(view, k)

    def accepts(self, view: PartyView, offer: Offer, worth: float) -> bool:
        return worth >= 0.85 * self.current and worth > self.floor(view)


class Fair(PDA):
    label = "fair"

    def setup(self, view: PartyView) -> None:
        opp = np.mean([t.scores(view.domain.rows) for t in view.opponent_types], axis=0)
        self.opp = (opp - opp.min()) / max(float(opp.max() - opp.min()), 1e-9)
        self.mine = (self.s - self.lo) / max(self.hi - self.lo, 1e-9)

    def gap(self, view: PartyView) -> float:
        return 0.5 * (1 - self.progress(view))

    def propose(self, view: PartyView) -> list[Action]:
        ok = (self.mine - self.opp >= self.gap(view)) & (self.s > self.floor(view))
        if not ok.any():
            return []
        cand = np.flatnonzero(ok)
        return self.offer_index(view, cand[np.argmax(self.opp[cand])])

    def accepts(self, view: PartyView, offer: Offer, worth: float) -> bool:
        full = self.best_completion(view, offer.row)
        k = int(view.domain.space.flat_of_rows(full[None, :])[0])
        return self.mine[k] >= self.opp[k] - 0.05 and worth > self.floor(view)


class Bayes(PDA):
    label = "bayes"

    def setup(self, view: PartyView) -> None:
        self.types = [t.scores(view.domain.rows) for t in view.opponent_types]
        self.belief = np.full(len(self.types), 1.0 / len(self.types))
        self.seen: set[int] = set()

    def update(self, view: PartyView) -> None:
        for o in view.pending():
            if o.id in self.seen:
                continue
            self.seen.add(o.id)
            like: list[float] = []
            for t in view.opponent_types:
                full = self.types[len(like)]
                z = 0.03 * (full - full.max())
                v = 0.03 * (t.score(o.row) - full.max())
                like.append(np.exp(v) / np.exp(z).sum())
            post = self.belief * np.maximum(np.array(like), 1e-300)
            self.belief = post / post.sum()

    def threshold(self, view: PartyView) -> float:
        opp = self.types[int(np.argmax(self.belief))]
        floor = self.floor(view)
        gains = np.maximum(self.s - floor, 0) * np.maximum(opp - opp.min(), 0)
        fair = float(self.s[int(np.argmax(gains))])
        return self.hi - (self.hi - max(fair, floor)) * self.progress(view)

    def act(self, view: PartyView) -> list[Action]:
        self.update(view)
        return super().act(view)

    def propose(self, view: PartyView) -> list[Action]:
        cand = np.flatnonzero(self.s >= self.threshold(view))
        if cand.size == 0:
            return []
        return self.offer_index(view, int(self.rng.choice(cand)))

    def accepts(self, view: PartyView, offer: Offer, worth: float) -> bool:
        return worth >= self.threshold(view)


class IssueByIssue(PDA):
    label = "issues"

    def setup(self, view: PartyView) -> None:
        self.table = view.profile.table[:, :-1]
        self.widths = [len(i.values) for i in view.domain.issues]
        self.by_weight = np.argsort(-np.asarray(view.profile.weights), kind="stable")

    def limit(self, view: PartyView) -> float:
        return max(0.9 - 0.1 * (view.turn // 4), 0.4)

    def ok_value(self, i: int, k: int, limit: float) -> bool:
        vals = self.table[i, : self.widths[i]]
        lo, hi = float(vals.min()), float(vals.max())
        return hi == lo or (vals[k] - lo) / (hi - lo) >= limit

    def propose(self, view: PartyView) -> list[Action]:
        agreed = view.agreement_row
        limit = self.limit(view)
        mine = [o for o in view.my_offers() if o.is_open]
        for i in self.by_weight:
            if agreed[i] >= 0 or any(o.row[i] >= 0 for o in mine):
                continue
            vals = self.table[i, : self.widths[i]]
            good = [k for k in np.argsort(vals) if self.ok_value(int(i), int(k), limit)]
            k = int(good[0])  # the least demanding value still within the limit
            issue = view.domain.issues[int(i)]
            return [Action.make_offer({issue.name: issue.values[k]})]
        return []

    def accepts(self, view: PartyView, offer: Offer, worth: float) -> bool:
        limit = self.limit(view)
        return all(self.ok_value(i, int(k), limit) for i, k in enumerate(offer.row) if k >= 0)


class ThreatSensitive(PDA):
    label = "threats"

    def setup(self, view: PartyView) -> None:
        self.threats_seen = 0
        self.spoke = -1

    def target(self, view: PartyView) -> float:
        speed = 1.0 + 0.5 * min(self.threats_seen, 3)
        return 1.0 - 0.5 * min(self.progress(view) * speed, 1.0)

    def act(self, view: PartyView) -> list[Action]:
        self.threats_seen = sum(e.kind == Kind.THREAT for e in view.messages())
        out = super().act(view)
        pend = view.pending()
        if pend and self.spoke < view.turn:
            self.spoke = view.turn
            q = self.norm(self.worth(view, pend[-1]))
            out.append(Action.threat(0) if q < 0.5 else Action.comment(0))
        return out

    def propose(self, view: PartyView) -> list[Action]:
        goal = self.lo + self.target(view) * (self.hi - self.lo)
        cand = np.flatnonzero((self.s >= goal) & (self.s > self.floor(view)))
        if cand.size == 0:
            return []
        return self.offer_index(view, cand[np.argmin(self.s[cand])])

    def accepts(self, view: PartyView, offer: Offer, worth: float) -> bool:
        share = 0.5 if view.turn < view.turns // 2 else 1 / 3
        return self.norm(worth) >= max(share, self.norm(self.floor(view)))


class OptOutProne(PDA):
    label = "optout"

    def setup(self, view: PartyView) -> None:
        self.best_seen = -np.inf
        self.warned = False

    def bound(self, view: PartyView) -> float:
        p = min(0.05 * (view.turn + 1), 1.0)
        return float(self.s[self.order[min(int(p * self.s.size), self.s.size - 1)]])

    def act(self, view: PartyView) -> list[Action]:
        for o in view.pending():
            self.best_seen = max(self.best_seen, self.worth(view, o))
        opt = view.profile.opt_out_at(view.period) - view.period * view.profile.time_effect
        if view.turn >= view.turns // 2 and self.best_seen < opt:
            if not self.warned:
                self.warned = True
                return [Action.threat(1)]
            return [Action.opt_out()]
        return super().act(view)

    def propose(self, view: PartyView) -> list[Action]:
        cand = np.flatnonzero(self.s >= self.bound(view))
        return self.offer_index(view, int(self.rng.choice(cand)))

    def accepts(self, view: PartyView, offer: Offer, worth: float) -> bool:
        b = self.bound(view)
        return self.norm(worth) >= 0.8 * self.norm(b) and worth > self.floor(view)


class Coin(PDA):
    label = "coin"

    def setup(self, view: PartyView) -> None:
        self.types = [t.scores(view.domain.rows) for t in view.opponent_types]

    def propose(self, view: PartyView) -> list[Action]:
        opp = self.types[view.turn % len(self.types)]
        need = self.hi - 0.05 * view.turn * (self.hi - self.lo)
        cand = np.flatnonzero((self.s >= need) & (self.s > self.floor(view)))
        if cand.size == 0:
            return []
        return self.offer_index(view, cand[np.argmax(opp[cand])])

    def accepts(self, view: PartyView, offer: Offer, worth: float) -> bool:
        return worth > self.floor(view) and self.rng.random() < self.norm(worth)


class QOTemplate(PDA):
    label = "qo"

    def setup(self, view: PartyView) -> None:
        qo = np.min(
            [qo_values(self.s, t.scores(view.domain.rows)) for t in view.opponent_types], axis=0
        )
        self.list = np.argsort(-qo, kind="stable")
        self.next_value = self.hi

    def propose(self, view: PartyView) -> list[Action]:
        ok = self.list[self.s[self.list] > self.floor(view)]
        if ok.size == 0:
            return []
        k = ok[min(int(self.progress(view) * ok.size * 0.3), ok.size - 1)]
        nxt = ok[min(int((view.turn + 1) / max(view.turns - 1, 1) * ok.size * 0.3), ok.size - 1)]
        self.next_value = float(self.s[nxt])
        return self.offer_index(view, k)

    def accepts(self, view: PartyView, offer: Offer, worth: float) -> bool:
        return worth >= self.next_value


class Graft(PDA):
    label = "graft"

    def propose(self, view: PartyView) -> list[Action]:
        goal = self.hi - (self.hi - max(self.floor(view), self.lo)) * self.progress(view) * 0.8
        cand = np.flatnonzero(self.s >= goal)
        theirs = [o for o in view.offers() if o.party != view.side]
        if theirs:
            last = theirs[-1].row
            rows = view.domain.rows[cand]
            match = ((rows == last[None, :]) & (last[None, :] >= 0)).sum(axis=1)
            k = cand[np.lexsort((-self.s[cand], -match))[0]]
        else:
            k = cand[np.argmax(self.s[cand])]
        return self.offer_index(view, k)

    def accepts(self, view: PartyView, offer: Offer, worth: float) -> bool:
        goal = self.hi - (self.hi - max(self.floor(view), self.lo)) * self.progress(view)
        return worth >= goal


class Completer(PDA):
    label = "complete"

    def target(self, view: PartyView) -> float:
        return self.hi - (self.hi - max(self.floor(view), self.lo)) * self.progress(view) ** 2

    def propose(self, view: PartyView) -> list[Action]:
        agreed = view.agreement_row
        if (agreed >= 0).any():
            row = self.best_completion(view, agreed)
            if view.profile.score(row) >= self.target(view):
                return [Action.make_offer(view.offer_of(np.where(agreed >= 0, -1, row)))]
        cand = np.flatnonzero(self.s >= self.target(view))
        return self.offer_index(view, cand[np.argmin(self.s[cand])])

    def accepts(self, view: PartyView, offer: Offer, worth: float) -> bool:
        return worth >= self.target(view)


PDAS: dict[str, type[PDA]] = {
    cls.label: cls
    for cls in (
        Conceder,
        Fair,
        Bayes,
        IssueByIssue,
        ThreatSensitive,
        OptOutProne,
        Coin,
        QOTemplate,
        Graft,
        Completer,
    )
}
"""The PDA pool by name."""


def agent_names() -> list[str]:
    """Every agent name :func:`make_agent` knows (the PDAs, ``kbagent`` and
    ``kbagent-instant``: the same agent, which in studies with people answers without the
    original's human-like delay)."""
    return [*PDAS, "kbagent", "kbagent-instant"]


def make_agent(name: str, seed: int | None = None) -> GeniusAgent:
    """An agent by name, or ``module:Class`` for your own."""
    if name in PDAS:
        return PDAS[name](seed)
    if name in ("kbagent", "kbagent-instant"):  # no delay outside studies with people
        from accord.leagues.genius.kbagent import KBAgent

        return KBAgent()
    if ":" in name:  # found as every import path is (a module of the working folder too)
        factory: Callable[[], Any] = import_object(name, "agent")
        agent = factory()
        if not isinstance(agent, GeniusAgent):
            raise ConfigError(
                f"agent {name!r} is not a GENIUS agent: expected a subclass of "
                f"accord.leagues.genius.agent.GeniusAgent, got {type(agent).__name__}"
            )
        return agent
    raise ConfigError(f"unknown agent {name!r}; expected one of {agent_names()} or module:Class")
