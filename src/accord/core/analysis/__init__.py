"""Analysis of outcomes in utility space: Pareto frontier, Nash, Kalai, welfare, metrics.

Pure functions over utility arrays (:mod:`~accord.core.analysis.pareto`,
:mod:`~accord.core.analysis.solutions`) and a scenario-level layer
(:mod:`~accord.core.analysis.metrics`).

    >>> from accord.core.analysis import pareto_2d, nash_point
    >>> pareto_2d([0.9, 0.6, 0.3, 0.2], [0.2, 0.6, 0.8, 0.1]).tolist()
    [0, 1, 2]
"""

from accord.core.analysis.metrics import (
    Point,
    ScenarioAnalysis,
    SessionMetrics,
    analyze,
    session_metrics,
    utility_columns,
)
from accord.core.analysis.pareto import dominates, pareto_2d, pareto_frontier, pareto_nd
from accord.core.analysis.solutions import kalai_point, max_welfare, nash_point, nash_product

__all__ = [
    "Point",
    "ScenarioAnalysis",
    "SessionMetrics",
    "analyze",
    "dominates",
    "kalai_point",
    "max_welfare",
    "nash_point",
    "nash_product",
    "pareto_2d",
    "pareto_frontier",
    "pareto_nd",
    "session_metrics",
    "utility_columns",
]
