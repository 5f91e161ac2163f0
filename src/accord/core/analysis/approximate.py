"""Candidate outcomes for analysing a space too big to enumerate (and not made of cells).

The frontier, Nash, Kalai and welfare points are then computed over candidates only:

* when every profile is linear additive, the maximiser of any weighted sum of the
  utilities is found issue by issue (the sum is separable), so each weight vector gives
  an exact *supported* Pareto-optimal outcome (the maximum welfare one among them);
* each profile's finder (:mod:`accord.core.finder`) adds outcomes spread from its best
  to its worst utility.

Points of the true frontier that no weighted sum reaches may be missed, so distances to
the frontier are approximate; :func:`candidate_note` says so in one line.

    >>> from accord.core.outcomes import IntegerIssue, OutcomeSpace
    >>> from accord.core.utilities import LinearAdditiveUtility
    >>> space = OutcomeSpace([IntegerIssue(f"i{k}", 0, 9) for k in range(7)])
    >>> up = LinearAdditiveUtility(space, [1.0] * 7, [{v: v for v in range(10)}] * 7)
    >>> down = LinearAdditiveUtility(space, [1.0] * 7, [{v: 9 - v for v in range(10)}] * 7)
    >>> rows, how = candidate_rows([up, down], per_party=100)
    >>> bool((up.batch(rows) + down.batch(rows) == 1.0).any())
    True
    >>> how.split(" and ")[0]
    'weighted-sum optima per issue (exact supported Pareto points)'
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from accord.core.finder import finder_for
from accord.core.outcomes import IndexRows
from accord.core.utilities import LinearAdditiveUtility, UtilityFunction


def candidate_rows(
    utilities: Sequence[UtilityFunction], weights: int = 401, per_party: int = 5_000, seed: int = 0
) -> tuple[IndexRows, str]:
    """Distinct candidate index rows and how they were found (in words)."""
    rng = np.random.default_rng(seed)
    parts: list[IndexRows] = []
    how = []
    additive = [u for u in utilities if isinstance(u, LinearAdditiveUtility) and u.tables]
    if len(additive) == len(utilities):
        n = len(additive)
        if n == 2:
            w1 = np.linspace(0.0, 1.0, weights)
            grid = np.column_stack([w1, 1.0 - w1])
        else:
            grid = np.vstack(
                [np.eye(n), np.full((1, n), 1.0 / n), rng.dirichlet(np.ones(n), weights)]
            )
        columns = []
        for k in range(len(additive[0].tables)):
            table = np.stack([u.tables[k] for u in additive])  # (parties, values)
            columns.append((grid @ table).argmax(axis=1))
        parts.append(np.column_stack(columns).astype(np.int64))
        how.append("weighted-sum optima per issue (exact supported Pareto points)")
    for u in utilities:
        f = finder_for(u)
        rows, _ = f.pool(per_party, f.min, rng)
        parts.append(rows)
    how.append("outcomes spread over each profile's utility range")
    return np.unique(np.concatenate(parts), axis=0), " and ".join(how)


def candidate_note(cardinality: int, n_candidates: int, how: str) -> str:
    """The one line a report prints for an analysis over candidates.

    >>> candidate_note(10**10, 1234, "sampled")
    'analysis approximated: 10000000000 outcomes are too many to enumerate, so the Pareto frontier, Nash and Kalai points come from 1234 candidate outcomes (sampled); distances to them are approximate'
    """
    return (
        f"analysis approximated: {cardinality} outcomes are too many to enumerate, so the "
        f"Pareto frontier, Nash and Kalai points come from {n_candidates} candidate outcomes "
        f"({how}); distances to them are approximate"
    )
