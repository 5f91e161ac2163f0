"""Pure formulas of the SCML 2021 world (spec sections 4.1, 4.3 and 8).

Every function here is a direct transcription of one equation or table of the spec.
Money is integral in the world (prices, quantities and costs are integers); the
spot-market unit prices round up (buying) and liquidation proceeds round down, as the
worked examples of section 4.4 do.

Example:
    >>> spot_buy_unit_price(7, 0.2, 0.1)
    10
    >>> insufficient_funds_breach_level(21, 5, 10)
    0.58
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike, NDArray

from accord.core.errors import ConfigError

__all__ = [
    "EPS",
    "PenaltyState",
    "TradingPriceState",
    "insufficient_funds_breach_level",
    "insufficient_products_breach_level",
    "liquidation_proceeds",
    "profit",
    "spot_buy_unit_price",
    "spot_penalty",
    "spot_sell_unit_price",
    "trading_price",
]

#: Tolerance used when rounding prices computed in floating point (``7*1.2*1.1``).
EPS = 1e-9


def _ceil(x: float) -> int:
    return math.ceil(x - EPS)


def _floor(x: float) -> int:
    return math.floor(x + EPS)


def trading_price(
    catalog: float,
    quantities: Sequence[float] | NDArray[np.float64],
    unit_prices: Sequence[float] | NDArray[np.float64],
    gamma: float = 0.9,
    prior_quantity: float = 50.0,
) -> float:
    """Equation 1: the trading price of one product on day ``d = len(quantities) - 1``.

    ``quantities[i]`` is Q_i(p), the quantity traded on calendar day i (0 on days
    without trade: the discount runs per calendar day), ``unit_prices[i]`` is mu_i(p)
    (ignored where Q_i = 0).

    Example:
        >>> trading_price(10, [0], [0], gamma=0.5, prior_quantity=2)
        10.0
        >>> round(trading_price(10, [2], [20], gamma=0.5, prior_quantity=2), 6)
        16.666667
    """
    q = np.asarray(quantities, dtype=np.float64)
    mu = np.asarray(unit_prices, dtype=np.float64)
    if q.shape != mu.shape or q.ndim != 1:
        raise ConfigError(
            f"quantities and unit_prices must be 1-d of equal length, got {q.shape} and {mu.shape}"
        )
    if not 0.0 <= gamma <= 1.0:
        raise ConfigError(f"gamma must be in [0, 1], got {gamma}")
    d = len(q) - 1
    w = gamma ** np.arange(d, -1, -1, dtype=np.float64)  # gamma^(d-i), i = 0..d
    prior = gamma ** (d + 1) * prior_quantity
    num = prior * catalog + float(np.sum(w * q * np.where(q > 0, mu, 0.0)))
    den = prior + float(np.sum(w * q))
    return num / den if den > 0 else float(catalog)


class TradingPriceState:
    """Incremental form of equation 1 for all products at once (O(products) per day).

    Keeps numerator N_d = gamma N_{d-1} + Q_d mu_d and denominator
    D_d = gamma D_{d-1} + Q_d with N_{-1} = Q_{-1} cat and D_{-1} = Q_{-1}.

    Example:
        >>> s = TradingPriceState([10.0], gamma=0.5, prior_quantity=2)
        >>> s.update([2], [40])
        >>> round(float(s.prices[0]), 6)
        16.666667
    """

    def __init__(self, catalog: ArrayLike, gamma: float = 0.9, prior_quantity: float = 50.0):
        self.catalog = np.asarray(catalog, dtype=np.float64).copy()
        self.gamma = float(gamma)
        self._num = prior_quantity * self.catalog
        self._den = np.full_like(self.catalog, float(prior_quantity))
        self.prices = self.catalog.copy()

    def update(self, quantities: ArrayLike, values: ArrayLike) -> None:
        """Close one calendar day: ``quantities`` Q_d(p) and ``values`` sum of q*u (= Q mu)."""
        self._num = self.gamma * self._num + np.asarray(values, dtype=np.float64)
        self._den = self.gamma * self._den + np.asarray(quantities, dtype=np.float64)
        with np.errstate(invalid="ignore", divide="ignore"):
            self.prices = np.where(self._den > 0, self._num / self._den, self.catalog)


def spot_penalty(bought: Sequence[float], lam: float = 0.1, alpha: float = 0.9) -> float:
    """Equation 2: ip_a(p, d) = lambda * sum_i alpha^(d-i) q_a(p, i), d = len(bought) - 1.

    Example:
        >>> round(spot_penalty([10, 0, 5], lam=0.1, alpha=0.5), 6)
        0.75
    """
    q = np.asarray(bought, dtype=np.float64)
    d = len(q) - 1
    return float(lam * np.sum(alpha ** np.arange(d, -1, -1, dtype=np.float64) * q))


class PenaltyState:
    """Alpha-discounted spot purchase history H_d(a, p) = sum_i alpha^(d-i) q_a(p, i).

    The penalty on day d for buying ``q`` more units, after ``q_today`` units already
    bought today, is lambda * (alpha * H_{d-1} + q_today + q): the amount about to be
    bought is part of today's term of equation 2.

    Example:
        >>> s = PenaltyState(1, 1, lam=0.1, alpha=0.5)
        >>> s.bought_today[0, 0] += 10; s.close_day()
        >>> round(s.penalty(0, 0, 5), 6)  # 0.1 * (0.5 * 10 + 5)
        1.0
    """

    def __init__(self, n_agents: int, n_products: int, lam: float = 0.1, alpha: float = 0.9):
        self.lam = float(lam)
        self.alpha = float(alpha)
        self.history = np.zeros((n_agents, n_products), dtype=np.float64)
        self.bought_today = np.zeros((n_agents, n_products), dtype=np.int64)

    def penalty(self, agent: int, product: int, about_to_buy: int = 0) -> float:
        """ip_a(p, d) including today's purchases so far and ``about_to_buy`` more units."""
        today = int(self.bought_today[agent, product]) + about_to_buy
        return self.lam * (self.alpha * float(self.history[agent, product]) + today)

    def close_day(self) -> None:
        """Fold today's purchases into the discounted history (simulation step 5)."""
        self.history = self.alpha * self.history + self.bought_today
        self.bought_today[:] = 0


