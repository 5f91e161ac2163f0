"""Two baseline negotiators: the hardliner and the random negotiator.

>>> from accord.core.generate import random_linear_scenario
>>> from accord.core import Deadline, Session
>>> s = random_linear_scenario(3, 5, seed=0)
>>> result = Session(s.space, [Hardliner(), RandomNegotiator()], list(s.utilities),
...                  Deadline(rounds=20), seed=1).run()
>>> result.reason.value in ("agreement", "deadline")
True
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from accord.core.errors import ConfigError
from accord.core.finder import SortedOutcomes, is_huge
from accord.core.inverse import inverse_of
from accord.core.negotiator import Negotiator, NegotiatorView, Response
from accord.core.outcomes import Outcome
from accord.core.utilities import UtilityFunction

_ACCEPT = Response.ACCEPT
_REJECT = Response.REJECT


class Hardliner(Negotiator):
    """Offers only its best outcome and accepts only an offer that is as good."""

    def __init__(self, name: str | None = None) -> None:
        super().__init__(name)
        self._best: Outcome | None = None
        self._top = 1.0

    def on_start(self, view: NegotiatorView) -> None:
        self._best = view.best_outcome
        self._top = view.utility(self._best)
        self._utility = view.utility

    def propose(self, view: NegotiatorView) -> Outcome | None:
        return self._best

    def respond(self, view: NegotiatorView, offer: Outcome) -> Response:
        return _ACCEPT if self._utility(offer) >= self._top - 1e-12 else _REJECT


class RandomNegotiator(Negotiator):
    """Offers uniformly random outcomes that are at least as good as its reservation
    value (any outcome if none is) and accepts such an offer with probability
    ``accept_probability``. Every draw comes from the session's seeded ``view.rng``.
    In a space too big to enumerate it draws from a pool of up to ``pool_size`` such
    outcomes found by the utility's finder (:mod:`accord.core.finder`).
    """

    pool_size = 2_000

    def __init__(self, accept_probability: float = 0.5, name: str | None = None) -> None:
        super().__init__(name)
        if not 0.0 <= accept_probability <= 1.0:
            raise ConfigError(f"accept_probability must be in [0, 1], got {accept_probability}")
        self.accept_probability = float(accept_probability)
        self._rational: npt.NDArray[np.int64] | None = None

    def on_start(self, view: NegotiatorView) -> None:
        self._utility = view.utility
        self._reservation = view.reservation
        self._rational = None
        self._pool: list[Outcome] = []
        if is_huge(view.space):
            floor = view.reservation
            rows, _ = finder(view.utility).pool(self.pool_size, floor, view.rng)
            self._pool = [view.space.outcome_of_row(r) for r in rows]
        elif view.space.is_discrete:
            values = view.utility.all()
            ok = np.flatnonzero(values >= view.reservation)
            self._rational = ok if ok.size else np.arange(values.size, dtype=np.int64)

    def propose(self, view: NegotiatorView) -> Outcome | None:
        rng = view.rng
        if self._pool:
            return self._pool[int(rng.integers(len(self._pool)))]
        if self._rational is not None:
            pick = self._rational[int(rng.integers(self._rational.size))]
            return view.space.outcome_at(int(pick))
        for _ in range(20):
            outcome = view.space.sample(1, rng)[0]
            if self._utility(outcome) >= self._reservation:
                return outcome
        return outcome

    def respond(self, view: NegotiatorView, offer: Outcome) -> Response:
        if (
            self._utility(offer) >= self._reservation
            and view.rng.random() < self.accept_probability
        ):
            return _ACCEPT
        return _REJECT


def finder(utility: UtilityFunction) -> SortedOutcomes:
    """The shared finder of a utility on a space too big to enumerate."""
    inv = inverse_of(utility)
    assert isinstance(inv, SortedOutcomes)
    return inv
