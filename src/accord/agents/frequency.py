"""An opponent-modelling negotiator built on the frequency model.

It concedes in time like its base, :class:`~accord.agents.timebased.TimeDependent` (target
``floor + (top - floor) * (1 - t ** (1 / exponent))``), but instead of offering just any
outcome at its target it offers, among the outcomes at or above the target, the one its
:class:`~accord.agents.models.FrequencyModel` says the opponents like most (with several
opponents: the one whose least satisfied opponent is best off). It accepts an offer at
least as good as the offer it would make next, and, on its last turn before the
deadline, any offer at least as good as its reservation value.

For speed the candidates are the outcomes of a *pool* sorted by own utility (every
outcome above the floor, or for big spaces the ``pool_size`` best plus a random sample of
the rest; for spaces too big to enumerate, ``pool_size`` outcomes above the floor found
by the utility's finder, :mod:`accord.core.finder`), and only the ``window`` lowest
candidates above the target are scored.

    >>> from accord.core.generate import random_linear_scenario
    >>> from accord.core import Deadline, Session
    >>> from accord.agents.timebased import Boulware
    >>> s = random_linear_scenario(4, 5, seed=3)
    >>> result = Session(s.space, [FrequencyAgent(), Boulware()], list(s.utilities),
    ...                  Deadline(rounds=100)).run()
    >>> result.reason.value
    'agreement'
"""

from __future__ import annotations

from bisect import bisect_right

import numpy as np
import numpy.typing as npt

from accord.agents.models import FrequencyModel
from accord.agents.simple import finder
from accord.agents.timebased import TimeDependent
from accord.core.errors import ConfigError
from accord.core.finder import is_huge
from accord.core.negotiator import NegotiatorView, Response
from accord.core.outcomes import Outcome

_ACCEPT = Response.ACCEPT
_REJECT = Response.REJECT


