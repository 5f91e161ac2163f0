"""Spec sections 1, 3 and 5: what is public (the bulletin board) and what stays private."""

from __future__ import annotations

import numpy as np
from scml_spec_helpers import Fixed, Scripted, bare_world

from accord.leagues.scml.agents import DoNothingAgent
from accord.leagues.scml.contracts import BreachReport, FinancialReport
from accord.leagues.scml.generate import generate_config
from accord.leagues.scml.params import SimulationParams
from accord.leagues.scml.world import World

TABLE_2 = {
    "reporting_period": 5,
    "time_limit": 7200.0,
    "neg_time_limit": 120.0,
    "neg_n_steps": 20,
    "neg_step_time_limit": 10.0,
    "negotiation_speed": 21,
    "negotiation_quota": None,
    "signing_delay": 0,
    "trading_price_discount": 0.9,
    "prior_quantity": 50.0,
    "spot_lambda": 0.1,
    "spot_alpha": 0.9,
    "global_penalty": 0.15,
    "horizon_range": (0.1, 0.4),
}


def test_static_bulletin_board_settings_products_and_catalog_prices():
    cfg = generate_config(n_steps=30, factories_per_level=[2, 3, 2], seed=8)
    w = World(cfg, [DoNothingAgent] * 7, seed=8)
    bb = w.agents[4].awi.bb
    assert dict(bb.settings) == {
        **TABLE_2,
        "n_steps": 30,
        "n_products": 4,
        "n_lines": 10,
        "exogenous_contracts_horizon": cfg.horizon,
        "inventory_valuation": 0.5,  # Table 3: posted in the settings section
    }
    assert bb.catalog_prices == tuple(int(c) for c in cfg.catalog_prices)
    assert bb.catalog_prices[0] == 10
    names = w.names
    assert bb.producers(0) == () and bb.consumers(3) == ()
    assert bb.consumers(0) == bb.producers(1) == tuple(names[0:2])
    assert bb.consumers(1) == bb.producers(2) == tuple(names[2:5])
    assert bb.consumers(2) == bb.producers(3) == tuple(names[5:7])
    # nothing private is posted: no costs, balances or profiles in the settings
    assert not {"costs", "initial_balances", "balances"} & set(bb.settings)
    assert (bb.breaches, bb.financial_reports, bb.market) == ((), (), ())
    # the trading prices read as the catalog prices until the first day ends
    assert bb.trading_prices == tuple(float(c) for c in cfg.catalog_prices)


def test_public_reports_carry_no_contract_or_private_state():
    # a breach report is (agent, level, kind) plus the day: no contract, no partner
    assert BreachReport._fields == ("agent", "level", "kind", "day")
    assert FinancialReport._fields == (
        "agent",
        "day",
        "balance",
        "inventory_value",
        "breach_probability",
        "breach_level",
        "bankrupt",
    )


def test_market_status_summarises_the_exogenous_contracts_of_each_day():
    rows = [
        (0, 0, 5, 10, 1, 0, False),
        (0, 0, 5, 13, 1, 0, False),
        (1, 2, 4, 40, 2, 0, True),
    ]
    w = bare_world([Scripted(), Scripted()], [1, 1], [1000, 1000], [2, 3], 4, rows, [10, 20, 40])
    w.run()
    m = w.bb.market
    assert [s.day for s in m] == [0, 1, 2, 3]
    assert [s.exogenous_quantity for s in m] == [(0, 0, 0), (10, 0, 0), (0, 0, 4), (0, 0, 0)]
    assert m[1].exogenous_mean_price == (11.5, 0.0, 0.0)  # (5 x 10 + 5 x 13) / 10
    assert m[2].exogenous_mean_price == (0.0, 0.0, 40.0)
    assert m[0].exogenous_mean_price == (0.0, 0.0, 0.0)


def test_a_generated_world_with_days_without_exogenous_contracts_runs():
    # one line per factory: floor(1 x eta) = 0 active lines, so no exogenous contract at all
    cfg = generate_config(n_steps=4, factories_per_level=[1, 1], n_lines=1, seed=0)
    assert len(cfg.exogenous) == 0
    w = World(cfg, [DoNothingAgent] * 2).run()
    assert [s.exogenous_quantity for s in w.bb.market] == [(0, 0, 0)] * 4


def test_negotiations_and_contracts_are_private_to_their_parties():
    def ask(agent: Scripted) -> None:
        agent.awi.request_negotiation(True, 1, 2, 20, 3, agent.awi.my_suppliers[0], Fixed(None))

    a0, a1, b = Scripted(), Scripted(), Scripted({("before_step", 1): ask})
    w = bare_world([a0, a1, b], [2, 1], [1000] * 3, [2, 2, 3], 5, (), [10, 20, 40])
    w.ledger.inventory[0, 1] = 2
    w.ledger.goods_created[1] = 2
    w.run()
    ((_, (c,)),) = b.calls("on_negotiation_success")
    assert (c.seller, c.buyer) == (w.names[0], w.names[2])
    assert [n for *_, n, _ in a0.log if n.startswith("on_") or n.startswith("respond")] == [
        "respond_to_negotiation_request",
        "on_negotiation_success",
        "on_contracts_finalized",
    ]
    # the third agent hears nothing and sees nothing of it
    assert [n for _, _, n, _ in a1.log] == ["init"] + ["before_step", "step"] * 5
    assert a1.awi.contracts(None) == []
    assert [x.id for x in a0.awi.contracts(None)] == [c.id]
    assert w.bb.breaches == () and all(r.agent != c.id for r in w.bb.financial_reports)


def test_the_profile_and_state_an_agent_sees_are_its_own():
    cfg = generate_config(n_steps=6, factories_per_level=[2, 2], seed=3)
    w = World(cfg, [DoNothingAgent] * 4, seed=3)
    for i, agent in enumerate(w.agents):
        awi = agent.awi
        assert (awi.cost, awi.level, awi.n_lines) == (int(cfg.costs[i]), cfg.factory_level[i], 10)
        assert awi.current_balance == int(cfg.initial_balances[i])
        assert awi.current_inventory == (0, 0, 0)
        st = awi.state
        assert st.commands.shape == (6, 10) and (st.commands == -1).all()
        st.commands[:] = 0  # a copy: the factory's schedule is unchanged
    assert (w.ledger.commands == -1).all()
    assert not np.array_equal(cfg.costs, np.full(4, cfg.costs[0]))  # costs vary by factory


def test_table_2_defaults():
    assert {k: v for k, v in SimulationParams().to_dict().items()} == TABLE_2
