"""The simulation day: invariants, reproducibility, information and the order of steps."""

from __future__ import annotations

import numpy as np
import pytest
from scml_helpers import PhaseRecorder, RecklessBuyer

from accord.leagues.scml.agents import DoNothingAgent, RandomAgent, TraderAgent
from accord.leagues.scml.contracts import ContractStatus
from accord.leagues.scml.formulas import trading_price
from accord.leagues.scml.generate import generate_config
from accord.leagues.scml.world import World


def _mixed(cfg, seed):
    kinds = [TraderAgent, RandomAgent, RecklessBuyer, TraderAgent]
    return [kinds[(i + seed) % len(kinds)]() for i in range(cfg.n_factories)]


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_invariants_hold_every_day(seed):
    cfg = generate_config(n_steps=25, seed=seed)
    w = World(cfg, _mixed(cfg, seed), seed=seed)
    for _ in range(cfg.n_steps):
        w.step()
        w.check_invariants()  # money and goods conserved, nothing negative
    assert w.history.exceptions == []


def test_invariants_are_exercised_by_bankruptcies_and_breaches():
    n_bankrupt = n_breaches = 0
    for seed in range(4):
        cfg = generate_config(n_steps=25, seed=seed)
        w = World(cfg, _mixed(cfg, seed), seed=seed).run()
        n_bankrupt += len(w.history.bankruptcies)
        n_breaches += len(w.bb.breaches)
    assert n_bankrupt > 0 and n_breaches > 0


def test_bankrupt_agents_take_no_further_action():
    seen = 0
    for seed in range(4):
        cfg = generate_config(n_steps=25, seed=seed)
        w = World(cfg, _mixed(cfg, seed), seed=seed).run()
        for i, agent in enumerate(w.agents):
            if not w.ledger.bankrupt[i]:
                continue
            seen += 1
            day = int(w.ledger.bankrupt_on[i])
            if isinstance(agent, RecklessBuyer):
                assert agent.calls_after_bankruptcy == []
                assert not agent.awi.request_negotiation(
                    True,
                    agent.awi.my_input_product,
                    1,
                    1,
                    w.n_steps - 1,
                    "anyone",
                    None,  # type: ignore[arg-type]
                )
            assert (w.ledger.commands[i, day:] == -1).all()
            assert w.ledger.inventory[i].sum() == 0
            mine = [w.book.contracts[c] for c in w.book.of_agent[i]]
            late = [c for c in mine if c.concluded_at > day]
            assert late == []  # no agreement reached after the bankruptcy
            assert all(
                w.book.status[c.id] is not ContractStatus.SIGNED for c in mine
            )  # everything executed or nullified by the end
    assert seen > 0


def _fingerprint(w: World):
    contracts = sorted(
        (
            c.id,
            c.seller,
            c.buyer,
            c.product,
            c.unit_price,
            c.quantity,
            c.delivery,
            w.book.status[c.id].value,
        )
        for c in w.book.contracts.values()
    )
    return contracts, w.history.balance.tolist(), sorted(w.scores().items())


def test_same_seed_same_world():
    cfg = generate_config(n_steps=20, seed=5)
    a = World(cfg, _mixed(cfg, 5), seed=9).run()
    b = World(generate_config(n_steps=20, seed=5), _mixed(cfg, 5), seed=9).run()
    assert _fingerprint(a) == _fingerprint(b)
    assert a.type_scores() == b.type_scores()
    assert len(a.book.contracts) > 50
    c = World(cfg, _mixed(cfg, 5), seed=10).run()
    assert _fingerprint(c) != _fingerprint(a)


def test_do_nothing_agents_decline_exogenous_contracts_and_score_zero():
    cfg = generate_config(n_steps=15, seed=2)
    w = World(cfg, [DoNothingAgent] * cfg.n_factories).run()
    assert set(w.scores().values()) == {0.0}
    assert all(s is ContractStatus.CANCELLED for s in w.book.status.values())
    assert len(w.book.contracts) == int((cfg.exogenous.reveal < 15).sum())


def test_trading_prices_follow_equation_1_from_the_executed_contracts():
    cfg = generate_config(n_steps=20, seed=3)
    w = World(cfg, _mixed(cfg, 3), seed=3).run()
    for p in range(cfg.n_products):
        q = np.zeros(cfg.n_steps)
        v = np.zeros(cfg.n_steps)
        for cid, got in w.book.executed_quantity.items():
            c = w.book.contracts[cid]
            if c.product == p and got > 0:
                q[c.delivery] += got
                v[c.delivery] += got * c.unit_price
        mu = np.divide(v, q, out=np.zeros_like(v), where=q > 0)
        for d in range(cfg.n_steps):
            expected = trading_price(cfg.catalog_prices[p], q[: d + 1], mu[: d + 1])
            assert w.history.prices[d, p] == pytest.approx(expected, rel=1e-12)
        assert w.bb.market[-1].trading_prices[p] == pytest.approx(w.history.prices[-1, p])


def test_spot_penalty_history_follows_equation_2():
    cfg = generate_config(n_steps=25, seed=1)
    w = World(cfg, _mixed(cfg, 1), seed=1)
    bought = np.zeros((cfg.n_steps, cfg.n_factories, cfg.n_products))
    for d in range(cfg.n_steps):
        w.step()
        # products bought on the spot market today (all of the agent's output)
        for i in range(cfg.n_factories):
            bought[d, i, cfg.factory_level[i] + 1] = w.history.spot_bought[d, i]
        expected = sum(0.9 ** (d - k) * bought[k] for k in range(d + 1))
        assert np.allclose(w.market.penalties.history, expected)


