"""Baseline agents: always reliable, never reliable, greedy and random.

All but ``random`` negotiate the same plain way: propose the exchange (at most three chips
a side) that maximises the sum of both players' best reachable scores, ties broken towards
their own score; accept an offer that does not lower their own best score. They differ in
transfer: ``reliable`` sends what it promised, ``unreliable`` sends nothing (and, knowing
it, accepts anything that brings it chips), ``greedy`` proposes and accepts for its own
score only and sends what it promised only when that does not lower its own best score.
``random`` proposes, answers and sends at random.
"""

from __future__ import annotations

from accord.leagues.trails.agent import Agent, View, sub_vectors
from accord.leagues.trails.engine import Propose

__all__ = ["BASELINES", "Greedy", "PromiseBreaker", "RandomAgent", "Reliable", "Unreliable"]


def _other(view: View) -> tuple[int, ...]:
    """The partner's chips: seen, or (hidden) as many as its own spread evenly over the
    colours (the generator deals both players alike), as PURB's prior."""
    if view.other_chips is not None:
        return view.other_chips
    n = len(view.chips)
    return (int(sum(view.chips) / n + 0.5),) * n


def _after(
    view: View, give: tuple[int, ...], take: tuple[int, ...]
) -> tuple[tuple[int, ...], tuple[int, ...] | None]:
    mine = tuple(a - g + t for a, g, t in zip(view.chips, give, take, strict=True))
    other = _other(view)
    return mine, tuple(max(0, b + g - t) for b, g, t in zip(other, give, take, strict=True))


class Reliable(Agent):
    """Proposes joint-gain trades, accepts offers that do not hurt it, keeps its word."""

    name = "reliable"
    selfish = False

    def propose(self, view: View) -> Propose | None:
        other = _other(view)
        base = view.best(view.me, view.chips)
        best: tuple[float, float] = (float("-inf"), float("-inf"))
        choice = None
        for give in sub_vectors(view.chips, 3):
            for take in sub_vectors(other, 3):
                if any(g and t for g, t in zip(give, take, strict=True)) or not (
                    any(give) or any(take)
                ):
                    continue
                mine, theirs = _after(view, give, take)
                own = view.best(view.me, mine)
                if own < base:
                    continue
                joint = (
                    own if self.selfish or theirs is None else own + view.best(view.other, theirs)
                )
                key = (joint, own)
                if key > best:
                    best, choice = key, Propose(give, take)
        return choice

    def respond(self, view: View, proposal: Propose) -> bool:
        if any(g > h for g, h in zip(proposal.take, view.chips, strict=True)):
            return False
        mine, _ = _after(view, proposal.take, proposal.give)
        gain = view.best(view.me, mine) - view.best(view.me, view.chips)
        return gain > 0 if self.selfish else gain >= 0


class PromiseBreaker(Agent):
    """The answers of a player who breaks its promises: it accepts any proposal that
    brings it chips and never sends a promised chip (mixed into :class:`Unreliable`
    and into the test suite's exploiters)."""

    def respond(self, view: View, proposal: Propose) -> bool:
        return any(proposal.give)

    def transfer(
        self, view: View, promised: tuple[int, ...], expected: tuple[int, ...]
    ) -> tuple[int, ...]:
        return (0,) * len(promised)


class Unreliable(PromiseBreaker, Reliable):
    """Negotiates like :class:`Reliable` but never sends a promised chip."""

    name = "unreliable"


class Greedy(Reliable):
    """Proposes and accepts for its own score; sends only what does not cost it points."""

    name = "greedy"
    selfish = True

    def transfer(
        self, view: View, promised: tuple[int, ...], expected: tuple[int, ...]
    ) -> tuple[int, ...]:
        after = tuple(a - p + e for a, p, e in zip(view.chips, promised, expected, strict=True))
        kept = tuple(a + e for a, e in zip(view.chips, expected, strict=True))
        if view.best(view.me, after) >= view.best(view.me, kept):
            return promised
        return (0,) * len(promised)


class RandomAgent(Agent):
    """Random proposals (up to two chips a side), answers and transfers."""

    name = "random"

    def propose(self, view: View) -> Propose | None:
        other = view.other_chips if view.other_chips is not None else (1,) * len(view.chips)
        gives, takes = list(sub_vectors(view.chips, 2)), list(sub_vectors(other, 2))
        give = gives[int(self.rng.integers(0, len(gives)))]
        take = takes[int(self.rng.integers(0, len(takes)))]
        return Propose(give, take) if any(give) or any(take) else None

    def respond(self, view: View, proposal: Propose) -> bool:
        return bool(self.rng.random() < 0.5)

    def transfer(
        self, view: View, promised: tuple[int, ...], expected: tuple[int, ...]
    ) -> tuple[int, ...]:
        return tuple(int(self.rng.integers(0, p + 1)) for p in promised)


BASELINES: dict[str, type[Agent]] = {
    "reliable": Reliable,
    "unreliable": Unreliable,
    "greedy": Greedy,
    "random": RandomAgent,
}
