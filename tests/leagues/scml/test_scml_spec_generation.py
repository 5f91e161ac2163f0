"""Appendix A.2 / Table 3 rules not covered by ``test_scml_generate.py``.

The number of exogenous contracts per factory and day (grows with e), each end-of-chain
factory's fixed share of its level's exogenous quantity, the Table 3 ranges over many
draws, and nu_a = 10 lines per factory.
"""

from __future__ import annotations

from collections import defaultdict

import numpy as np
import pytest

from accord.leagues.scml.generate import generate_config


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_each_factory_day_quantity_is_split_into_round_e_q_contracts(seed):
    cfg = generate_config(n_steps=30, seed=seed)
    e = cfg.info["exogenous_controllability"]
    assert 0.2 <= e <= 0.8
    ex = cfg.exogenous
    parts: dict[tuple[int, int], list[int]] = defaultdict(list)
    for a, d, q in zip(ex.agent, ex.delivery, ex.quantity, strict=True):
        parts[(int(a), int(d))].append(int(q))
    assert parts
    for qs in parts.values():
        total = sum(qs)
        assert len(qs) == max(1, min(total, round(e * total)))
        assert min(qs) >= 1


def test_more_controllability_means_more_contracts():
    def n_contracts(seed: int) -> tuple[float, int]:
        cfg = generate_config(n_steps=20, factories_per_level=[2, 2], seed=seed)
        return cfg.info["exogenous_controllability"], len(cfg.exogenous)

    pairs = sorted(n_contracts(s) for s in range(12))
    es, ns = zip(*pairs, strict=True)
    assert np.corrcoef(es, ns)[0, 1] > 0.9


def test_each_factory_keeps_a_consistent_share_of_its_levels_exogenous_quantity():
    cfg = generate_config(n_steps=200, factories_per_level=[3, 2, 3], seed=4)
    shares = cfg.info["exogenous_shares"]
    ex = cfg.exogenous
    assert sorted(shares) == [0, 1, 2, 5, 6, 7]  # only the two ends of the chain
    for level in (0, 2):
        members = cfg.factories_at(level)
        assert sum(shares[a] for a in members) == pytest.approx(1.0)
        mine = np.isin(ex.agent, members)
        halves = (ex.delivery < 100, ex.delivery >= 100)
        for a in members:
            got = ex.quantity[ex.agent == a].sum() / ex.quantity[mine].sum()
            assert got == pytest.approx(shares[a], abs=0.03)
            first, second = (
                ex.quantity[(ex.agent == a) & h].sum() / ex.quantity[mine & h].sum() for h in halves
            )
            assert abs(first - second) < 0.05  # the same share early and late


def test_table_3_ranges_over_many_draws():
    draws: dict[str, list[float]] = defaultdict(list)
    for seed in range(60):
        cfg = generate_config(n_steps=10, seed=seed, inventory_valuation=None)
        info = cfg.info
        assert cfg.n_lines == 10 and 2 <= cfg.n_levels <= 5  # nu_a = 10; L in U{2..5}
        assert min(cfg.factories_per_level) >= 2
        draws["eps"].append(cfg.inventory_valuation)
        draws["xi"].append(info["cash_availability"])
        draws["e"].append(info["exogenous_controllability"])
        draws["pi"].extend(info["level_profit"])
        for lv, c in enumerate(info["level_cost"]):
            draws["c/l"].append(c / (lv + 1))
        draws["L"].append(cfg.n_levels)
    for name, lo, hi in (("eps", 0, 0.5), ("xi", 1.5, 2.5), ("e", 0.2, 0.8), ("c/l", 1, 10)):
        x = np.asarray(draws[name])
        assert lo <= x.min() and x.max() <= hi, name
        # uniform: the draws spread over the range
        assert x.min() < lo + 0.2 * (hi - lo) and x.max() > hi - 0.2 * (hi - lo), name
    assert set(draws["L"]) == {2, 3, 4, 5}
    # pi_l ~ N(U[0.1, 0.2], 0.05): mean 0.15, sd sqrt(0.05^2 + 0.1^2 / 12) = 0.0577
    pi = np.asarray(draws["pi"])
    assert pi.mean() == pytest.approx(0.15, abs=0.015)
    assert pi.std() == pytest.approx(0.0577, abs=0.012)


def test_a_single_process_chain_is_refused():
    # with L = 1 one factory would hold exogenous buy *and* sell contracts, and could
    # profit without negotiating, which section 1 rules out by design
    with pytest.raises(
        ValueError, match=r"need at least 2 processes .* got factories per level \[3\]"
    ):
        generate_config(n_steps=5, factories_per_level=[3])
    with pytest.raises(ValueError, match="need at least 2 processes"):
        generate_config(n_steps=5, n_levels=1)
    cfg = generate_config(n_steps=5, factories_per_level=[2, 2])
    ex = cfg.exogenous
    sellers, buyers = set(ex.agent[ex.is_sell].tolist()), set(ex.agent[~ex.is_sell].tolist())
    assert sellers and buyers and not sellers & buyers
