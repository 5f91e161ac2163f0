"""Built-in agents: the trader makes a profit on average; negotiators and controllers work."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from accord.core import NegotiatorView, Outcome, Response
from accord.leagues.scml.agent import Controller, SCMLAgent
from accord.leagues.scml.agents import RandomAgent, TraderAgent, resolve_agent_type
from accord.leagues.scml.generate import generate_config
from accord.leagues.scml.report import summary
from accord.leagues.scml.world import World


def test_trader_makes_a_profit_on_average_over_seeds():
    self_play, mixed = [], []
    for seed in range(4):
        cfg = generate_config(n_steps=40, seed=seed)
        w = World(cfg, [TraderAgent] * cfg.n_factories, seed=seed).run()
        self_play.append(w.type_scores()[w.types[0]])
        assert w.history.bankruptcies == []
        agents = [TraderAgent if i % 2 == 0 else RandomAgent for i in range(cfg.n_factories)]
        w = World(cfg, agents, seed=seed).run()
        mixed.append(w.type_scores()["accord.leagues.scml.agents.trader:TraderAgent"])
    assert np.mean(self_play) > 0
    assert np.mean(mixed) > 0
    assert sum(s > 0 for s in self_play) >= 3


class HalfPrice(Controller):
    """A controller deciding for all its negotiations: ask a fixed price, accept it."""

    def __init__(self, price: int) -> None:
        super().__init__()
        self.price = price
        self.ended: list[str] = []

    def propose(self, nid: str, view: NegotiatorView) -> Outcome | None:
        iss = view.space.issues
        return (min(max(self.price, iss[0].lower), iss[0].upper), iss[1].lower, iss[2].lower)

    def respond(self, nid: str, view: NegotiatorView, offer: Outcome) -> Response:
        return Response.ACCEPT if offer[0] <= self.price else Response.REJECT

    def on_negotiation_end(self, nid, view, result) -> None:
        self.ended.append(nid)


class ControlledBuyer(SCMLAgent):
    def init(self) -> None:
        self.controller = HalfPrice(price=self.awi.catalog_prices[self.awi.my_input_product])

    def step(self) -> None:
        awi = self.awi
        if awi.current_step == 0:
            cat = awi.catalog_prices[awi.my_input_product]
            awi.request_negotiations(
                True,
                awi.my_input_product,
                (1, 3),
                (1, 2 * cat),
                (1, 2),
                awi.my_suppliers,
                controller=self.controller,
            )


class AcceptingSeller(SCMLAgent):
    def respond_to_negotiation_request(self, initiator, agenda):
        class Yes(HalfPrice):
            pass

        return Yes(price=10**6).create_negotiator(f"{self.name}<{initiator}")


def test_pass_through_negotiators_and_controller():
    cfg = generate_config(n_steps=4, factories_per_level=[2, 1], seed=0)
    buyer = ControlledBuyer()
    w = World(cfg, [AcceptingSeller(), AcceptingSeller(), buyer], seed=0)
    w.run()
    assert len(buyer.controller.negotiators) == 2
    assert sorted(buyer.controller.ended) == sorted(buyer.controller.negotiators)
    agreed = [c for c in w.book.contracts.values() if not c.exogenous]
    assert len(agreed) == 2
    assert all(c.unit_price <= cfg.catalog_prices[1] for c in agreed)


def test_resolve_agent_type_names():
    assert resolve_agent_type("Trader") is TraderAgent
    assert resolve_agent_type("random-agent") is RandomAgent
    assert resolve_agent_type("accord.leagues.scml.agents:TraderAgent") is TraderAgent


class EmpoweredBuyer(SCMLAgent):
    def step(self) -> None:
        from accord.leagues.scml.agent import EmpoweredNegotiator

        awi = self.awi
        if awi.current_step == 0:
            for s in awi.my_suppliers:
                # cheapest price is best; the world wraps the function into a core utility
                neg = EmpoweredNegotiator(lambda o: -float(o[0]) - 0.01 * o[2])
                awi.request_negotiation(True, 1, (2, 2), (3, 9), (1, 3), s, neg)


def test_empowered_negotiators_use_their_own_utility():
    cfg = generate_config(n_steps=4, factories_per_level=[2, 1], seed=0)
    w = World(cfg, [AcceptingSeller(), AcceptingSeller(), EmpoweredBuyer()], seed=0).run()
    agreed = [c for c in w.book.contracts.values() if not c.exogenous]
    assert [(c.unit_price, c.quantity, c.delivery) for c in agreed] == [(3, 2, 1)] * 2


def test_the_template_agent_breaks_even_as_a_first_level_factory():
    # before issue 26 it signed all raw supply it could pay for and lost 5 to 26 % in 12
    # days at level 0 (seeds 2000-2009, mean -14.8 %); now it buys only what it can use
    # soon, and only when the catalog prices leave a margin
    from accord.leagues.scml.agents.template import TemplateAgent
    from accord.leagues.scml.generate import generate_config
    from accord.leagues.scml.world import World

    scores = []
    for seed in (2000, 2001, 2002):
        cfg = generate_config(n_steps=12, factories_per_level=[2, 2], seed=seed)
        w = World(cfg, [TemplateAgent, "market", "market", "market"], seed=seed).run()
        (score,) = [v for k, v in w.type_scores().items() if "Template" in k]
        scores.append(score)
    assert all(s > -0.03 for s in scores), scores
    assert abs(sum(scores) / len(scores)) < 0.02, scores


def test_the_market_agent_signs_most_demand_profitably_with_few_breaches():
    # issue 26's target (>= 60 % of the exogenous demand, profitable, breaches near zero)
    # on three seeds where it holds; it holds in 91 of 95 feasible judged seeded worlds,
    # not in all (docs/scml.md has the per-world tables)
    from accord.leagues.scml.generate import generate_config
    from accord.leagues.scml.report import summary
    from accord.leagues.scml.world import World

    for seed in (1003, 1004, 1019):
        cfg = generate_config(n_steps=50, seed=seed)
        s = summary(World(cfg, ["market"] * cfg.n_factories, seed=seed).run())
        (profit,) = s["profit"].values()
        assert s["demand_met"] >= 0.6 and profit > 0, (seed, s["demand_met"], profit)
        assert s["breaches"] <= 2 and s["bankruptcies"] == 0, (seed, s["breaches"])


def test_a_chain_whose_first_level_costs_exceed_its_catalog_price_does_not_starve():
    # world 1018: two of three first-level factories cost more (21, 24) than their
    # output's catalog price less the raw price (30 - 10); they sign raw supply anyway
    # (``supply_at_cost``) and price from their cost, which their buyers can pay. The
    # old rule (``supply_at_cost=False``) signs 8.5 % of the supply and loses money.
    from accord.leagues.scml.agents.market import MarketAgent
    from accord.leagues.scml.generate import generate_config
    from accord.leagues.scml.report import summary
    from accord.leagues.scml.world import World

    class OldSupplyRule(MarketAgent):
        def __init__(self) -> None:
            super().__init__(supply_at_cost=False)

    cfg = generate_config(n_steps=50, seed=1018)
    new = summary(World(cfg, ["market"] * cfg.n_factories, seed=1018).run())
    old = summary(World(cfg, [OldSupplyRule] * cfg.n_factories, seed=1018).run())
    (new_profit,), (old_profit,) = new["profit"].values(), old["profit"].values()
    assert old["supply_met"] < 0.15 and old["demand_met"] < 0.3 and old_profit < 0
    assert new["supply_met"] > 0.3 and new["demand_met"] > 0.45 and new_profit > 0
    assert new["breaches"] < old["breaches"] and new["bankruptcies"] == 0


def _lines_table(w: World) -> Counter[tuple[str, int]]:
    """Final-product units each factory signed for each day."""
    per_day: Counter[tuple[str, int]] = Counter()
    for cid, c in w.book.contracts.items():
        if c.exogenous and cid in w.book.signed_on and c.seller in w.names:
            per_day[(c.seller, c.delivery)] += c.quantity
    return per_day


def test_the_market_agent_signs_demand_against_expected_supply_within_its_lines():
    # issue 26: a last-level factory signs final demand that its *expected* inputs cover
    # (what it secured, or a share of its suppliers' lines a day once the chain can have
    # filled), not only what it secured. In small 20-day worlds that signs more demand
    # than without the expectation (``expected_supply=0``: secured inputs plus a small
    # short position), with no shortfall, and (without ``stock_sales``) never more units
    # for one day than its lines make in a day.
    from accord.leagues.scml.agents.market import MarketAgent

    cfg = generate_config(n_steps=20, factories_per_level=[2, 2], seed=4)
    w = World(cfg, [MarketAgent(stock_sales=False) for _ in range(4)], seed=4).run()
    s = summary(w)
    no_expectation = [MarketAgent(expected_supply=0.0, stock_sales=False) for _ in range(4)]
    old = summary(World(cfg, no_expectation, seed=4).run())
    assert old["demand_met"] == pytest.approx(0.679, abs=0.001)
    assert s["demand_met"] > old["demand_met"] + 0.05, s["demand_met"]
    assert s["breaches"] == 0 and s["bankruptcies"] == 0
    per_day = _lines_table(w)
    assert per_day and max(per_day.values()) <= cfg.n_lines


def test_the_market_agent_sells_final_demand_from_stock_beyond_its_lines():
    # issue 26: final demand that the stock its secured inputs make covers is signed even
    # when the day's units exceed a day of production (``stock_sales``); before, a
    # last-level factory offered more than its lines a day held unsold stock (40 to 70
    # units in world 5038) while it refused demand. In a 20-day world: more demand, no
    # shortfall, and some days ship more than the lines make.
    from accord.leagues.scml.agents.market import MarketAgent

    cfg = generate_config(n_steps=20, factories_per_level=[2, 2], seed=2)
    w = World(cfg, [MarketAgent() for _ in range(4)], seed=2).run()
    s = summary(w)
    old = summary(World(cfg, [MarketAgent(stock_sales=False) for _ in range(4)], seed=2).run())
    assert s["demand_met"] > old["demand_met"] + 0.05, (s["demand_met"], old["demand_met"])
    assert s["breaches"] == 0 and s["bankruptcies"] == 0
    assert max(_lines_table(w).values()) > cfg.n_lines


def test_the_flow_bound_holds_and_is_never_above_the_other_bounds():
    # bench_scml_worlds.flow_bound: a linear program over the days (raw supply per
    # first-level factory, every level's lines, a day a level). In small worlds it is
    # never above the lines and cost bounds, and breach-free all-market worlds never sign
    # more demand than it allows; a world whose raw supply is cut to a trickle is bounded
    # by that supply.
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[3] / "bench" / "bench_scml_worlds.py"
    spec = importlib.util.spec_from_file_location("bench_scml_worlds", path)
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    for seed in (0, 1, 2):
        cfg = generate_config(n_steps=20, factories_per_level=[2, 2], seed=seed)
        flow = bench.flow_bound(cfg)
        assert 0 < flow <= min(bench.demand_bounds(cfg)) + 1e-9, seed
        s = summary(World(cfg, ["market"] * 4, seed=seed).run())
        if s["breaches"] == 0:
            assert s["demand_met"] <= flow + 1e-9, (seed, s["demand_met"], flow)
    cfg = generate_config(n_steps=20, factories_per_level=[2, 2], seed=0)
    ex = cfg.exogenous
    ex.quantity[~ex.is_sell] = 0  # no raw supply: nothing can be made
    assert bench.flow_bound(cfg) == pytest.approx(0.0, abs=1e-9)


def test_firm_inputs_signs_demand_only_against_inputs_signed_before_today():
    # ``firm_inputs=True``: a seller may refuse today's agreements at signing, so final
    # demand is signed against inputs signed before today; in this 20-day world the
    # default breaches twice on demand it signed against such agreements, the option
    # never, for a little less demand
    from accord.leagues.scml.agents.market import MarketAgent

    cfg = generate_config(n_steps=20, factories_per_level=[2, 2], seed=11)
    default = summary(World(cfg, [MarketAgent() for _ in range(4)], seed=11).run())
    firm = summary(World(cfg, [MarketAgent(firm_inputs=True) for _ in range(4)], seed=11).run())
    assert default["breaches"] == 2 and firm["breaches"] == 0
    assert default["demand_met"] - 0.02 < firm["demand_met"] <= default["demand_met"]


def test_a_factory_short_of_inputs_for_signed_sales_outbids_its_peers():
    # world 5001 (a tuning seed): the last-level factory with cost 44 signed demand against
    # expected supply, but its input limit (35, the input's catalog price) was under what
    # its peers paid (about 39), so its suppliers sold to them and it breached 11 times
    # (8 with expected_supply 0.4, 7 with ``earliest`` and ``fill_days``); now, short of
    # inputs for what it sold, it bids up to 1.6 x the input's trading price
    # (``urgent_price``; a breach buys the output on the spot market)
    from accord.leagues.scml.agents.market import MarketAgent

    cfg = generate_config(n_steps=50, seed=5001)
    now = summary(World(cfg, [MarketAgent() for _ in range(5)], seed=5001).run())
    old = [MarketAgent(urgent_price=0.0) for _ in range(5)]
    before = summary(World(cfg, old, seed=5001).run())
    assert before["breaches"] == 7 and now["breaches"] == 0, (before["breaches"], now["breaches"])
    (profit,) = now["profit"].values()
    (profit_before,) = before["profit"].values()
    assert now["demand_met"] >= 0.8 and profit > profit_before > 0


def test_the_template_agent_does_not_sell_the_same_stock_twice():
    # seed 9000 (12 days, level 0): it signed sales against its whole stock on
    # consecutive days, twice breached and lost 17 % of its balance; now a sale signed
    # for a later day holds its units
    from accord.leagues.scml.agents.template import TemplateAgent

    cfg = generate_config(n_steps=12, factories_per_level=[2, 2], seed=9000)
    w = World(cfg, [TemplateAgent, "market", "market", "market"], seed=9000).run()
    assert not [b for b in w.bb.breaches if b.agent == w.names[0]]
    assert w.scores()[w.names[0]] > 0


def test_a_factory_above_the_chains_margin_sells_the_stock_it_secured():
    # world 3002: the last-level factory with cost 88 (44 % of the demand, price 140)
    # refused all demand (its floor, 0.8 x the input's price + 88, was 149) and kept
    # what it bought; now stock it secured is sold above cost + 0.5 x the input's
    # price (``salvage``), and the world signs 60 % of its demand
    from accord.leagues.scml.agents.market import MarketAgent

    cfg = generate_config(n_steps=50, seed=3002)
    now = summary(World(cfg, [MarketAgent() for _ in range(7)], seed=3002).run())
    old = summary(World(cfg, [MarketAgent(salvage=0.0) for _ in range(7)], seed=3002).run())
    assert old["demand_met"] < 0.55 <= 0.6 <= now["demand_met"], (old, now)
    (profit,) = now["profit"].values()
    assert profit > 0 and now["breaches"] == 0


def _negotiated(w: World) -> list[tuple[int, int, str]]:
    """(signing day, delivery day, buyer) of every negotiated contract signed."""
    return [
        (w.book.signed_on[cid], c.delivery, c.buyer)
        for cid, c in w.book.contracts.items()
        if not c.exogenous and cid in w.book.signed_on
    ]


def test_a_deep_chain_signs_early_final_demand_without_a_breach():
    # ``fill_days`` (2, 2): in a chain of five levels the last factory (level 4) expects
    # unsecured supply from day 2 x 4 + 2 = 10, not ``warmup`` 3 x 4 = 12 (goods take about
    # two days a level to come down a chain of market agents). In this 25-day world
    # it signs final demand from day 11 (before: 13) and more of it, with no breach.
    from accord.leagues.scml.agents.market import MarketAgent
    from accord.leagues.scml.contracts import SIMULATOR_NAME

    cfg = generate_config(n_steps=25, factories_per_level=[1, 1, 1, 1, 1], seed=4)

    def run(**kw: object) -> tuple[dict, int]:
        w = World(cfg, [MarketAgent(earliest=False, **kw) for _ in range(5)], seed=4).run()
        days = [
            c.delivery
            for cid, c in w.book.contracts.items()
            if c.exogenous and c.buyer == SIMULATOR_NAME and cid in w.book.signed_on
        ]
        return summary(w), min(days)

    (now, first), (old, old_first) = run(), run(fill_days=None)
    assert (first, old_first) == (11, 13)
    assert now["demand_met"] > old["demand_met"] + 0.04, (now["demand_met"], old["demand_met"])
    assert now["breaches"] == 0 and now["bankruptcies"] == 0


def test_sellers_propose_the_first_day_with_room_so_goods_reach_the_last_level_sooner():
    # ``earliest``: a negotiator proposes the first day that has room for the quantity
    # (before: the day with the most room, often the last of the agenda, so goods waited
    # in stock). In a five-level 25-day world the last factory gets its first input on
    # day 5 (before: 6), contracts are delivered sooner after signing, more final demand
    # is signed, with no breach.
    from accord.leagues.scml.agents.market import MarketAgent

    cfg = generate_config(n_steps=25, factories_per_level=[1, 1, 1, 1, 1], seed=0)
    worlds = {
        on: World(cfg, [MarketAgent(earliest=on) for _ in range(5)], seed=0).run()
        for on in (True, False)
    }
    last = worlds[True].names[-1]
    first_in = {on: min(d for _, d, b in _negotiated(w) if b == last) for on, w in worlds.items()}
    lag = {on: np.mean([d - s for s, d, _ in _negotiated(w)]) for on, w in worlds.items()}
    assert first_in == {True: 5, False: 6}
    assert lag[True] < lag[False] - 0.3, lag
    now, old = summary(worlds[True]), summary(worlds[False])
    assert now["demand_met"] > old["demand_met"] + 0.04 and now["breaches"] == 0
