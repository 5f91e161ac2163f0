"""World generation (spec Appendix A.2, Tables 2 and 3): a *basic configuration*.

A basic configuration is everything about a world except which agent manages which
factory: the production chain, factories per level, costs, catalog prices, initial
balances and the exogenous contracts. Every random draw comes from one seeded
``numpy.random.Generator``, so the same seed gives the same configuration.

Example:
    >>> cfg = generate_config(n_steps=20, factories_per_level=[2, 3], seed=7)
    >>> cfg.n_levels, cfg.n_products, cfg.n_factories, int(cfg.catalog_prices[0])
    (2, 3, 5, 10)
    >>> bool((cfg.exogenous.reveal <= cfg.exogenous.delivery).all())
    True
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from accord.core.errors import ConfigError
from accord.leagues.scml.params import SimulationParams

__all__ = ["RAW_MATERIAL_PRICE", "ExogenousContracts", "WorldConfig", "generate_config"]

#: g_0 of Table 3.
RAW_MATERIAL_PRICE = 10

IntArray = NDArray[np.int64]


@dataclass(frozen=True)
class ExogenousContracts:
    """All exogenous contracts of a world as parallel arrays, sorted by reveal day.

    ``is_sell`` is True for the final-product contracts (the agent sells to the
    simulator) and False for the raw-material ones (the agent buys).
    """

    agent: IntArray
    product: IntArray
    quantity: IntArray
    unit_price: IntArray
    delivery: IntArray
    reveal: IntArray
    is_sell: NDArray[np.bool_]

    def __len__(self) -> int:
        return len(self.agent)

    def revealed_on(self, day: int) -> slice:
        """Index range of the contracts revealed on ``day`` (the arrays are sorted)."""
        lo = int(np.searchsorted(self.reveal, day, side="left"))
        hi = int(np.searchsorted(self.reveal, day, side="right"))
        return slice(lo, hi)


@dataclass(frozen=True)
class WorldConfig:
    """A basic configuration (A.3): the world up to the assignment of agents."""

    n_steps: int
    n_levels: int
    factory_level: IntArray
    n_lines: int
    costs: IntArray
    catalog_prices: IntArray
    initial_balances: IntArray
    exogenous: ExogenousContracts
    horizon: int
    inventory_valuation: float
    params: SimulationParams
    seed: int | None = None
    info: dict[str, object] = field(default_factory=dict, compare=False)

    @property
    def n_products(self) -> int:
        return self.n_levels + 1

    @property
    def n_factories(self) -> int:
        return len(self.factory_level)

    def factories_at(self, level: int) -> list[int]:
        """Indices of the factories running process ``level`` (input ``level``)."""
        return [int(i) for i in np.flatnonzero(self.factory_level == level)]

    @property
    def factories_per_level(self) -> list[int]:
        return [int(n) for n in np.bincount(self.factory_level, minlength=self.n_levels)]


def generate_config(
    n_steps: int = 50,
    factories_per_level: Sequence[int] | None = None,
    n_levels: int | None = None,
    seed: int | np.random.Generator | None = 0,
    params: SimulationParams | None = None,
    inventory_valuation: float | None = 0.5,
    n_lines: int = 10,
    max_factories_per_level: int = 4,
) -> WorldConfig:
    """Draw a basic configuration per Appendix A.2.

    ``factories_per_level`` fixes |A|_l (one entry per process); otherwise the number
    of processes is ``n_levels`` or drawn from U{2..5} and |A|_l from
    U{2..max_factories_per_level}. ``inventory_valuation`` is epsilon of eq. 3 (0.5,
    the 2021 value of footnote 10); ``None`` draws it from U[0, 1/2] as Table 3 says.
    """
    if n_steps < 1:
        raise ConfigError(f"n_steps must be >= 1, got {n_steps}")
    if n_lines < 1:
        raise ConfigError(f"n_lines must be >= 1, got {n_lines}")
    params = params or SimulationParams()
    seed_value = seed if isinstance(seed, int) else None
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    if factories_per_level is None:
        levels = int(rng.integers(2, 6)) if n_levels is None else int(n_levels)
        if max_factories_per_level < 2:
            raise ConfigError(
                f"max_factories_per_level must be >= 2, got {max_factories_per_level}"
            )
        counts = rng.integers(2, max_factories_per_level + 1, size=levels)
    else:
        counts = np.asarray(factories_per_level, dtype=np.int64)
        levels = len(counts)
    if levels < 1 or (counts < 1).any():
        raise ConfigError(
            f"need at least one level with at least one factory each, got {counts.tolist()}"
        )
    if levels < 2:
        raise ConfigError(
            "need at least 2 processes (A.2: L >= 2; with one, a factory would get both "
            f"exogenous buy and sell contracts), got factories per level {counts.tolist()}"
        )
    factory_level = np.repeat(np.arange(levels), counts).astype(np.int64)

    # Table 3 draws (the order of draws is part of reproducibility: do not reorder)
    eps = float(rng.uniform(0.0, 0.5)) if inventory_valuation is None else inventory_valuation
    xi = float(rng.uniform(1.5, 2.5))
    e = float(rng.uniform(0.2, 0.8))
    c_level = (np.arange(levels) + 1) * rng.uniform(1.0, 10.0, size=levels)
    costs = np.maximum(1, np.rint(rng.uniform(c_level[factory_level], 4 * c_level[factory_level])))
    costs = costs.astype(np.int64)
    profit_level = rng.normal(rng.uniform(0.1, 0.2, size=levels), 0.05)
    eta = rng.uniform(0.8, 1.0, size=(levels, n_steps))
    lo, hi = params.horizon_range
    horizon = max(1, math.floor(rng.uniform(lo, hi) * n_steps))

    mu = np.array([costs[factory_level == lv].mean() for lv in range(levels)])
    catalog = np.zeros(levels + 1, dtype=np.int64)
    catalog[0] = RAW_MATERIAL_PRICE
    for lv in range(levels):
        catalog[lv + 1] = max(1, round((catalog[lv] + mu[lv]) * (1.0 + profit_level[lv])))

    active = np.floor(n_lines * counts[:, None] * eta).astype(np.int64)  # A_l(d)
    q = np.zeros((levels + 1, n_steps), dtype=np.int64)  # Q_p(d)
    q[0] = active[0]
    for p in range(1, levels + 1):
        q[p, 1:] = np.minimum(q[p - 1, :-1], active[p - 1, 1:])
    balances = np.rint(xi * (catalog[:levels] + mu) / counts * q[1:].sum(axis=1))
    # worlds shorter than the chain give b_l = 0; keep B_0 > 0 so eq. 3 is defined
    initial_balances = np.maximum(1, balances[factory_level]).astype(np.int64)

    exo, shares = _exogenous(rng, factory_level, levels, q, catalog, e, horizon)
    info: dict[str, object] = {
        "cash_availability": xi,
        "exogenous_controllability": e,
        "level_cost": c_level.tolist(),
        "level_profit": profit_level.tolist(),
        "productivity": eta,
        "active_lines": active,
        "production_capacity": q,
        "exogenous_shares": shares,
    }
    return WorldConfig(
        n_steps=n_steps,
        n_levels=levels,
        factory_level=factory_level,
        n_lines=n_lines,
        costs=costs,
        catalog_prices=catalog,
        initial_balances=initial_balances,
        exogenous=exo,
        horizon=horizon,
        inventory_valuation=float(eps),
        params=params,
        seed=seed_value,
        info=info,
    )


def _exogenous(
    rng: np.random.Generator,
    factory_level: IntArray,
    levels: int,
    q: IntArray,
    catalog: IntArray,
    e: float,
    horizon: int,
) -> tuple[ExogenousContracts, dict[int, float]]:
    """The exogenous contracts and each end-of-chain factory's fixed share of its level."""
    rows: list[tuple[int, int, int, int, int, int, bool]] = []
    shares: dict[int, float] = {}
    n_steps = q.shape[1]
    for level, product, is_sell in ((0, 0, False), (levels - 1, levels, True)):
        members = np.flatnonzero(factory_level == level)
        share = rng.uniform(0.0, 1.0, size=len(members)) + 1e-9
        share = share / share.sum()
        shares.update((int(a), float(s)) for a, s in zip(members, share, strict=True))
        for d in range(n_steps):
            total = int(q[product, d])
            if total <= 0:
                continue
            for a, qa in zip(members, rng.multinomial(total, share), strict=True):
                for part in _split(rng, int(qa), e):
                    rows.append(
                        (
                            int(a),
                            product,
                            part,
                            int(catalog[product]),
                            d,
                            max(0, d - horizon),
                            is_sell,
                        )
                    )
    rows.sort(key=lambda r: (r[5], r[4], r[0], r[6]))
    cols = list(zip(*rows, strict=True)) if rows else [()] * 7
    ints = [np.asarray(c, dtype=np.int64) for c in cols[:6]]
    agent, prod, quantity, price, delivery, reveal = ints
    exo = ExogenousContracts(
        agent, prod, quantity, price, delivery, reveal, np.asarray(cols[6], dtype=bool)
    )
    return exo, shares


def _split(rng: np.random.Generator, total: int, e: float) -> list[int]:
    """Split ``total`` units into max(1, round(e * total)) positive random parts."""
    if total <= 0:
        return []
    n = max(1, min(total, round(e * total)))
    if n == 1:
        return [total]
    cuts = np.sort(rng.choice(np.arange(1, total), size=n - 1, replace=False))
    return [int(x) for x in np.diff(np.concatenate(([0], cuts, [total])))]