class FrequencyAgent(TimeDependent):
    """Time-dependent target, frequency-model bidding, next-offer acceptance."""

    def __init__(
        self,
        exponent: float = 0.1,
        window: int = 256,
        pool_size: int = 20_000,
        learning_rate: float = 0.2,
        recency: float = 2.0,
        name: str | None = None,
    ) -> None:
        super().__init__(exponent, name)
        if window < 1 or pool_size < 2:
            raise ConfigError(f"window must be >= 1 and pool_size >= 2, got {window}, {pool_size}")
        self.window = int(window)
        self.pool_size = int(pool_size)
        self.learning_rate = float(learning_rate)
        self.recency = float(recency)

    # -- setup ---------------------------------------------------------------------------
    def on_start(self, view: NegotiatorView) -> None:
        # Not TimeDependent's: bids come from the pool below, no utility inverse is needed.
        space = view.space
        if not space.is_discrete:
            raise ConfigError(
                f"{type(self).__name__} needs a discrete outcome space; discretize {space!r}"
            )
        self._utility = view.utility
        if is_huge(space):
            found = finder(view.utility)
            top = found.max
            self._top, self._floor = top, min(max(view.reservation, found.min), top)
            rows, pool_values = found.pool(self.pool_size, self._floor, view.rng)
            self._rows = rows
        else:
            values = view.utility.all()
            top = float(values.max())
            floor = max(view.reservation, float(values.min()))
            self._top, self._floor = top, min(floor, top)
            flat = self._pool(values, view.rng)
            self._rows = space.rows_of_flat(flat)
            pool_values = values[flat]
        self._values: list[float] = pool_values.tolist()
        self._neg: list[float] = (-pool_values).tolist()  # ascending, for bisect
        self._power = 1.0 / self.exponent
        self._models: dict[int, FrequencyModel] = {}
        self._rejected: dict[int, tuple[int, ...]] = {}
        self._outcomes: dict[int, Outcome] = {}
        self._row_cache: dict[Outcome, tuple[int, ...]] = {}
        self._seen = 0
        self._cache_step = -1
        self._cache: Outcome | None = None
        self._cache_value = 0.0
        self._last_time: float | None = None
        self._gap = 0.0

    def _pool(
        self, values: npt.NDArray[np.float64], rng: np.random.Generator
    ) -> npt.NDArray[np.int64]:
        """Flat indices of the candidate outcomes, by own utility descending."""
        above = np.flatnonzero(values >= self._floor)
        if above.size == 0:
            above = np.array([int(values.argmax())], dtype=np.int64)
        if above.size > self.pool_size:
            half = self.pool_size // 2
            vals = values[above]
            split = np.argpartition(-vals, half)
            best, rest = above[split[:half]], above[split[half:]]
            sample = rng.choice(rest, size=self.pool_size - half, replace=False)
            above = np.concatenate([best, sample])
        order = np.argsort(-values[above], kind="stable")
        pool: npt.NDArray[np.int64] = above[order].astype(np.int64)
        return pool

    # -- strategy (``target(t)`` is TimeDependent's) ---------------------------------------
    def _observe(self, view: NegotiatorView) -> None:
        offers = view.offers
        n = len(offers)
        if n == self._seen:
            return
        me = view.index
        models = self._models
        space = view.space
        # Early offers say more about preferences than late ones, which mostly show
        # how far the opponent has conceded.
        weight = (1.0 - view.time) ** self.recency
        rows = self._row_cache
        for k in range(self._seen, n):
            party, outcome = offers[k]
            if party == me:
                continue
            model = models.get(party)
            if model is None:
                model = models[party] = FrequencyModel(space, self.learning_rate)
            row = rows.get(outcome)
            if row is None:
                row = rows[outcome] = space.row_of(outcome)
            model.update_row(row, weight)
            if k > 0 and offers[k - 1][0] == me:  # it turned down our offer
                mine = offers[k - 1][1]
                row = rows.get(mine)
                if row is None:
                    row = rows[mine] = space.row_of(mine)
                self._rejected[party] = row
        self._seen = n

    def _next_offer(self, view: NegotiatorView) -> Outcome:
        """The offer this negotiator would make now (cached for the current step)."""
        if view.step == self._cache_step and self._cache is not None:
            return self._cache
        self._observe(view)
        target = self.target(view.time)
        end = max(1, bisect_right(self._neg, -target + 1e-12))
        start = max(0, end - self.window)
        pick = start
        if self._models and end - start > 1:
            pick = start + self._choose(self._rows[start:end])
        outcome = self._outcomes.get(pick)
        if outcome is None:
            outcome = self._outcomes[pick] = view.space.outcome_of_row(self._rows[pick])
        self._cache_step, self._cache, self._cache_value = view.step, outcome, self._values[pick]
        return outcome

    def _choose(self, rows: npt.NDArray[np.int64]) -> int:
        """Position (in ``rows``, by own utility descending) of the outcome to offer.

        The first (best for us) outcome that every model predicts its opponent values at
        least as much as that opponent's own latest offer and more than our latest offer
        it turned down; failing that, the one whose least satisfied opponent is best off.
        """
        scores: npt.NDArray[np.float64] | None = None
        liked: npt.NDArray[np.bool_] | None = None
        fresh: npt.NDArray[np.bool_] | None = None
        for party, model in self._models.items():
            s = model.predict_rows(rows)
            last = model.last_row
            assert last is not None
            good = s >= model.predict_row(last) - 1e-12
            turned_down = self._rejected.get(party)
            new = (
                s > model.predict_row(turned_down) + 1e-12
                if turned_down is not None
                else np.ones(s.size, dtype=bool)
            )
            scores = s if scores is None else np.minimum(scores, s)
            liked = good if liked is None else liked & good
            fresh = new if fresh is None else fresh & new
        assert scores is not None and liked is not None and fresh is not None
        hits = np.flatnonzero(liked & fresh)
        if hits.size:
            return int(hits[0])
        if fresh.any():
            return int(np.where(fresh, scores, -np.inf).argmax())
        return int(rows.shape[0] - 1)

    def _last_turn(self, t: float) -> bool:
        """True if, by the spacing of its earlier turns, this is its last turn."""
        last = self._last_time
        if last is not None and t > last:
            self._gap = t - last
        self._last_time = t
        return self._gap > 0 and t + self._gap >= 1.0 - 1e-9

    def propose(self, view: NegotiatorView) -> Outcome | None:
        return self._next_offer(view)

    def respond(self, view: NegotiatorView, offer: Outcome) -> Response:
        value = self._utility(offer)
        last = self._last_turn(view.time)
        if last and value >= self._utility.reservation:
            return _ACCEPT
        self._next_offer(view)
        # Next-offer criterion: at least what our next offer would ask for, or what our
        # target will be by our next turn if that is less (our next offer may probe
        # above the target).
        bar = min(self._cache_value, self.target(min(1.0, view.time + self._gap)))
        return _ACCEPT if value >= bar else _REJECT