def test_the_day_runs_in_the_order_of_section_6():
    cfg = generate_config(n_steps=12, seed=4)
    agents = [PhaseRecorder() for _ in range(cfg.n_factories)]
    World(cfg, agents, seed=4).run()
    rank = {
        "before_step": 0,
        "on_negotiation_success": 1,
        "sign_all_contracts": 2,
        "on_contracts_finalized": 3,
        "step": 4,
        "on_failure": 5,
    }
    phase_of = {
        "before_step": "before_step",
        "on_negotiation_success": "negotiation",
        "sign_all_contracts": "signing",
        "on_contracts_finalized": "signing",
        "step": "agent_step",
        "on_failure": "production",
    }
    n_success = 0
    for agent in agents:
        for day in range(cfg.n_steps):
            events = [(ph, name) for d, ph, name in agent.log if d == day]
            ranks = [rank[name] for _, name in events]
            assert ranks == sorted(ranks)
            for ph, name in events:
                assert ph == phase_of[name]
            n_success += sum(1 for _, n in events if n == "on_negotiation_success")
    assert n_success > 0


def test_financial_reports_every_reporting_period():
    cfg = generate_config(n_steps=20, seed=0)
    w = World(cfg, [TraderAgent] * cfg.n_factories).run()
    days = sorted({r.day for r in w.bb.financial_reports if not r.bankrupt})
    assert days == [4, 9, 14, 19]
    report = w.bb.latest_reports()[w.names[0]]
    assert report.balance == w.ledger.balance[0]
    assert report.inventory_value == int(w.ledger.inventory[0] @ cfg.catalog_prices)
    assert len(w.bb.market) == 20


def test_private_state_is_a_copy_and_only_own_contracts_are_visible():
    cfg = generate_config(n_steps=10, seed=0)
    w = World(cfg, [TraderAgent] * cfg.n_factories).run()
    awi = w.agents[0].awi
    st = awi.state
    st.inventory[:] = 10**6
    assert w.ledger.inventory[0].max() < 10**6
    assert all(awi.agent in (c.seller, c.buyer) for c in awi.contracts(None))


def test_bad_agent_input_is_reported_clearly():
    cfg = generate_config(n_steps=10, factories_per_level=[2, 2], seed=0)
    w = World(cfg, [DoNothingAgent] * 4)
    awi = w.agents[0].awi
    with pytest.raises(ValueError, match="can only buy its input product 0, got product 1"):
        awi.request_negotiation(
            True, 1, 1, 1, 3, awi.my_suppliers[0] if awi.my_suppliers else "x", None
        )
    with pytest.raises(ValueError, match="partner '01DoN@0' cannot buy product 1"):
        awi.request_negotiation(False, 1, 1, 1, 3, "01DoN@0", None)
    with pytest.raises(ValueError, match=r"time range \(20, 20\) must lie in \[0, 9\]"):
        awi.request_negotiation(False, 1, 1, 1, 20, "02DoN@1", None)
    with pytest.raises(ValueError, match="can only run process 0"):
        awi.schedule_production(1)
    with pytest.raises(ValueError, match="expected 4 agents"):
        World(cfg, [DoNothingAgent] * 3)
    with pytest.raises(ValueError, match="unknown agent type 'nobody'"):
        World(cfg, ["nobody"] * 4)


def test_an_agent_that_raises_is_recorded_not_fatal():
    class Broken(DoNothingAgent):
        def step(self):
            raise RuntimeError("boom")

    cfg = generate_config(n_steps=5, factories_per_level=[2, 2], seed=0)
    w = World(cfg, [Broken(), DoNothingAgent(), DoNothingAgent(), DoNothingAgent()]).run()
    assert len(w.history.exceptions) == 5 and w.history.exceptions[0][2:4] == (
        "step",
        "RuntimeError: boom",
    )


def test_production_schedule_and_failures():
    cfg = generate_config(n_steps=6, factories_per_level=[2, 2], seed=0)
    failures = []

    class Producer(DoNothingAgent):
        def init(self):
            self.awi.schedule_production(
                self.awi.process, repeats=3, step=(1, 1), method="earliest"
            )

        def on_failure(self, day, lines, reason):
            failures.append((self.awi.agent, day, lines, reason))

    w = World(cfg, [Producer() for _ in range(4)])
    days, lines = w.agents[0].awi.available_for_production(100, step=(1, 1), method="all")
    assert len(days) == cfg.n_lines - 3
    w.run()
    assert sorted(failures) == sorted((n, 1, [0, 1, 2], "insufficient inputs") for n in w.names)


def test_an_empty_time_range_is_a_refusal_not_an_error():
    cfg = generate_config(n_steps=10, factories_per_level=[2, 2], seed=0)
    w = World(cfg, [DoNothingAgent] * 4)
    awi = w.agents[0].awi
    w.day = w.n_steps - 1  # the last day: (day + 1, n_steps - 1) is empty
    left = awi.quota_left
    ok = awi.request_negotiation(False, 1, 1, 20, (w.day + 1, w.n_steps - 1), "02DoN@1", None)
    assert ok is False
    assert left == awi.quota_left and w.negotiations.pending == []
