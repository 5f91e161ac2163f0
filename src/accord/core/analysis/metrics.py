"""Scenario analysis (frontier, Nash, Kalai, welfare) and per-session metrics.

:func:`analyze` evaluates every party's utility on every outcome once (a real issue is
replaced by ``levels`` grid values) and finds the special points; :func:`session_metrics`
places a finished session in that picture. Distances are Euclidean, in undiscounted
utility space: a session without agreement sits at the reservation values.

    >>> from accord.core.outcomes import CategoricalIssue, OutcomeSpace
    >>> from accord.core.scenario import Scenario
    >>> from accord.core.utilities import LinearAdditiveUtility
    >>> space = OutcomeSpace([CategoricalIssue("Food", ["Hamburger", "Pizza"]),
    ...                       CategoricalIssue("Drink", ["Cola", "Beer"])])
    >>> me = LinearAdditiveUtility(space, [0.3, 0.7],
    ...     [{"Hamburger": 0.7, "Pizza": 1.0}, {"Cola": 0.2, "Beer": 1.0}])
    >>> you = LinearAdditiveUtility(space, [0.5, 0.5],
    ...     [{"Hamburger": 1.0, "Pizza": 0.2}, {"Cola": 1.0, "Beer": 0.5}])
    >>> a = analyze(Scenario("lunch", space, (me, you)))
    >>> a.frontier_outcomes()
    [('Pizza', 'Beer'), ('Hamburger', 'Beer'), ('Hamburger', 'Cola')]
    >>> a.nash.outcome, a.welfare.outcome
    (('Hamburger', 'Beer'), ('Hamburger', 'Beer'))
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import numpy.typing as npt

from accord.core.analysis.approximate import candidate_note, candidate_rows
from accord.core.analysis.pareto import FloatArray, IntArray, pareto_2d, pareto_nd
from accord.core.analysis.solutions import kalai_point, max_welfare, nash_point
from accord.core.cells import achievable_utilities
from accord.core.errors import InvalidScenario
from accord.core.outcomes import IndexRows, Outcome, OutcomeSpace
from accord.core.protocols.result import SessionResult
from accord.core.scenario import Scenario
from accord.core.utilities import HyperRectangleUtility, LinearAdditiveUtility, UtilityFunction


@dataclass(frozen=True)
class Point:
    """One outcome of the analysed space: its flat index, value tuple and utilities."""

    index: int
    outcome: Outcome
    utilities: tuple[float, ...]


def utility_columns(
    scenario: Scenario, levels: int = 10, max_outcomes: int = 20_000_000
) -> tuple[OutcomeSpace, tuple[FloatArray, ...]]:
    """The (discretised) space and every party's utility of each outcome in flat order."""
    space = scenario.space.discretize(levels)
    size = int(space.cardinality)
    if size > max_outcomes:
        raise InvalidScenario(
            f"scenario {scenario.name!r} has {size} outcomes; the analysis enumerates at most "
            f"{max_outcomes} (pass max_outcomes, or fewer levels for real issues)"
        )
    if space is scenario.space:
        return space, tuple(u.all() for u in scenario.utilities)
    return space, tuple(_on_grid(u, space) for u in scenario.utilities)


def _on_grid(u: UtilityFunction, grid: OutcomeSpace) -> FloatArray:
    """Utilities of a function defined on a space with real issues, over its grid."""
    if isinstance(u, LinearAdditiveUtility):
        tables = [
            np.array([float(u.weights[k]) * u.evaluation(k, v) for v in issue.values()])
            for k, issue in enumerate(grid.issues)
        ]
        acc = tables[0]
        for table in tables[1:]:
            acc = np.add.outer(acc, table).ravel()
        return np.ascontiguousarray(acc, dtype=np.float64)
    return np.fromiter((u(o) for o in grid), dtype=np.float64, count=int(grid.cardinality))


@dataclass(frozen=True)
class ScenarioAnalysis:
    """The scenario's achievable utility vectors and its special points.

    ``columns[p][i]`` is party ``p``'s utility of *position* ``i``. Normally every outcome
    is enumerated and position ``i`` is the outcome with flat index ``i``. For spaces too
    big to enumerate whose profiles are all hyper-rectangle utilities (ANAC 2014), each
    position is one distinct utility vector and ``rows[i]`` an outcome reaching it.
    Other spaces too big to enumerate are analysed over candidate outcomes
    (:mod:`accord.core.analysis.approximate`): positions are candidates and ``note`` says
    so. ``frontier`` holds positions, by the first party's utility descending.
    """

    space: OutcomeSpace
    columns: tuple[FloatArray, ...]
    reservations: tuple[float, ...]
    frontier: IntArray
    frontier_utilities: FloatArray
    nash: Point | None
    kalai: Point | None
    welfare: Point
    rows: IndexRows | None = None
    note: str | None = None

    def point(self, position: int) -> Point:
        """The :class:`Point` at ``position``."""
        i = int(position)
        if self.rows is None:
            flat, outcome = i, self.space.outcome_at(i)
        else:
            row = self.rows[i]
            flat = int(self.space.flat_of_rows(row[None, :])[0])
            outcome = self.space.outcome_of_row(row)
        return Point(flat, outcome, tuple(float(c[i]) for c in self.columns))

    def frontier_outcomes(self) -> list[Outcome]:
        """The Pareto-optimal outcomes (one per utility vector in cell mode)."""
        return [self.point(int(i)).outcome for i in self.frontier]

    def distance_to_pareto(self, utilities: npt.ArrayLike) -> float:
        """Euclidean distance from a utility vector to the nearest frontier point."""
        p = np.asarray(utilities, dtype=np.float64)
        diff = self.frontier_utilities - p[None, :]
        return float(np.sqrt((diff * diff).sum(axis=1).min()))

    def distance_to_nash(self, utilities: npt.ArrayLike) -> float | None:
        """Euclidean distance from a utility vector to the Nash point (None without one)."""
        if self.nash is None:
            return None
        p = np.asarray(utilities, dtype=np.float64)
        return float(np.linalg.norm(np.asarray(self.nash.utilities) - p))

    def is_pareto_optimal(self, utilities: npt.ArrayLike) -> bool:
        """True if no frontier point dominates the utility vector."""
        p = np.asarray(utilities, dtype=np.float64)
        f = self.frontier_utilities
        dominated = ((f >= p[None, :]).all(axis=1) & (f > p[None, :]).any(axis=1)).any()
        return not bool(dominated)


