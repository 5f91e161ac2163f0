"""QOValue (eqs. 1-3) and the offer list with its concession rate (Listing 1).

Ranks and Luce numbers (eqs. 2-3)::

    rank(o) = order(o, O) / |O|        order 1..|O|, ascending in utility (ties: highest)
    lu(o)   = u(o) / sum_x u(x)        (utilities shifted to start at 0 if any is negative)
    QOValue(o) = min(rank_a(o) * lu_a(o), [lu_a(o) + lu_b(o)] * rank_b(o))

The paper's worked example (Table 1): 5 turns, ExpectedOppAvg 440.

>>> qo = [13.45, 12.5, 12, 11.22, 10.3, 10, 9.87, 9.8, 9, 8.8]
>>> u_opp = [350, 300, 400, 430, 350, 435, 470, 490, 410, 500]
>>> plan = offer_list(qo, u_opp, [True] * 10, expected_opp_avg=440, turns=5)
>>> plan.offers, plan.concession_rate
([0, 2, 3, 5, 6, 7, 9], 1.25)
>>> [plan.position(t) for t in range(5)]
[0, 1, 2, 3, 5]
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

__all__ = [
    "OfferPlan",
    "luce",
    "offer_list",
    "qo_values",
    "rank",
]

Floats = npt.NDArray[np.float64]
CONCEDE_BY = 0.8
"""Fraction of the turns after which the ExpectedOppAvg offer is reached."""


def rank(u: npt.ArrayLike) -> Floats:
    """``order(o, O) / |O|`` for every outcome (eq. 2); equal utilities share the top order.

    >>> rank([10.0, 30.0, 20.0, 30.0]).tolist()
    [0.25, 1.0, 0.5, 1.0]
    """
    arr = np.asarray(u, dtype=float)
    order = np.searchsorted(np.sort(arr), arr, side="right")
    return np.asarray(order / arr.size, dtype=np.float64)


def luce(u: npt.ArrayLike) -> Floats:
    """Luce numbers ``u(o) / sum u`` (eq. 3); negative utilities are first shifted to 0.

    >>> luce([1.0, 3.0]).tolist()
    [0.25, 0.75]
    """
    arr = np.asarray(u, dtype=float)
    low = float(arr.min())
    if low < 0:
        arr = arr - low
    total = float(arr.sum())
    if total <= 0:
        return np.full(arr.size, 1.0 / arr.size)
    return np.asarray(arr / total, dtype=np.float64)


def qo_values(u_own: npt.ArrayLike, u_opp: npt.ArrayLike) -> Floats:
    """QOValue of every outcome (eq. 1): ``a`` is the agent, ``b`` the (believed) opponent."""
    ra, rb = rank(u_own), rank(u_opp)
    la, lb = luce(u_own), luce(u_opp)
    return np.asarray(np.minimum(ra * la, (la + lb) * rb), dtype=np.float64)


@dataclass(frozen=True)
class OfferPlan:
    """The ordered offer list (outcome indices) and the concession rate."""

    offers: list[int]
    concession_rate: float
    concession_index: int

    def position(self, turn: int) -> int:
        """Position in :attr:`offers` proposed at turn ``turn`` (0-based): floor(turn*rate)."""
        return min(int(math.floor(turn * self.concession_rate + 1e-9)), len(self.offers) - 1)

    def offer(self, turn: int) -> int:
        """Outcome index proposed at turn ``turn``."""
        return self.offers[self.position(turn)]


def offer_list(
    qo: Sequence[float] | Floats,
    u_opp: Sequence[float] | Floats,
    above_sq: Sequence[bool] | npt.NDArray[np.bool_],
    expected_opp_avg: float,
    turns: int,
) -> OfferPlan:
    """Listing 1: the offer list by decreasing QOValue and rising opponent utility.

    The first offer is the one with the largest QOValue; a later offer joins the list when
    it gives the opponent more than every offer before it and the agent more than its
    status quo (``above_sq``). The concession index is the position, counted from 1 as in
    the paper's worked example ("the fifth offer"), of the first listed offer worth more
    than ``expected_opp_avg`` to the opponent; the rate is ``index / (0.8 * turns)``. When no
    listed offer exceeds the average, the agent concedes to the end of the list by then.
    """
    qo_arr = np.asarray(qo, dtype=float)
    opp = np.asarray(u_opp, dtype=float)
    ok = np.asarray(above_sq, dtype=bool)
    order = np.argsort(-qo_arr, kind="stable")
    offers = [int(order[0])]
    best = opp[order[0]]
    index = 0
    for i in order[1:]:
        if opp[i] > best and ok[i]:
            offers.append(int(i))
            best = opp[i]
            if index == 0 and opp[i] > expected_opp_avg:
                index = len(offers)
    if index == 0 and opp[offers[0]] <= expected_opp_avg:
        index = len(offers) - 1
    return OfferPlan(offers, index / (CONCEDE_BY * turns), index)
