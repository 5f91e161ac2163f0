"""World generation per Appendix A.2 (Tables 2 and 3)."""

from __future__ import annotations

import numpy as np
import pytest

from accord.leagues.scml.generate import generate_config
from accord.leagues.scml.params import SimulationParams


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_generation_follows_appendix_a2(seed):
    cfg = generate_config(n_steps=40, seed=seed)
    info = cfg.info
    levels, n_steps = cfg.n_levels, cfg.n_steps
    assert 2 <= levels <= 5
    assert all(n >= 2 for n in cfg.factories_per_level)
    assert cfg.catalog_prices[0] == 10
    c_level = np.asarray(info["level_cost"])
    for lv in range(levels):
        assert 1 * (lv + 1) <= c_level[lv] <= 10 * (lv + 1)
        costs = cfg.costs[cfg.factory_level == lv]
        assert (costs >= np.floor(c_level[lv])).all() and (costs <= np.ceil(4 * c_level[lv])).all()
        mu = costs.mean()
        pi = info["level_profit"][lv]
        assert cfg.catalog_prices[lv + 1] == max(1, round((cfg.catalog_prices[lv] + mu) * (1 + pi)))
    # A_l(d) = floor(nu_l eta_l(d)) and Q_p(d) = min(Q_{p-1}(d-1), A_{p-1}(d))
    eta = info["productivity"]
    assert ((eta >= 0.8) & (eta <= 1.0)).all()
    active = info["active_lines"]
    counts = np.asarray(cfg.factories_per_level)
    assert (active == np.floor(10 * counts[:, None] * eta)).all()
    q = info["production_capacity"]
    assert (q[0] == active[0]).all()
    for p in range(1, levels + 1):
        assert q[p, 0] == 0
        assert (q[p, 1:] == np.minimum(q[p - 1, :-1], active[p - 1, 1:])).all()
    # b_l = xi (g_l + mu_p) / |A|_l * sum_d Q_p(d), same for all factories of a level
    xi = info["cash_availability"]
    assert 1.5 <= xi <= 2.5
    for lv in range(levels):
        mu = cfg.costs[cfg.factory_level == lv].mean()
        b = round(xi * (cfg.catalog_prices[lv] + mu) / counts[lv] * q[lv + 1].sum())
        assert (cfg.initial_balances[cfg.factory_level == lv] == b).all()
    # exogenous contracts: totals per day are Q_0(d) and Q_L(d), at catalog prices
    ex = cfg.exogenous
    h = cfg.horizon
    assert max(1, int(0.1 * n_steps)) <= h <= int(0.4 * n_steps)
    assert (ex.quantity > 0).all()
    assert (ex.reveal == np.maximum(0, ex.delivery - h)).all()
    assert (np.diff(ex.reveal) >= 0).all()
    buys, sells = ~ex.is_sell, ex.is_sell
    assert (cfg.factory_level[ex.agent[buys]] == 0).all()
    assert (cfg.factory_level[ex.agent[sells]] == levels - 1).all()
    assert (ex.product[buys] == 0).all() and (ex.product[sells] == levels).all()
    assert (ex.unit_price[buys] == 10).all()
    assert (ex.unit_price[sells] == cfg.catalog_prices[levels]).all()
    for d in range(n_steps):
        assert ex.quantity[buys & (ex.delivery == d)].sum() == q[0, d]
        assert ex.quantity[sells & (ex.delivery == d)].sum() == q[levels, d]
    assert cfg.inventory_valuation == 0.5


def test_same_seed_same_configuration_and_different_seed_differs():
    a = generate_config(n_steps=30, seed=11)
    b = generate_config(n_steps=30, seed=11)
    c = generate_config(n_steps=30, seed=12)
    for name in ("costs", "catalog_prices", "initial_balances", "factory_level"):
        assert np.array_equal(getattr(a, name), getattr(b, name))
    for name in ("agent", "quantity", "delivery", "reveal"):
        assert np.array_equal(getattr(a.exogenous, name), getattr(b.exogenous, name))
    assert not (
        len(a.exogenous) == len(c.exogenous)
        and np.array_equal(a.exogenous.quantity, c.exogenous.quantity)
    )


def test_fixed_factories_per_level_and_sampled_inventory_valuation():
    cfg = generate_config(
        n_steps=10, factories_per_level=[2, 3, 2], seed=5, inventory_valuation=None
    )
    assert cfg.factories_per_level == [2, 3, 2]
    assert cfg.factories_at(1) == [2, 3, 4]
    assert 0.0 <= cfg.inventory_valuation <= 0.5


def test_bad_generation_input_says_what_was_expected():
    with pytest.raises(ValueError, match="n_steps must be >= 1, got 0"):
        generate_config(n_steps=0)
    with pytest.raises(ValueError, match="at least one factory"):
        generate_config(n_steps=5, factories_per_level=[2, 0])
    with pytest.raises(ValueError, match="global_penalty"):
        SimulationParams(global_penalty=-1)
