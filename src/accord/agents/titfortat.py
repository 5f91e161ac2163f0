"""Relative tit-for-tat: concede exactly as much as the other side has conceded.

The opponents' concession is measured with their offers, in this negotiator's own
utility: how much better (for us) their best offer so far is than their first one.
The negotiator starts at its best outcome and lowers its target by that amount times
``reciprocity`` (never below its reservation value or its worst outcome), offers the
outcome closest above the target and accepts an offer at least as good as the target.

    >>> from accord.core.generate import random_linear_scenario
    >>> from accord.core import Deadline, Session
    >>> from accord.agents.timebased import Conceder
    >>> s = random_linear_scenario(3, 5, seed=0)
    >>> result = Session(s.space, [TitForTat(), Conceder()], list(s.utilities),
    ...                  Deadline(rounds=50)).run()
    >>> result.reason.value
    'agreement'
"""

from __future__ import annotations

from accord.agents.timebased import target_range
from accord.core.errors import ConfigError
from accord.core.inverse import Inverse
from accord.core.negotiator import Negotiator, NegotiatorView, Response
from accord.core.outcomes import Outcome

_ACCEPT = Response.ACCEPT
_REJECT = Response.REJECT


class TitForTat(Negotiator):
    """Mirrors the opponents' concession (measured in its own utility)."""

    def __init__(
        self, reciprocity: float = 1.0, initial: float = 0.0, name: str | None = None
    ) -> None:
        super().__init__(name)
        if not reciprocity >= 0:
            raise ConfigError(f"reciprocity must be >= 0, got {reciprocity}")
        if not 0.0 <= initial <= 1.0:
            raise ConfigError(f"initial concession must be in [0, 1], got {initial}")
        self.reciprocity = float(reciprocity)
        self.initial = float(initial)
        self._inverse: Inverse | None = None

    def on_start(self, view: NegotiatorView) -> None:
        self._inverse, self._floor, self._top = target_range(view)
        self._utility = view.utility
        self._seen = 0
        self._first: float | None = None
        self._best_received = -float("inf")

    def _observe(self, view: NegotiatorView) -> None:
        offers = view.offers
        n = len(offers)
        if n == self._seen:
            return
        me = view.index
        u = self._utility
        for k in range(self._seen, n):
            party, outcome = offers[k]
            if party == me:
                continue
            value = u(outcome)
            if self._first is None:
                self._first = value
            if value > self._best_received:
                self._best_received = value
        self._seen = n

    def target(self) -> float:
        """The utility currently aimed at."""
        conceded = 0.0 if self._first is None else self._best_received - self._first
        drop = self.initial * (self._top - self._floor) + self.reciprocity * max(conceded, 0.0)
        return max(self._floor, self._top - drop)

    def propose(self, view: NegotiatorView) -> Outcome | None:
        assert self._inverse is not None
        self._observe(view)
        return self._inverse.at_least(self.target())

    def respond(self, view: NegotiatorView, offer: Outcome) -> Response:
        self._observe(view)
        return _ACCEPT if self._utility(offer) >= self.target() else _REJECT
