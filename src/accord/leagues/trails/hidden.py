"""A model of a partner's hidden chips (``visibility="own"``), used by PURB.

Two views of the same evidence:

- ``counts``: the expected count per colour (the prior spread evenly, then transfers both
  ways, the colours of the partner's steps, a colour raised to what the partner offered
  of it, a refused request lowering the asked colours); PURB plans on it as if it saw it.
- :meth:`ChipBelief.hands`: hands drawn from the generator's deal (``total`` chips, each
  colour equally likely, a multinomial) and kept only when they agree with the hard
  evidence: every chip the partner offered, sent or paid for a step it held; and, once it
  has had a movement phase away from home, it could not walk to its goal (an agent walks
  home when it can). PURB asks these hands how likely a transfer is to free the partner.

    >>> b = ChipBelief.even(6, 3)
    >>> b.rounded()
    (2, 2, 2)
    >>> b.offered((4, 0, 0))      # the partner offered four of colour 0: it holds them
    >>> b.rounded(), sorted({h[0] for h in b.hands()})[0] >= 4
    ((4, 2, 2), True)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

__all__ = ["ChipBelief"]

Hand = tuple[int, ...]


@dataclass
class ChipBelief:
    """PURB's estimate of a partner's chips it cannot see."""

    counts: list[float]
    total: int = 0
    delta: list[int] = field(default_factory=list)
    floor: list[int] = field(default_factory=list)
    stuck: tuple[int, Hand] | None = None
    asked: tuple[int, Hand, Hand] | None = None
    unlikely: float = 0.25
    draws: int = 256
    seed: int = 0

    def __post_init__(self) -> None:
        n = len(self.counts)
        self.delta = self.delta or [0] * n
        self.floor = self.floor or [0] * n
        self._hands: list[Hand] | None = None
        self._key: object = None

    @classmethod
    def even(cls, total: int, n_colors: int) -> ChipBelief:
        """The prior: ``total`` chips spread evenly over the colours.

        >>> ChipBelief.even(6, 4).rounded()
        (2, 2, 2, 2)
        """
        return cls([total / n_colors] * n_colors, total=total)

    # --- evidence -------------------------------------------------------------
    def add(self, chips: Sequence[int], sign: int = 1) -> None:
        """Chips that reached (``sign`` 1) or left (-1) the partner."""
        for c, n in enumerate(chips):
            self.counts[c] = max(0.0, self.counts[c] + sign * int(n))
            self.delta[c] += sign * int(n)
            if sign < 0:  # it held them: its dealt hand had at least this many
                self.floor[c] = max(self.floor[c], -self.delta[c])

    def at_least(self, chips: Sequence[int]) -> None:
        """It holds at least ``chips`` now (it offered them)."""
        for c, n in enumerate(chips):
            self.counts[c] = max(self.counts[c], float(n))
            self.floor[c] = max(self.floor[c], int(n) - self.delta[c])

    offered = at_least

    def fewer_than(self, chips: Sequence[int]) -> None:
        """A refused request: perhaps it holds fewer of the colours asked for (soft: the
        expected counts only; a partner may refuse for other reasons)."""
        for c, n in enumerate(chips):
            if n:
                self.counts[c] = max(0.0, min(self.counts[c], n - 1.0))

    def cannot_reach(self, position: int) -> None:
        """After a movement phase it is away from home from ``position``: its chips now do
        not pay for a path to its goal."""
        self.stuck = (position, tuple(self.delta))

    def requested(self, position: int, take: Sequence[int]) -> None:
        """It asked for ``take`` from ``position``: a hand that these chips would free is
        more likely (weight 1) than one they would not (weight :attr:`unlikely`)."""
        self.asked = (position, tuple(self.delta), tuple(int(x) for x in take))

    def rounded(self) -> Hand:
        return tuple(int(np.floor(x + 0.5)) for x in self.counts)

    # --- hands ----------------------------------------------------------------
    def hands(self, reaches: Callable[[int, Hand], bool] | None = None) -> list[Hand]:
        """Hands the partner may hold now, drawn from the deal and kept when they agree
        with the evidence (``reaches(position, hand)`` tells whether a hand pays for a path
        home from a cell; without it the "could not walk home" evidence is not used).
        Deterministic: a fixed seed and :attr:`draws` draws; empty when none agree."""
        key = (tuple(self.floor), tuple(self.delta), self.stuck, reaches is not None)
        if self._hands is not None and self._key == key:
            return self._hands
        n = len(self.counts)
        rng = np.random.default_rng(self.seed)
        dealt = rng.multinomial(self.total, [1.0 / n] * n, size=self.draws)
        ok = (dealt >= np.array(self.floor)).all(axis=1)
        out: list[Hand] = []
        for row in dealt[ok]:
            if reaches is not None and self.stuck is not None:
                pos, then = self.stuck
                if reaches(pos, tuple(int(x + d) for x, d in zip(row, then, strict=True))):
                    continue
            out.append(tuple(max(0, int(x + d)) for x, d in zip(row, self.delta, strict=True)))
        self._hands, self._key = out, key
        return out

    def free_risk(
        self,
        hands: Sequence[Hand],
        send: Hand,
        free: Callable[[Hand], bool],
        reaches: Callable[[int, Hand], bool] | None = None,
    ) -> float:
        """The (weighted) share of ``hands`` that ``send`` would free (``free(hand)``: the
        partner can walk home with it), among those that are not free already; with
        ``reaches``, a hand its last request would have freed weighs 1, another
        :attr:`unlikely` (:meth:`requested`)."""
        total = risky = 0.0
        for h in hands:
            if free(h):
                continue
            w = 1.0
            if reaches is not None and self.asked is not None:
                pos, then, take = self.asked
                now = tuple(a - d + t for a, d, t in zip(h, self.delta, then, strict=True))
                w = 1.0 if reaches(pos, _plus(now, take)) else self.unlikely
            total += w
            if free(_plus(h, send)):
                risky += w
        return risky / total if total else 0.0


def _plus(a: Hand, b: Hand) -> Hand:
    return tuple(x + y for x, y in zip(a, b, strict=True))
