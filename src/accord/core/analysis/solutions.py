"""Bargaining solutions over utility vectors: Nash, Kalai-Smorodinsky, maximum welfare.

Every function takes ``points`` (shape ``(outcomes, parties)``) and returns the position
of the chosen row, or ``None`` when no outcome is individually rational (every party's
gain over its reservation value >= 0). Ties go to the larger sum of gains, then to the
first position. Passing ``frontier`` (positions from :func:`pareto_frontier`) restricts
the search to those rows, which gives the same answer faster: both solutions lie on the
Pareto frontier.

    >>> pts = [[0.9, 0.2], [0.6, 0.6], [0.3, 0.8], [0.1, 0.1]]
    >>> nash_point(pts, [0.0, 0.0]), kalai_point(pts, [0.0, 0.0]), max_welfare(pts)
    (1, 1, 1)
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from accord.core.analysis.pareto import FloatArray, IntArray, pareto_frontier
from accord.core.errors import InvalidScenario


def _points(points: npt.ArrayLike) -> FloatArray:
    pts = np.asarray(points, dtype=np.float64)
    if pts.ndim != 2 or pts.shape[1] < 1:
        raise InvalidScenario(
            f"points must be a 2-D array (outcomes x parties), got shape {pts.shape}"
        )
    return pts


def _reservations(reservations: npt.ArrayLike | None, parties: int) -> FloatArray:
    if reservations is None:
        return np.zeros(parties, dtype=np.float64)
    r = np.asarray(reservations, dtype=np.float64).reshape(-1)
    if r.size != parties:
        raise InvalidScenario(f"expected {parties} reservation values, got {r.size}")
    return r


def _rational_gains(
    points: npt.ArrayLike, reservations: npt.ArrayLike | None, frontier: npt.ArrayLike | None
) -> tuple[IntArray, FloatArray]:
    """Positions and gains (``u - r``) of the individually rational frontier rows."""
    pts = _points(points)
    r = _reservations(reservations, pts.shape[1])
    front = pareto_frontier(pts) if frontier is None else np.asarray(frontier, dtype=np.int64)
    gains = pts[front] - r[None, :]
    ok = (gains >= 0).all(axis=1)
    return front[ok], gains[ok]


def _best(score: FloatArray, gains: FloatArray, positions: IntArray) -> int:
    """Position maximising ``score``; ties by the larger gain sum, then smaller position."""
    top = score.max()
    tied = np.flatnonzero(score == top)
    if tied.size == 1:
        return int(positions[tied[0]])
    sums = gains[tied].sum(axis=1)
    best = tied[sums == sums.max()]
    return int(positions[best].min())


def nash_point(
    points: npt.ArrayLike,
    reservations: npt.ArrayLike | None = None,
    frontier: npt.ArrayLike | None = None,
) -> int | None:
    """Position of the outcome maximising the product of gains over reservation values.

    Only outcomes where every gain is >= 0 count; ``None`` if there is none.

    >>> pts = [[1.0, 0.0], [0.7, 0.5], [0.5, 0.9]]
    >>> nash_point(pts), nash_point(pts, reservations=[0.4, 0.0])
    (2, 1)
    """
    positions, gains = _rational_gains(points, reservations, frontier)
    if positions.size == 0:
        return None
    return _best(gains.prod(axis=1), gains, positions)


def kalai_point(
    points: npt.ArrayLike,
    reservations: npt.ArrayLike | None = None,
    frontier: npt.ArrayLike | None = None,
) -> int | None:
    """Position of the Kalai-Smorodinsky outcome.

    Among individually rational frontier outcomes, it maximises the smallest normalised
    gain ``(u_i - r_i) / (ideal_i - r_i)``, where ``ideal_i`` is party ``i``'s best
    utility over the individually rational outcomes (a party whose ideal equals its
    reservation value counts as fully satisfied).

    >>> kalai_point([[1.0, 0.0], [0.8, 0.35], [0.5, 0.5], [0.0, 0.6]])
    1
    """
    positions, gains = _rational_gains(points, reservations, frontier)
    if positions.size == 0:
        return None
    span = gains.max(axis=0)
    safe = np.where(span > 0, span, 1.0)
    share = np.where(span[None, :] > 0, gains / safe[None, :], 1.0)
    return _best(share.min(axis=1), gains, positions)


def max_welfare(points: npt.ArrayLike) -> int:
    """Position of the outcome with the largest sum of utilities (first one on ties).

    >>> max_welfare([[0.9, 0.1], [0.5, 0.6], [0.6, 0.5]])
    1
    """
    pts = _points(points)
    if pts.shape[0] == 0:
        raise InvalidScenario("max_welfare needs at least one outcome, got none")
    return int(pts.sum(axis=1).argmax())


def nash_product(utilities: npt.ArrayLike, reservations: npt.ArrayLike | None = None) -> float:
    """Product of ``u_i - r_i`` (of the utilities themselves when no reservations are given).

    >>> nash_product([0.5, 0.8]), round(nash_product([0.5, 0.8], [0.1, 0.3]), 10)
    (0.4, 0.2)
    """
    u = np.asarray(utilities, dtype=np.float64).reshape(-1)
    r = _reservations(reservations, u.size)
    return float(np.prod(u - r))
