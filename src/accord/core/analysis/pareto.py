"""Pareto frontiers of utility vectors: a bilateral sweep and an n-party filter.

An outcome *dominates* another when it is at least as good for every party and better
for one. The frontier is the set of outcomes no outcome dominates; outcomes with equal
utility vectors do not dominate each other, so duplicates on the frontier all stay.
Both methods return positions into the input, ordered by the first party's utility
(descending), then the second's (descending), then position.

    >>> u1 = [1.0, 0.5, 0.0, 0.4, 1.0]
    >>> u2 = [0.0, 0.5, 1.0, 0.4, 0.0]
    >>> pareto_2d(u1, u2).tolist()
    [0, 4, 1, 2]
    >>> pareto_nd(list(zip(u1, u2))).tolist()
    [0, 4, 1, 2]
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from accord.core.errors import InvalidScenario

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

# Above this many points the exact sweep is preceded by cheap anchor filters.
_FILTER_FROM = 4096
# Weight pairs whose maximisers serve as anchors (each is on the frontier).
_ANCHOR_WEIGHTS = ((1.0, 1.0), (3.0, 1.0), (1.0, 3.0), (10.0, 1.0), (1.0, 10.0))
# Bound on the number of booleans built at once by the n-party filter.
_CHUNK_CELLS = 1 << 22


def _vector(values: npt.ArrayLike, what: str) -> FloatArray:
    arr = np.asarray(values, dtype=np.float64)
    if arr.ndim != 1:
        raise InvalidScenario(f"{what} must be a 1-D array of utilities, got shape {arr.shape}")
    return arr


def _not_finite(what: str) -> InvalidScenario:
    return InvalidScenario(f"{what} contain NaN or infinite utilities; expected finite numbers")


def pareto_2d(u1: npt.ArrayLike, u2: npt.ArrayLike) -> IntArray:
    """Positions of the Pareto-optimal points of two utility arrays (O(n log n) sweep).

    Points strictly worse on both axes than a few frontier "anchors" (maximisers of
    weighted sums) are dropped first in a few linear passes; the survivors are sorted by
    the first utility and swept with a running maximum of the second.

    >>> pareto_2d([0.2, 0.9, 0.9, 0.5], [0.8, 0.1, 0.3, 0.5]).tolist()
    [2, 3, 0]
    """
    a = _vector(u1, "u1")
    b = _vector(u2, "u2")
    if a.shape != b.shape:
        raise InvalidScenario(f"u1 and u2 must have the same length, got {a.size} and {b.size}")
    if a.size == 0:
        return np.zeros(0, dtype=np.int64)
    s = a + b
    if not np.isfinite(s[int(s.argmax())]) or not np.isfinite(s[int(s.argmin())]):
        raise _not_finite("u1/u2")
    if a.size < _FILTER_FROM:
        return _sweep(a, b, np.arange(a.size, dtype=np.int64))
    k = int(s.argmax())
    keep = np.flatnonzero((a >= a[k]) | (b >= b[k]))
    ka, kb = a[keep], b[keep]
    for wa, wb in _ANCHOR_WEIGHTS[1:]:
        if keep.size < _FILTER_FROM:
            break
        j = int((wa * ka + wb * kb).argmax())
        inner = np.flatnonzero((ka >= ka[j]) | (kb >= kb[j]))
        keep, ka, kb = keep[inner], ka[inner], kb[inner]
    return _sweep(ka, kb, keep)


def _sweep(a: FloatArray, b: FloatArray, positions: IntArray) -> IntArray:
    """Exact frontier of the points ``(a, b)``; returns the matching ``positions``."""
    order = np.argsort(-a)
    sa = a[order]
    sb = b[order]
    n = sa.size
    starts = np.flatnonzero(np.concatenate(([True], sa[1:] != sa[:-1])))
    group_max = np.maximum.reduceat(sb, starts)
    before = np.empty_like(group_max)
    before[0] = -np.inf
    np.maximum.accumulate(group_max[:-1], out=before[1:])
    counts = np.diff(np.append(starts, n))
    on = (sb == np.repeat(group_max, counts)) & np.repeat(group_max > before, counts)
    picked = order[on]
    result: IntArray = positions[picked]
    fa = sa[on]
    if fa.size > 1 and bool((fa[1:] == fa[:-1]).any()):
        # Duplicated frontier points (equal a means equal b here): order them by position.
        ordered: IntArray = result[np.lexsort((result, -fa))]
        return ordered
    return result


def pareto_nd(points: npt.ArrayLike, block: int = 256) -> IntArray:
    """Positions of the Pareto-optimal rows of ``points`` (shape ``(n, parties)``).

    Rows are visited in order of decreasing utility sum (a row can only be dominated by
    one with a larger sum). Each block of ``block`` rows is reduced to its own
    non-dominated rows, which are then on the frontier, and those remove every later
    row they dominate.

    >>> pareto_nd([[1, 0, 0], [0, 1, 0], [0, 0, 1], [0, 0, 0.5], [0.5, 0.5, 0]]).tolist()
    [0, 4, 1, 2]
    """
    pts = np.asarray(points, dtype=np.float64)
    if pts.ndim != 2:
        raise InvalidScenario(
            f"points must be a 2-D array (outcomes x parties), got shape {pts.shape}"
        )
    if pts.shape[0] == 0:
        return np.zeros(0, dtype=np.int64)
    if not np.isfinite(pts).all():
        raise _not_finite("points")
    if block < 1:
        raise InvalidScenario(f"block must be >= 1, got {block}")
    candidates = _anchor_filter(pts) if pts.shape[0] >= _FILTER_FROM else None
    rest = pts if candidates is None else pts[candidates]
    order = np.argsort(-rest.sum(axis=1), kind="stable").astype(np.int64)
    rest = rest[order]
    if candidates is not None:
        order = candidates[order]
    found: list[IntArray] = []
    while rest.shape[0]:
        head = rest[:block]
        local = _block_front(head)
        front = head[local]
        found.append(order[:block][local])
        order, rest = order[head.shape[0] :], rest[head.shape[0] :]
        if rest.shape[0]:
            alive = ~_dominated_by_any(rest, front)
            order, rest = order[alive], rest[alive]
    picked = np.concatenate(found)
    return _sorted(pts[picked], picked)


def _anchor_filter(pts: FloatArray) -> IntArray:
    """Positions of the rows not dominated by a few frontier anchors (maximisers of
    positive weighted sums, which no row can dominate)."""
    d = pts.shape[1]
    cols = [np.ascontiguousarray(pts[:, j]) for j in range(d)]
    keep = np.arange(pts.shape[0], dtype=np.int64)
    weights = [np.ones(d)]
    for boost in (2.0, 9.0):
        weights += [np.ones(d) + boost * np.eye(d)[j] for j in range(d)]
    for w in weights:
        if keep.size < _FILTER_FROM:
            break
        score = w[0] * cols[0]
        for j in range(1, d):
            score += w[j] * cols[j]
        k = int(score.argmax())
        anchor = [c[k] for c in cols]
        all_le = cols[0] <= anchor[0]
        any_lt = cols[0] < anchor[0]
        for j in range(1, d):
            all_le &= cols[j] <= anchor[j]
            any_lt |= cols[j] < anchor[j]
        inner = np.flatnonzero(~(all_le & any_lt))
        keep = keep[inner]
        cols = [c[inner] for c in cols]
    return keep


def _block_front(head: FloatArray) -> IntArray:
    """Rows of ``head`` that no other row of ``head`` dominates."""
    ge = (head[:, None, :] >= head[None, :, :]).all(axis=2)  # ge[j, i]: row j >= row i
    gt = (head[:, None, :] > head[None, :, :]).any(axis=2)
    dominated = (ge & gt).any(axis=0)
    return np.flatnonzero(~dominated).astype(np.int64)


def _dominated_by_any(rows: FloatArray, front: FloatArray) -> npt.NDArray[np.bool_]:
    """For each row, whether some row of ``front`` dominates it (chunked, column by column)."""
    out = np.zeros(rows.shape[0], dtype=bool)
    step = max(1, _CHUNK_CELLS // max(1, front.shape[0]))
    fronts = [front[None, :, j] for j in range(front.shape[1])]
    for lo in range(0, rows.shape[0], step):
        part = rows[lo : lo + step]
        col = part[:, 0, None]
        ge = fronts[0] >= col
        gt = fronts[0] > col
        for j in range(1, len(fronts)):
            col = part[:, j, None]
            ge &= fronts[j] >= col
            gt |= fronts[j] > col
        ge &= gt
        out[lo : lo + step] = ge.any(axis=1)
    return out


def _sorted(utilities: FloatArray, positions: IntArray) -> IntArray:
    """Positions ordered by utilities descending (first party first), then position."""
    keys = [positions] + [-utilities[:, j] for j in range(utilities.shape[1] - 1, -1, -1)]
    return positions[np.lexsort(keys)]


def pareto_frontier(points: npt.ArrayLike) -> IntArray:
    """Positions of the Pareto-optimal rows of ``points``; the sweep when there are 2 parties.

    >>> pareto_frontier([[0.5, 0.5], [0.4, 0.4], [1.0, 0.0]]).tolist()
    [2, 0]
    """
    pts = np.asarray(points, dtype=np.float64)
    if pts.ndim == 2 and pts.shape[1] == 2:
        return pareto_2d(pts[:, 0], pts[:, 1])
    return pareto_nd(pts)


def dominates(a: npt.ArrayLike, b: npt.ArrayLike) -> bool:
    """True if utility vector ``a`` is >= ``b`` everywhere and > somewhere.

    >>> dominates([1, 1], [1, 0]), dominates([1, 0], [1, 0])
    (True, False)
    """
    x = np.asarray(a, dtype=np.float64)
    y = np.asarray(b, dtype=np.float64)
    return bool((x >= y).all() and (x > y).any())
