"""Small bilateral scenarios built in code for the agent tests (imported by the tests)."""

from __future__ import annotations

import numpy as np

from accord.core import CategoricalIssue, LinearAdditiveUtility, OutcomeSpace
from accord.core.generate import random_linear_scenario
from accord.core.scenario import Scenario


def _space(n_issues: int, n_values: int) -> OutcomeSpace:
    return OutcomeSpace(
        [CategoricalIssue(f"i{k}", [f"v{j}" for j in range(n_values)]) for k in range(n_issues)]
    )


def _profile(space, weights, evaluations, reservation):
    return LinearAdditiveUtility(
        space,
        [float(w) for w in weights],
        [
            dict(zip(issue.values(), (float(x) for x in e), strict=True))
            for issue, e in zip(space.issues, evaluations, strict=True)
        ],
        reservation=reservation,
    )


def tradeoff(n_issues: int, n_values: int, seed: int, reservation: float = 0.0) -> Scenario:
    """Opposed value orders on every issue, different issue weights (room for trade-offs)."""
    rng = np.random.default_rng(seed)
    space = _space(n_issues, n_values)
    base = np.linspace(0.0, 1.0, n_values)
    ev1 = [np.clip(base + 0.1 * rng.standard_normal(n_values), 0.0, None) for _ in space.issues]
    ev2 = [np.clip(base[::-1] + 0.1 * rng.standard_normal(n_values), 0.0, None) for _ in ev1]
    w1, w2 = rng.random(n_issues) + 0.05, rng.random(n_issues) + 0.05
    return Scenario(
        f"tradeoff-{n_issues}x{n_values}-s{seed}",
        space,
        (_profile(space, w1, ev1, reservation), _profile(space, w2, ev2, reservation)),
    )


def opposed(n_issues: int, n_values: int, seed: int, reservation: float = 0.0) -> Scenario:
    """Random evaluations; the second party's are roughly the first's reversed, with noise."""
    rng = np.random.default_rng(seed)
    space = _space(n_issues, n_values)
    ev1 = [rng.random(n_values) + 0.01 for _ in space.issues]
    ev2 = [np.clip(1.0 - e + 0.3 * rng.standard_normal(n_values), 0.01, None) for e in ev1]
    w1, w2 = rng.random(n_issues) + 0.01, rng.random(n_issues) + 0.01
    return Scenario(
        f"opposed-{n_issues}x{n_values}-s{seed}",
        space,
        (_profile(space, w1, ev1, reservation), _profile(space, w2, ev2, reservation)),
    )


def independent(n_issues: int, n_values: int, seed: int, reservation: float = 0.0) -> Scenario:
    """Independent random profiles (often much common ground)."""
    return random_linear_scenario(n_issues, n_values, seed=seed, reservation=reservation)