ND_MAX_OUTCOMES = 1_000_000
"""Outcomes enumerated for three or more parties (an n-dimensional frontier of millions
of points can take minutes: ANAC 2016's 5.8 x 10^6-outcome energy grid did)."""


def analyze(
    scenario: Scenario, levels: int = 10, max_outcomes: int = 20_000_000
) -> ScenarioAnalysis:
    """Frontier, Nash point, Kalai point and maximum welfare of a scenario.

    Reservation values are the profiles' (undiscounted) ones. Spaces with more than
    ``max_outcomes`` outcomes are analysed by cells (:mod:`accord.core.cells`, exact)
    when every profile is a hyper-rectangle utility, and otherwise over candidate
    outcomes (:mod:`accord.core.analysis.approximate`; ``note`` says so). With three or
    more parties the limit is at most :data:`ND_MAX_OUTCOMES`.
    """
    rows: IndexRows | None = None
    note: str | None = None
    if scenario.n_parties > 2:
        max_outcomes = min(max_outcomes, ND_MAX_OUTCOMES)
    huge = scenario.space.is_discrete and int(scenario.space.cardinality) > max_outcomes
    found = None
    if huge and all(isinstance(u, HyperRectangleUtility) for u in scenario.utilities):
        rect = [u for u in scenario.utilities if isinstance(u, HyperRectangleUtility)]
        try:
            found = achievable_utilities(rect)
        except InvalidScenario:
            found = None
        if found is not None:
            space = scenario.space
            columns = tuple(np.ascontiguousarray(found.values[:, j]) for j in range(len(rect)))
            rows = found.rows
    if huge and found is None:
        space = scenario.space
        rows, how = candidate_rows(scenario.utilities)
        columns = tuple(u.batch(rows) for u in scenario.utilities)
        note = candidate_note(int(space.cardinality), len(rows), how)
    elif not huge:
        space, columns = utility_columns(scenario, levels, max_outcomes)
    reservations = tuple(u.reservation for u in scenario.utilities)
    if len(columns) == 2:
        front = pareto_2d(columns[0], columns[1])
    else:
        front = pareto_nd(np.column_stack(columns))
    front_u = np.column_stack([c[front] for c in columns])
    nash = nash_point(front_u, reservations, frontier=np.arange(front.size))
    kalai = kalai_point(front_u, reservations, frontier=np.arange(front.size))
    sums = columns[0].copy()
    for c in columns[1:]:
        sums += c
    best = max_welfare(sums[:, None])
    partial = ScenarioAnalysis(
        space, columns, reservations, front, front_u, None, None, Point(0, (), ()), rows, note
    )
    return replace(
        partial,
        nash=None if nash is None else partial.point(int(front[nash])),
        kalai=None if kalai is None else partial.point(int(front[kalai])),
        welfare=partial.point(best),
    )


@dataclass(frozen=True)
class SessionMetrics:
    """How good one session's outcome was.

    ``utilities`` are the session's final (discounted) utilities; ``welfare`` is their
    sum and ``nash_product`` their product (the ANAC 2017 Nash-product score).
    ``outcome_utilities`` are the undiscounted utilities of the agreement (the
    reservation values without one); the distances and ``pareto_optimal`` use those.
    """

    agreement: Outcome | None
    utilities: tuple[float, ...]
    welfare: float
    nash_product: float
    outcome_utilities: tuple[float, ...]
    pareto_distance: float
    nash_distance: float | None
    pareto_optimal: bool

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "agreement": None if self.agreement is None else list(self.agreement),
            "utilities": list(self.utilities),
            "welfare": self.welfare,
            "nash_product": self.nash_product,
            "outcome_utilities": list(self.outcome_utilities),
            "pareto_distance": self.pareto_distance,
            "nash_distance": self.nash_distance,
            "pareto_optimal": self.pareto_optimal,
        }


def session_metrics(
    result: SessionResult, scenario: Scenario, analysis: ScenarioAnalysis | None = None
) -> SessionMetrics:
    """Metrics of a finished session (pass ``analysis`` to reuse it across sessions)."""
    if len(result.utilities) != scenario.n_parties:
        raise InvalidScenario(
            f"the session has {len(result.utilities)} parties but scenario "
            f"{scenario.name!r} has {scenario.n_parties} profiles"
        )
    a = analysis if analysis is not None else analyze(scenario)
    if result.agreement is None:
        raw = a.reservations
    elif a.rows is None and a.space is scenario.space:
        flat = a.space.flat_index(result.agreement)
        raw = tuple(float(c[flat]) for c in a.columns)
    else:
        raw = tuple(float(u(result.agreement)) for u in scenario.utilities)
    return SessionMetrics(
        agreement=result.agreement,
        utilities=tuple(result.utilities),
        welfare=float(math.fsum(result.utilities)),
        nash_product=float(math.prod(result.utilities)),
        outcome_utilities=raw,
        pareto_distance=a.distance_to_pareto(raw),
        nash_distance=a.distance_to_nash(raw),
        pareto_optimal=result.agreement is not None and a.is_pareto_optimal(raw),
    )
