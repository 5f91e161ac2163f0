"""Opponent models: estimates of another party's preferences from its offers.

:class:`FrequencyModel` is the classic frequency model: a value the opponent offers
often is a value it likes, and an issue whose value rarely changes between two of its
consecutive offers is an issue it cares about. It predicts a linear additive utility
``sum_i w_i * e_i(v_i)`` with

* ``e_i(v) = (count_i(v) + 1) / (max_v count_i(v) + 1)`` (so the favourite value scores 1),
  where ``count_i(v)`` adds up the weights of the offers with value ``v`` (1 each unless
  the caller weighs offers, e.g. early ones more than late ones),
* ``w_i`` starting at ``1 / issues`` and growing by ``learning_rate`` each time issue ``i``
  keeps its value from one offer to the next, divided by their sum.

Updates are incremental (``O(issues)`` per offer).

    >>> from accord.core.outcomes import CategoricalIssue, OutcomeSpace
    >>> space = OutcomeSpace([CategoricalIssue("a", ["x", "y"]), CategoricalIssue("b", ["p", "q"])])
    >>> m = FrequencyModel(space)
    >>> for offer in [("x", "p"), ("x", "q"), ("x", "p")]:
    ...     m.update(offer)
    >>> [round(w, 3) for w in m.weights]
    [0.643, 0.357]
    >>> round(m.predict(("x", "p")), 3), round(m.predict(("y", "q")), 3)
    (1.0, 0.399)
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from accord.core.errors import ConfigError
from accord.core.outcomes import Outcome, OutcomeSpace

FloatArray = npt.NDArray[np.float64]


class FrequencyModel:
    """Frequency model of one opponent over a discrete outcome space."""

    __slots__ = (
        "space",
        "learning_rate",
        "counts",
        "observed",
        "_raw",
        "_total",
        "_last",
        "_tables",
    )

    def __init__(self, space: OutcomeSpace, learning_rate: float = 0.2) -> None:
        if not space.is_discrete:
            raise ConfigError(f"a frequency model needs a discrete outcome space, got {space!r}")
        if not learning_rate >= 0:
            raise ConfigError(f"learning_rate must be >= 0, got {learning_rate}")
        self.space = space
        self.learning_rate = float(learning_rate)
        self.counts: list[list[float]] = [[0.0] * int(r) for r in space.radices]
        k = len(space.issues)
        self._raw: list[float] = [1.0 / k] * k  # unnormalised issue weights
        self._total = 1.0
        self.observed = 0
        self._last: tuple[int, ...] | None = None
        self._tables: list[FloatArray] | None = None

    def update(self, offer: Outcome, weight: float = 1.0) -> None:
        """Record one offer made by the opponent (``weight``: how much it counts)."""
        self.update_row(self.space.row_of(offer), weight)

    def update_row(self, row: tuple[int, ...], weight: float = 1.0) -> None:
        """Record one offer given as value indices."""
        counts = self.counts
        for i, v in enumerate(row):
            counts[i][v] += weight
        last = self._last
        if last is not None and self.learning_rate > 0:
            w = self._raw
            rate = self.learning_rate
            for i, (a, b) in enumerate(zip(last, row, strict=True)):
                if a == b:
                    w[i] += rate
                    self._total += rate
        self._last = row
        self.observed += 1
        self._tables = None

    @property
    def weights(self) -> list[float]:
        """Estimated issue weights (summing to 1)."""
        total = self._total
        return [w / total for w in self._raw]

    @property
    def last_row(self) -> tuple[int, ...] | None:
        """Value indices of the opponent's latest offer (None before its first)."""
        return self._last

    def evaluation(self, issue: int, value_index: int) -> float:
        """Estimated evaluation (in [0, 1]) of a value of an issue."""
        c = self.counts[issue]
        return (c[value_index] + 1) / (max(c) + 1)

    def predict(self, outcome: Outcome) -> float:
        """Estimated opponent utility of an outcome (in [0, 1])."""
        return self.predict_row(self.space.row_of(outcome))

    def predict_row(self, row: tuple[int, ...] | list[int]) -> float:
        """Estimated opponent utility of an outcome given as value indices."""
        total = 0.0
        raw = self._raw
        for i, v in enumerate(row):
            c = self.counts[i]
            total += raw[i] * (c[v] + 1) / (max(c) + 1)
        return total / self._total

    def tables(self) -> list[FloatArray]:
        """Per issue, ``w_i * e_i(v)`` for every value index (cached until the next update)."""
        if self._tables is None:
            out = []
            for w, c in zip(self.weights, self.counts, strict=True):
                arr = np.asarray(c, dtype=np.float64) + 1.0
                out.append(arr * (w / arr.max()))
            self._tables = out
        return self._tables

    def predict_rows(self, rows: npt.NDArray[np.int64]) -> FloatArray:
        """Estimated opponent utilities of many index rows (shape ``(n, issues)``)."""
        tables = self.tables()
        acc = tables[0][rows[:, 0]]
        for i in range(1, len(tables)):
            acc = acc + tables[i][rows[:, i]]
        return acc
