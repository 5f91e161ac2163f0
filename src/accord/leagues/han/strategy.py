"""Shared pieces of the example agents and simulated participants: offers for a target,
acceptance on a schedule, reading the other side's statements.

    >>> from accord.leagues.han.api import GameView
    >>> from accord.leagues.han.domain import EXAMPLE_1
    >>> v = GameView.of(EXAMPLE_1, "agent")
    >>> o = offer_for(v, 25)
    >>> v.points(o), o.full
    (26, True)
"""

from __future__ import annotations

from collections.abc import Sequence

from accord.leagues.han.api import GameView
from accord.leagues.han.domain import Offer
from accord.leagues.han.events import Event, Relation

__all__ = ["estimate_from", "max_points", "mine", "offer_for"]


def max_points(v: GameView) -> int:
    return sum(q * x for q, x in zip(v.quantities, v.values, strict=True))


def offer_for(v: GameView, target: float, other: Sequence[float] | None = None) -> Offer:
    """A full offer giving me at least ``target`` points (if possible), keeping the items
    worth most to me relative to the other side's estimated values ``other``."""
    n = len(v.issues)
    other = list(other) if other is not None else [1.0] * n
    order = sorted(range(n), key=lambda i: (-(v.values[i] + 0.01) / (other[i] + 0.5), i))
    take = [0] * n
    got = 0
    for i in order:
        for _ in range(v.quantities[i]):
            if got >= target:
                break
            take[i] += 1
            got += v.values[i]
    return v.split(take)


def mine(v: GameView, offer: Offer | None) -> int:
    """My points for ``offer`` (0 if none)."""
    return 0 if offer is None else v.points(offer)


def estimate_from(heard: Sequence[Event], n: int) -> list[float]:
    """The other side's values as far as its (possibly untrue) statements say."""
    est = [1.0] * n
    for e in heard:
        p = e.preference
        if p is None or p.query or not 0 <= p.issue1 < n:
            continue
        if p.relation is Relation.BEST:
            est[p.issue1] += 2
        elif p.relation is Relation.WORST:
            est[p.issue1] = max(0.0, est[p.issue1] - 1)
        elif 0 <= p.issue2 < n and p.relation is Relation.GREATER_THAN:
            est[p.issue1] += 1
        elif 0 <= p.issue2 < n and p.relation is Relation.LESS_THAN:
            est[p.issue2] += 1
    return est
