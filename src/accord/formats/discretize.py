"""Make a scenario with real issues enumerable by putting each real issue on a grid.

Engines that enumerate outcomes (agents' utility inverses, Pareto frontiers) need a
discrete space. ``discretize_scenario`` replaces every real issue by ``levels`` evenly
spaced values (:meth:`OutcomeSpace.discretize`) and rebuilds each profile on the new
space with the same evaluations, so every grid outcome keeps its utility.

    >>> from accord.core.outcomes import CategoricalIssue, OutcomeSpace, RealIssue
    >>> from accord.core.utilities import LinearAdditiveUtility, LinearEvaluator
    >>> space = OutcomeSpace([CategoricalIssue("cd", ["yes", "no"]), RealIssue("p", 0.0, 1.0)])
    >>> u = LinearAdditiveUtility(space, [0.5, 0.5], [{"yes": 1.0, "no": 0.0},
    ...                                               LinearEvaluator(-1.0, 1.0)])
    >>> s = discretize_scenario(Scenario("car", space, (u, u)), levels=5)
    >>> s.space.issues[1].values(), s.utilities[0](("yes", 0.25))
    ((0.0, 0.25, 0.5, 0.75, 1.0), 0.875)
"""

from __future__ import annotations

from typing import Any

from accord.core.errors import InvalidScenario
from accord.core.outcomes import OutcomeSpace
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
        for k, (old, e) in enumerate(zip(u.space.issues, u.evaluators, strict=True)):
            s = u.scales[k]
            if isinstance(e, LinearEvaluator):
                evaluators.append(LinearEvaluator(e.slope * s, e.offset * s))
            elif old.is_discrete:
                table: dict[Any, float] = {v: u.evaluation(k, v) for v in old.values()}
                evaluators.append(table)
            else:
                grid = space.issues[k].values()
                evaluators.append({v: u.evaluation(k, v) for v in grid})
        return LinearAdditiveUtility(
            space, list(u.weights), evaluators, u.reservation, u.discount, normalize=False
        )
    if isinstance(u, HyperRectangleUtility):
        return HyperRectangleUtility(space, u.rectangles, u.max_utility, u.reservation, u.discount)
    raise InvalidScenario(f"cannot move a {type(u).__name__} to a discretised space")


def discretize_scenario(scenario: Scenario, levels: int = 10) -> Scenario:
    """The scenario with each real issue replaced by ``levels`` grid values (if any)."""
    if scenario.space.is_discrete:
        return scenario
    space = scenario.space.discretize(levels)
    utilities = tuple(_rebuild(u, space) for u in scenario.utilities)
    return Scenario(scenario.name, space, utilities, scenario.profile_names)