def spot_buy_unit_price(tp: float, global_penalty: float, individual_penalty: float) -> int:
    """Spot-market buy price ceil(tp * (1 + gp) * (1 + ip)) (section 4.3, example 4.4).

    Example:
        >>> spot_buy_unit_price(14.4, 0.2, 0.5)
        26
    """
    return _ceil(tp * (1.0 + global_penalty) * (1.0 + individual_penalty))


def spot_sell_unit_price(tp: float, global_penalty: float, individual_penalty: float) -> float:
    """Liquidation (spot sell) price tp / ((1 + gp) * (1 + ip)) (section 4.3).

    Example:
        >>> round(spot_sell_unit_price(14.4, 0.2, 0.5), 9)
        8.0
    """
    return tp / ((1.0 + global_penalty) * (1.0 + individual_penalty))


def liquidation_proceeds(
    quantities: ArrayLike, tps: ArrayLike, global_penalty: float, penalties: ArrayLike
) -> int:
    """floor(sum_p S(p) * tp(p) / ((1 + gp)(1 + ip(p)))): cash from liquidating an inventory.

    Example (section 4.4):
        >>> liquidation_proceeds([100, 110], [8.4, 14.4], 0.2, [0.0, 0.5])
        1580
    """
    s = np.asarray(quantities, dtype=np.float64)
    tp = np.asarray(tps, dtype=np.float64)
    ip = np.asarray(penalties, dtype=np.float64)
    return _floor(float(np.sum(s * tp / ((1.0 + global_penalty) * (1.0 + ip)))))


def insufficient_funds_breach_level(balance: float, unit_price: int, quantity: int) -> float:
    """Table 1: (u q - W) / (u q) when W < u q, else 0.

    Example:
        >>> insufficient_funds_breach_level(21, 5, 10)
        0.58
    """
    value = unit_price * quantity
    if value <= 0 or balance >= value:
        return 0.0
    return min(1.0, (value - balance) / value)


def insufficient_products_breach_level(stock: int, quantity: int) -> float:
    """Table 1: (q - S(p)) / q when S(p) < q, else 0.

    Example:
        >>> insufficient_products_breach_level(6, 10)
        0.4
    """
    if quantity <= 0 or stock >= quantity:
        return 0.0
    return min(1.0, (quantity - stock) / quantity)


def profit(
    final_balances: ArrayLike,
    initial_balances: ArrayLike,
    final_inventories: ArrayLike,
    trading_prices: ArrayLike,
    inventory_fraction: float = 0.5,
) -> float:
    """Equation 3: consolidated profit of the factories ``F`` controlled by one agent type.

    ``final_inventories`` is a (|F|, products) array; I_N(f) = sum_p S_N(f, p) tp(p) and
    Profit = sum_f (B_N(f) + eps I_N(f) - B_0(f)) / sum_f B_0(f).

    Example:
        >>> profit([1200], [1000], [[10, 0]], [8.0, 20.0], 0.5)
        0.24
    """
    bn = np.atleast_1d(np.asarray(final_balances, dtype=np.float64))
    b0 = np.atleast_1d(np.asarray(initial_balances, dtype=np.float64))
    inv = np.atleast_2d(np.asarray(final_inventories, dtype=np.float64))
    tp = np.asarray(trading_prices, dtype=np.float64)
    if inv.shape != (len(bn), len(tp)):
        raise ConfigError(
            f"final_inventories must have shape ({len(bn)}, {len(tp)}), got {inv.shape}"
        )
    total0 = float(b0.sum())
    if total0 <= 0:
        raise ConfigError(f"the initial balances must sum to a positive amount, got {total0}")
    value = inv @ tp
    return float(np.sum(bn + inventory_fraction * value - b0)) / total0
