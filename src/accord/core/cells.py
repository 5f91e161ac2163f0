"""Achievable utility vectors of hyper-rectangle utilities without enumerating the space.

A hyper-rectangle utility (ANAC 2014) is constant wherever every rectangle's membership
is constant. Per issue, the values that lie inside exactly the same rectangles (of all
the profiles considered together) form one *class*; the product of the classes of all
issues is a partition of the outcome space into *cells* on which every profile's
utility is constant. The 2014 domains have 10^10 outcomes but about 2 x 10^7 cells.
Per cell, the set of rectangles it lies in is the AND of one bit mask per issue, and a
profile's utility is a sum of byte-table lookups on that mask. Splitting the issues in
two groups and keeping only the distinct masks of each group leaves about 10^6 mask
pairs to evaluate, in numpy chunks.

Example (two profiles on a 10 x 10 space; 100 outcomes, 6 cells, 5 distinct vectors):
    >>> from accord.core.outcomes import IntegerIssue, OutcomeSpace
    >>> from accord.core.utilities import HyperRectangle, HyperRectangleUtility
    >>> space = OutcomeSpace([IntegerIssue("a", 0, 9), IntegerIssue("b", 0, 9)])
    >>> u1 = HyperRectangleUtility(space, [HyperRectangle(1.0, ((0, 0, 4),))], 1.0)
    >>> u2 = HyperRectangleUtility(space, [HyperRectangle(2.0, ((0, 3, 9), (1, 5, 9))),
    ...                                    HyperRectangle(1.0, ((1, 0, 4),))], 3.0)
    >>> found = achievable_utilities([u1, u2])
    >>> found.cells, sorted(map(tuple, found.values.round(3).tolist()))
    (6, [(0.0, 0.333), (0.0, 0.667), (1.0, 0.0), (1.0, 0.333), (1.0, 0.667)])
    >>> from accord.core.analysis import pareto_2d
    >>> frontier = found.values[pareto_2d(found.values[:, 0], found.values[:, 1])]
    >>> frontier.round(3).tolist()
    [[1.0, 0.667]]
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from accord.core.errors import InvalidScenario
from accord.core.outcomes import IndexRows
from accord.core.utilities import HyperRectangleUtility

FloatArray = npt.NDArray[np.float64]
_WORD = 64


@dataclass(frozen=True)
class AchievableUtilities:
    """Distinct utility vectors (undiscounted) and one outcome reaching each.

    Attributes:
        values: shape ``(m, n_profiles)``; each row a distinct vector, rows sorted.
        rows: shape ``(m, n_issues)``; an index row of an outcome that reaches it.
        cells: how many cells the rectangles cut the space into.
    """

    values: FloatArray
    rows: IndexRows
    cells: int


@dataclass(frozen=True)
class _IssueClasses:
    masks: npt.NDArray[np.uint64]  # (classes, words): rectangles satisfied on this issue
    first: npt.NDArray[np.int64]  # (classes,): first value index of each class


def _issue_classes(
    values: FloatArray, constraints: list[tuple[int, float, float]], words: int
) -> _IssueClasses:
    """Group an issue's values by the rectangles whose bound on this issue they satisfy."""
    n = values.size
    masks = np.full((n, words), np.iinfo(np.uint64).max, dtype=np.uint64)
    for bit, lo, hi in constraints:
        outside = (values < lo) | (values > hi)
        masks[outside, bit // _WORD] &= ~np.uint64(1 << (bit % _WORD))
    unique, first = np.unique(masks, axis=0, return_index=True)
    order = np.argsort(first)
    return _IssueClasses(unique[order], first[order].astype(np.int64))


def _byte_tables(utilities: Sequence[HyperRectangleUtility], words: int) -> npt.NDArray[np.float64]:
    """``tables[p, byte, v]``: utility of profile p from the rectangles set in byte value v."""
    n_bytes = words * 8
    tables = np.zeros((len(utilities), n_bytes, 256), dtype=np.float64)
    patterns = np.arange(256, dtype=np.int64)
    bit = 0
    for p, u in enumerate(utilities):
        for r in u.rectangles:
            byte, pos = divmod(bit, 8)
            tables[p, byte, (patterns >> pos) & 1 == 1] += r.utility
            bit += 1
    return tables


def count_cells(utilities: Sequence[HyperRectangleUtility]) -> int:
    """Number of cells :func:`achievable_utilities` would enumerate."""
    return math.prod(len(c.first) for c in _all_classes(utilities)[0])


def _all_classes(
    utilities: Sequence[HyperRectangleUtility],
) -> tuple[list[_IssueClasses], int]:
    if not utilities:
        raise InvalidScenario("achievable_utilities needs at least one utility")
    space = utilities[0].space
    for u in utilities:
        if not isinstance(u, HyperRectangleUtility):
            raise InvalidScenario(
                f"achievable_utilities needs HyperRectangleUtility profiles, got {type(u).__name__}"
            )
        if u.space != space:
            raise InvalidScenario("achievable_utilities: the utilities use different spaces")
    if not space.is_discrete:
        raise InvalidScenario(f"{space!r} has real issues; discretize it first")
    n_rects = sum(len(u.rectangles) for u in utilities)
    words = max(1, -(-n_rects // _WORD))
    per_issue: list[list[tuple[int, float, float]]] = [[] for _ in space.issues]
    bit = 0
    for u in utilities:
        for r in u.rectangles:
            for k, lo, hi in r.bounds:
                per_issue[k].append((bit, float(lo), float(hi)))
            bit += 1
    classes = []
    for issue, constraints in zip(space.issues, per_issue, strict=True):
        numeric = np.asarray(list(issue.values()), dtype=np.float64)
        classes.append(_issue_classes(numeric, constraints, words))
    return classes, words


def _unique_masks(masks: npt.NDArray[np.uint64]) -> npt.NDArray[np.int64]:
    """Indices of the first occurrence of each distinct mask row."""
    if masks.shape[1] == 1:
        _, first = np.unique(masks[:, 0], return_index=True)
    else:
        _, first = np.unique(masks, axis=0, return_index=True)
    return np.sort(first).astype(np.int64)


def _groups(
    classes: Sequence[_IssueClasses], words: int, limit: int
) -> list[tuple[npt.NDArray[np.uint64], npt.NDArray[np.int64]]]:
    """Distinct combined masks (and a value-index row for each) of each prefix of issues."""
    masks = np.full((1, words), np.iinfo(np.uint64).max, dtype=np.uint64)
    reps = np.zeros((1, 0), dtype=np.int64)
    out = [(masks, reps)]
    for c in classes:
        n = len(c.first)
        if masks.shape[0] * n > limit:
            raise InvalidScenario(
                f"the rectangles split the space too finely ({masks.shape[0] * n} partial "
                f"cells, more than {limit}); raise max_cells to enumerate them anyway"
            )
        masks = (masks[:, None, :] & c.masks[None, :, :]).reshape(-1, words)
        reps = np.column_stack([np.repeat(reps, n, axis=0), np.tile(c.first, reps.shape[0])])
        keep = _unique_masks(masks)
        masks, reps = masks[keep], reps[keep]
        out.append((masks, reps))
    return out


def achievable_utilities(
    utilities: Sequence[HyperRectangleUtility],
    chunk: int = 1 << 20,
    max_cells: int = 200_000_000,
) -> AchievableUtilities:
    """Every distinct utility vector the profiles can reach together, by cells.

    The issues are split in two groups; within each group the cells are reduced to
    their distinct rectangle masks, and only pairs of distinct masks are evaluated
    (about 10^6 pairs for the 2014 domains instead of 2 x 10^7 cells).

    Args:
        utilities: hyper-rectangle utilities on one discrete outcome space.
        chunk: mask pairs evaluated per numpy batch.
        max_cells: refuse (with :class:`InvalidScenario`) to evaluate more pairs.
    """
    classes, words = _all_classes(utilities)
    n_cells = math.prod(len(c.first) for c in classes)
    prefixes = _groups(classes, words, max_cells)
    suffixes = _groups(classes[::-1], words, max_cells)
    n = len(classes)
    split = min(range(n + 1), key=lambda k: len(prefixes[k][0]) * len(suffixes[n - k][0]))
    a_masks, a_rows = prefixes[split]
    b_masks, b_rows = suffixes[n - split]
    b_rows = b_rows[:, ::-1]
    if len(a_masks) * len(b_masks) > max_cells:
        raise InvalidScenario(
            f"{len(a_masks) * len(b_masks)} mask pairs to evaluate, more than max_cells="
            f"{max_cells}; raise max_cells to enumerate them anyway"
        )
    tables = _byte_tables(utilities, words)
    used_bytes = [b for b in range(words * 8) if 8 * b < _n_rects(utilities)]
    scale = np.array([1.0 / u.max_utility for u in utilities], dtype=np.float64)
    block = max(1, chunk // len(b_masks))
    found_values: list[FloatArray] = []
    found_pairs: list[npt.NDArray[np.int64]] = []
    for start in range(0, len(a_masks), block):
        stop = min(start + block, len(a_masks))
        mask = (a_masks[start:stop, None, :] & b_masks[None, :, :]).reshape(-1, words)
        vals = np.zeros((mask.shape[0], len(utilities)), dtype=np.float64)
        for b in used_bytes:
            w, pos = divmod(b, 8)
            byte = ((mask[:, w] >> np.uint64(8 * pos)) & np.uint64(0xFF)).astype(np.intp)
            vals += tables[:, b, :][:, byte].T
        vals *= scale
        keep = _first_of_each(vals)
        found_values.append(vals[keep])
        found_pairs.append(keep + start * len(b_masks))
    all_vals = np.concatenate(found_values)
    all_pairs = np.concatenate(found_pairs)
    keep = _first_of_each(all_vals)
    all_vals, all_pairs = all_vals[keep], all_pairs[keep]
    order = np.lexsort(all_vals.T[::-1])
    a_idx, b_idx = np.divmod(all_pairs[order], len(b_masks))
    rows = np.column_stack([a_rows[a_idx], b_rows[b_idx]]).astype(np.int64)
    return AchievableUtilities(all_vals[order], rows, n_cells)


def _n_rects(utilities: Sequence[HyperRectangleUtility]) -> int:
    return sum(len(u.rectangles) for u in utilities)


def _first_of_each(vals: FloatArray) -> npt.NDArray[np.int64]:
    """Indices of the first occurrence of each distinct row of ``vals``."""
    codes = np.zeros(vals.shape[0], dtype=np.int64)
    span = 1
    for p in range(vals.shape[1]):
        _, inverse = np.unique(vals[:, p], return_inverse=True)
        inverse = inverse.reshape(-1).astype(np.int64)
        levels = int(inverse.max()) + 1 if inverse.size else 1
        if span * levels >= 2**62:  # too many combinations for one key: compact first
            _, codes = np.unique(codes, return_inverse=True)
            codes = codes.reshape(-1).astype(np.int64)
            span = int(codes.max()) + 1
        codes = codes * levels + inverse
        span *= levels
    _, first = np.unique(codes, return_index=True)
    return np.sort(first).astype(np.int64)
