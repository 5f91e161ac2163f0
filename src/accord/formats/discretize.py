"""Make a scenario with real or huge integer issues enumerable by putting them on a grid.

Engines that enumerate outcomes (agents' utility inverses, Pareto frontiers) need a
discrete space of moderate size. ``discretize_scenario`` replaces every real issue by
``levels`` evenly spaced values (:meth:`OutcomeSpace.discretize`), then, while the space
has more than ``max_outcomes`` outcomes, the widest integer issue by ``levels`` evenly
spaced integers; each profile is rebuilt on the new space with the same evaluations, so
every grid outcome keeps its utility. :func:`discretization_note` says in words what was
done (the CLI prints it).

    >>> from accord.core.outcomes import CategoricalIssue, OutcomeSpace, RealIssue
    >>> from accord.core.utilities import LinearAdditiveUtility, LinearEvaluator
    >>> space = OutcomeSpace([CategoricalIssue("cd", ["yes", "no"]), RealIssue("p", 0.0, 1.0)])
    >>> u = LinearAdditiveUtility(space, [0.5, 0.5], [{"yes": 1.0, "no": 0.0},
    ...                                               LinearEvaluator(-1.0, 1.0)])
    >>> s = discretize_scenario(Scenario("car", space, (u, u)), levels=5)
    >>> s.space.issues[1].values(), s.utilities[0](("yes", 0.25))
    ((0.0, 0.25, 0.5, 0.75, 1.0), 0.875)
    >>> discretization_note(Scenario("car", space, (u, u)), s)
    "real issue 'p' put on a grid of 5 values"
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from accord.core.errors import InvalidScenario
from accord.core.outcomes import CategoricalIssue, IntegerIssue, Issue, OutcomeSpace
from accord.core.scenario import Scenario
from accord.core.utilities import (
    Evaluator,
    HyperRectangleUtility,
    LinearAdditiveUtility,
    LinearEvaluator,
    UtilityFunction,
)
from accord.formats.legacy import GeniusAdditiveUtility


def _rebuild(u: UtilityFunction, space: OutcomeSpace) -> UtilityFunction:
    if isinstance(u, GeniusAdditiveUtility):
        return GeniusAdditiveUtility(space, u.weights, u.terms, u.costs, u.reservation, u.discount)
    if isinstance(u, LinearAdditiveUtility):
        evaluators: list[Evaluator] = []
        for k, e in enumerate(u.evaluators):
            s = u.scales[k]
            if isinstance(e, LinearEvaluator):
                evaluators.append(LinearEvaluator(e.slope * s, e.offset * s))
            else:
                grid = space.issues[k].values()
                table: dict[Any, float] = {v: u.evaluation(k, v) for v in grid}
                evaluators.append(table)
        return LinearAdditiveUtility(
            space, list(u.weights), evaluators, u.reservation, u.discount, normalize=False
        )
    if isinstance(u, HyperRectangleUtility):
        return HyperRectangleUtility(space, u.rectangles, u.max_utility, u.reservation, u.discount)
    raise InvalidScenario(f"cannot move a {type(u).__name__} to a discretised space")


DEFAULT_LEVELS = 10
DEFAULT_MAX_OUTCOMES = 1_000_000


def _integer_grid(issue: IntegerIssue, levels: int) -> CategoricalIssue:
    grid = sorted({round(float(x)) for x in np.linspace(issue.lower, issue.upper, levels)})
    return CategoricalIssue(issue.name, [int(x) for x in grid])


def discretize_space(
    space: OutcomeSpace, levels: int = DEFAULT_LEVELS, max_outcomes: int = DEFAULT_MAX_OUTCOMES
) -> OutcomeSpace:
    """Real issues on ``levels`` grid values; the widest integer issues too while the space
    has more than ``max_outcomes`` outcomes.

    >>> from accord.core.outcomes import IntegerIssue
    >>> discretize_space(OutcomeSpace([IntegerIssue("n", 0, 10**6)]), 5, 1000).issues[0].values()
    (0, 250000, 500000, 750000, 1000000)
    """
    if levels < 2:
        raise InvalidScenario(f"discretisation needs at least 2 levels per issue, got {levels}")
    out = space.discretize(levels)
    issues: list[Issue] = list(out.issues)
    while math.prod(int(i.cardinality) for i in issues) > max_outcomes:
        wide = [
            k
            for k, i in enumerate(issues)
            if isinstance(i, IntegerIssue) and i.cardinality > levels
        ]
        if not wide:
            break
        k = max(wide, key=lambda j: int(issues[j].cardinality))
        issue = issues[k]
        assert isinstance(issue, IntegerIssue)
        issues[k] = _integer_grid(issue, levels)
    return out if issues == list(out.issues) else OutcomeSpace(issues)


def needs_discretization(space: OutcomeSpace, max_outcomes: int = DEFAULT_MAX_OUTCOMES) -> bool:
    """True if ``space`` has a real issue or more than ``max_outcomes`` outcomes."""
    return not space.is_discrete or int(space.cardinality) > max_outcomes


def discretize_scenario(
    scenario: Scenario, levels: int = DEFAULT_LEVELS, max_outcomes: int = DEFAULT_MAX_OUTCOMES
) -> Scenario:
    """The scenario on :func:`discretize_space` (itself if nothing changes)."""
    space = discretize_space(scenario.space, levels, max_outcomes)
    if space is scenario.space:
        return scenario
    utilities = tuple(_rebuild(u, space) for u in scenario.utilities)
    return Scenario(scenario.name, space, utilities, scenario.profile_names)


def discretization_note(before: Scenario, after: Scenario) -> str | None:
    """What :func:`discretize_scenario` changed, in words (None if nothing)."""
    parts = []
    for old, new in zip(before.space.issues, after.space.issues, strict=True):
        if old is new or old == new:
            continue
        kind = "real" if not old.is_discrete else f"integer ({int(old.cardinality)} values)"
        parts.append(f"{kind} issue {old.name!r} put on a grid of {int(new.cardinality)} values")
    return "; ".join(parts) or None
