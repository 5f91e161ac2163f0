"""Random scenarios for tests, benchmarks and experiments.

>>> s = random_linear_scenario(3, 5, n_parties=2, seed=0)
>>> s.space.cardinality, s.n_parties
(125, 2)
"""

from __future__ import annotations

import numpy as np

from accord.core.outcomes import CategoricalIssue, OutcomeSpace
from accord.core.scenario import Scenario
from accord.core.utilities import LinearAdditiveUtility


def random_linear_scenario(
    n_issues: int,
    n_values: int,
    n_parties: int = 2,
    seed: int = 0,
    reservation: float = 0.0,
    discount: float | None = None,
) -> Scenario:
    """An ``n_issues x n_values`` issue-by-value domain with random linear additive profiles.

    Weights and evaluations are drawn uniformly from (0.01, 1.01) and then normalised the
    GENIUS way, so every profile's best outcome has utility 1.
    """
    rng = np.random.default_rng(seed)
    space = OutcomeSpace(
        [CategoricalIssue(f"i{k}", [f"v{j}" for j in range(n_values)]) for k in range(n_issues)]
    )
    utilities = tuple(
        LinearAdditiveUtility(
            space,
            (rng.random(n_issues) + 0.01).tolist(),
            [
                dict(zip(issue.values(), (rng.random(n_values) + 0.01).tolist(), strict=True))
                for issue in space.issues
            ],
            reservation=reservation,
            discount=discount,
        )
        for _ in range(n_parties)
    )
    return Scenario(f"random-{n_issues}x{n_values}-{n_parties}p-s{seed}", space, utilities)
