"""A factory's plan, projected: its output stock on every coming day if its lines run.

Shared by the ``trader`` and ``market`` agents: from today's inventory and the units of
input arriving and output leaving on each day, the output stock before each day's
deliveries, and what of it is free to sell.

Example (2 lines, 3 inputs and 1 output in stock, 2 outputs leave on day 1, 4 days):
    >>> raw, spare = project_stock(3, 1, 2, [0, 0, 0, 0], [0, 2, 0, 0], day=0, executed=False, n=4)
    >>> raw.tolist(), spare.tolist()
    ([1, 1, 2, 2, 2], [0, 1, 2, 2, 0])
    >>> free_stock(np.array([3, 1, 2])).tolist()
    [1, 1, 2]
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from accord.leagues.scml.awi import AWI
from accord.leagues.scml.state import Phase

__all__ = ["free_stock", "plan_key", "project_stock"]

_BEFORE_EXECUTION = (Phase.INIT, Phase.BEFORE_STEP, Phase.NEGOTIATION, Phase.SIGNING)


def plan_key(awi: AWI) -> tuple[int, bool]:
    """``(day, executed)``: a projection made now holds until this changes."""
    return awi.current_step, awi.phase not in _BEFORE_EXECUTION


def project_stock(
    ins: int,
    outs: int,
    lines: int,
    incoming: Sequence[int],
    outgoing: Sequence[int],
    day: int,
    executed: bool,
    n: int,
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """Output stock before each day's deliveries, days ``0..n``, and free lines each day.

    ``ins``/``outs`` are the input and output units in stock now, on ``day``, before its
    deliveries or (``executed``) after them, with tonight's production still to run.
    Every day the day's inputs arrive, its outputs leave, then the lines turn up to
    ``lines`` inputs into outputs. Days before the first one projected read as it.
    """
    start = day
    if executed:  # today's deliveries are done; today's production runs tonight
        start = day + 1
        made = min(lines, ins)
        ins, outs = ins - made, outs + made
    raw = np.zeros(n + 1, dtype=np.int64)
    spare = np.zeros(n + 1, dtype=np.int64)
    for t in range(start, n):
        ins += incoming[t]
        outs -= outgoing[t]
        raw[t] = outs
        made = min(lines, ins)
        spare[t] = lines - made
        ins, outs = ins - made, outs + made
    raw[n] = outs
    raw[:start] = raw[start]
    return raw, spare


def free_stock(raw: NDArray[np.int64]) -> NDArray[np.int64]:
    """Units each day's stock can give up without any later day going below it."""
    free: NDArray[np.int64] = np.minimum.accumulate(raw[::-1])[::-1]
    return free
