"""Simulated people: scripted person models, a population between the PDAs and real people.

Each model is a plain agent with a behaviour people show in Colored Trails studies
(cooperation, reciprocity, opportunism, good intentions with lapses). They negotiate like
the ``reliable`` baseline (propose the trade with the largest joint score that does not
lower their own; answer by their own best score) and differ in what they accept and send:

- ``sim-cooperative``: accepts an offer that costs it at most one chip's worth (5 points)
  and keeps every promise, the helpful partner many people are with an agent they trust.
- ``sim-reciprocal``: tit for tat on transfers: keeps its first promise in full, then sends
  the share of each promise that the partner sent of its own on the previous deal.
- ``sim-opportunist``: keeps its promises while it still needs the partner (it cannot reach
  its goal with its own chips) and sends nothing once it can; it accepts only offers that
  raise its score. This is how people exploited a highly reliable agent in the paper.
- ``sim-forgetful``: cooperative, but sends each promised chip only with probability
  ``keep`` (0.7): it means to keep its word and sometimes does not.

    >>> from accord.leagues.trails.generator import generate
    >>> from accord.leagues.trails.match import play
    >>> r = play(generate("mutual", 3), ["sim-reciprocal", "unreliable"], seed=0)
    >>> [(h["promised"][0], h["sent"][0]) for h in r["history"] if h["accepted"]]
    [([2, 1, 0, 0], [2, 1, 0, 0])]
"""

from __future__ import annotations

import numpy as np

from accord.leagues.trails.agent import Agent, View
from accord.leagues.trails.baselines import Reliable
from accord.leagues.trails.engine import Propose, TurnRecord

__all__ = ["SIMULATED_PEOPLE", "Cooperative", "Forgetful", "Opportunist", "Reciprocal"]


def _gain(view: View, proposal: Propose) -> int:
    """The responder's change of best reachable score if the offer is carried out."""
    mine = tuple(
        a - t + g for a, g, t in zip(view.chips, proposal.give, proposal.take, strict=True)
    )
    return view.best(view.me, mine) - view.best(view.me, view.chips)


def _holds(view: View, proposal: Propose) -> bool:
    return all(t <= h for t, h in zip(proposal.take, view.chips, strict=True))


class Cooperative(Reliable):
    """Accepts what costs it at most ``tolerance`` points; keeps every promise."""

    name = "sim-cooperative"
    tolerance = 5

    def respond(self, view: View, proposal: Propose) -> bool:
        return _holds(view, proposal) and _gain(view, proposal) >= -self.tolerance


class Reciprocal(Reliable):
    """Sends the share of its promise that the partner sent on the previous deal."""

    name = "sim-reciprocal"

    def start(self, me: int, rng: np.random.Generator) -> None:
        super().start(me, rng)
        self.share = 1.0

    def transfer(
        self, view: View, promised: tuple[int, ...], expected: tuple[int, ...]
    ) -> tuple[int, ...]:
        return _first(promised, round(self.share * sum(promised)))

    def observe(self, view: View, record: TurnRecord) -> None:
        other = 1 - self.me
        promised = sum(record.promised[other]) if record.accepted else 0
        if promised:
            self.share = min(sum(record.sent[other]), promised) / promised


class Opportunist(Reliable):
    """Keeps its word only while it needs the partner; accepts only gains."""

    name = "sim-opportunist"

    def respond(self, view: View, proposal: Propose) -> bool:
        return _holds(view, proposal) and _gain(view, proposal) > 0

    def transfer(
        self, view: View, promised: tuple[int, ...], expected: tuple[int, ...]
    ) -> tuple[int, ...]:
        if view.independent(view.me, view.chips):
            return (0,) * len(promised)
        return promised


class Forgetful(Cooperative):
    """Cooperative, but each promised chip is sent with probability ``keep``."""

    name = "sim-forgetful"
    keep = 0.7

    def transfer(
        self, view: View, promised: tuple[int, ...], expected: tuple[int, ...]
    ) -> tuple[int, ...]:
        return tuple(int(self.rng.binomial(p, self.keep)) for p in promised)


def _first(promised: tuple[int, ...], n: int) -> tuple[int, ...]:
    """``n`` of the promised chips, taken colour by colour."""
    out = []
    for p in promised:
        k = min(p, max(n, 0))
        out.append(k)
        n -= k
    return tuple(out)


SIMULATED_PEOPLE: dict[str, type[Agent]] = {
    "sim-cooperative": Cooperative,
    "sim-reciprocal": Reciprocal,
    "sim-opportunist": Opportunist,
    "sim-forgetful": Forgetful,
}
