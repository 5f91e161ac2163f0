"""The default agent makes a market: all-default worlds sign far more of the exogenous
demand and supply than the old trader, sign most of what they agree, and stay profitable.

(The 20-world figures are measured by ``bench/bench_scml_market.py``; here three small
seeded worlds keep the test fast.)"""

from __future__ import annotations

import numpy as np

from accord.core import CallableUtility, IntegerIssue, OutcomeSpace
from accord.leagues.scml.agent import EmpoweredNegotiator
from accord.leagues.scml.generate import generate_config
from accord.leagues.scml.report import summary
from accord.leagues.scml.world import World

SEEDS = (0, 1, 2)


def _figures(agent: str) -> list[dict]:
    out = []
    for seed in SEEDS:
        cfg = generate_config(n_steps=30, seed=seed, max_factories_per_level=3)
        w = World(cfg, [agent] * cfg.n_factories, seed=seed).run()
        w.check_invariants()
        out.append(summary(w))
    return out


def test_the_default_agent_makes_a_market_and_a_profit():
    market, trader = _figures("market"), _figures("trader")

    def mean(rows: list[dict], key: str) -> float:
        return float(np.mean([r[key] for r in rows]))

    assert mean(market, "demand_met") > 4 * mean(trader, "demand_met")
    assert mean(market, "supply_met") > 3 * mean(trader, "supply_met")
    assert mean(market, "negotiated_per_day") > mean(trader, "negotiated_per_day")
    assert mean(market, "agreements_signed") > 0.6
    assert all(next(iter(r["profit"].values())) > 0 for r in market)
    assert all(r["bankruptcies"] == 0 and r["exceptions"] == 0 for r in market)


def test_empowered_negotiator_accepts_near_its_best_for_negative_utilities():
    space = OutcomeSpace([IntegerIssue("price", 1, 11)])

    def accepted(neg: EmpoweredNegotiator) -> list[int]:
        u = CallableUtility(space, neg.utility_function)
        return [p for p in range(1, 12) if neg.acceptable(u, (p,))]

    # a buyer with utility -price (-1 .. -11): accepts within 10 % of the range from its
    # best, prices 1 and 2 (the old rule, u >= 0.9 * best, accepted nothing at all)
    assert accepted(EmpoweredNegotiator(lambda o: -float(o[0]))) == [1, 2]
    assert accepted(EmpoweredNegotiator(lambda o: float(o[0]))) == [10, 11]
    assert accepted(EmpoweredNegotiator(lambda o: float(o[0]) - 100)) == [10, 11]
    assert accepted(EmpoweredNegotiator(lambda o: -5.0)) == list(range(1, 12))  # indifferent
    assert accepted(EmpoweredNegotiator(lambda o: -float(o[0]), accept_fraction=0.5)) == [
        1, 2, 3, 4, 5, 6,
    ]  # fmt: skip
