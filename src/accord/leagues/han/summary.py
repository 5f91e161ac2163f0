"""The league's means with honest intervals: Student t on independent units, n shown.

Every mean the league reports comes with ``<key>_ci95`` (the half-width of its 95 %
t interval, :func:`accord.core.stats.mean_interval`; ``None`` below two units) and
``<key>_n`` (the number of independent units behind it). The unit is one distinct game
for an agent (each game is a fresh agent against a fresh participant; games that came
out identical count once, :func:`accord.leagues.han.tournament.summarize`) and one *pair* for
person-vs-person games: the two people of a pair played one game together, so they
are not independent, and :func:`pair_units` folds their rows into one value per pair.

    >>> interval_fields("points", [10.0, 20.0, 30.0])
    {'points': 20.0, 'points_ci95': 24.841, 'points_n': 3}
    >>> interval_fields("points", [7.0])
    {'points': 7.0, 'points_ci95': None, 'points_n': 1}
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from accord.core.stats import mean_interval

__all__ = ["interval_fields", "pair_units", "shown"]


def interval_fields(key: str, values: Iterable[float], digits: int = 3) -> dict[str, Any]:
    """``{key: mean, key_ci95: half-width or None, key_n: units}`` (mean None with no units)."""
    m = mean_interval(values)
    return {
        key: None if m.n == 0 else round(m.mean, digits),
        f"{key}_ci95": None if math.isnan(m.half) else round(m.half, digits),
        f"{key}_n": m.n,
    }


def pair_units(
    rows: Sequence[Mapping[str, Any]], value: Callable[[list[Mapping[str, Any]]], float]
) -> list[float]:
    """One value per pair (rows grouped by ``pairId``, in order): ``value(rows of the pair)``.

    >>> rows = [{"pairId": "p1", "x": 1}, {"pairId": "p2", "x": 4}, {"pairId": "p1", "x": 3}]
    >>> pair_units(rows, lambda rs: sum(r["x"] for r in rs) / len(rs))
    [2.0, 4.0]
    """
    groups: dict[str, list[Mapping[str, Any]]] = {}
    for r in rows:
        groups.setdefault(str(r["pairId"]), []).append(r)
    return [value(rs) for rs in groups.values()]


def shown(row: Mapping[str, Any], key: str, digits: int = 2) -> str:
    """``mean ± half (n=k)`` for the terminal (``—`` for a missing part).

    >>> shown({"p": 20.0, "p_ci95": 24.841, "p_n": 3}, "p")
    '20.00 ± 24.84 (n=3)'
    >>> shown({"p": 7.0, "p_ci95": None, "p_n": 1}, "p")
    '7.00 ± — (n=1)'
    """
    m, h = row[key], row[f"{key}_ci95"]
    ms = "—" if m is None else f"{m:.{digits}f}"
    hs = "—" if h is None else f"{h:.{digits}f}"
    return f"{ms} ± {hs} (n={row[f'{key}_n']})"
