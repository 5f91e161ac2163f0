"""Agents that follow a plan of ``scml_bounds.plan``: the bound is attained.

``scml_bounds.plan(cfg)`` is a whole-unit solution of the bounds' program. Agents that
follow it (they read every exogenous contract in advance, which no real agent can)
produce what it says, buy on day d from the level before what they make on day d at
the catalog price (a negotiation with a one-outcome agenda, requested in
``before_step`` and delivered the same day), and sign exactly the planned exogenous
contracts. They sign the bound's demand with no breach.

Example:
    >>> from accord.leagues.scml.generate import generate_config
    >>> from scml_bounds import flow_bound
    >>> cfg = generate_config(n_steps=15, factories_per_level=[2, 2], seed=1)
    >>> s = run_plan(cfg)
    >>> s["demand_met"] == flow_bound(cfg, paying=False), s["breaches"]
    (True, 0)
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np

from accord.core import Negotiator, NegotiatorView, Outcome, Response
from accord.leagues.scml.agent import SCMLAgent
from accord.leagues.scml.contracts import SIMULATOR_NAME, Agenda, Contract
from accord.leagues.scml.generate import WorldConfig
from accord.leagues.scml.report import summary
from accord.leagues.scml.world import World
from scml_bounds import plan

__all__ = ["OneOffer", "Oracle", "Shared", "run_plan"]


class OneOffer(Negotiator):
    """For a one-outcome agenda: proposes it and accepts it."""

    def propose(self, view: NegotiatorView) -> Outcome | None:
        return view.space.sample(1, view.rng)[0]

    def respond(self, view: NegotiatorView, offer: Outcome) -> Response:
        return Response.ACCEPT


class Shared:
    """A plan from ``scml_bounds.plan`` as deliveries between named factories."""

    def __init__(self, cfg: WorldConfig, plan: dict[str, Any]) -> None:
        ex, level, n = cfg.exogenous, cfg.factory_level, cfg.n_steps
        self.cfg, self.make = cfg, plan["make"]
        self.names: list[str] = []
        # each factory above the first level buys on day d what it makes on day d, from
        # the stock its level before made by day d - 1 (the plan's pool allows it)
        self.deliveries: dict[tuple[int, int], list[tuple[int, int]]] = {}
        for k in range(1, cfg.n_levels):
            sellers = cfg.factories_at(k - 1)
            stock = dict.fromkeys(sellers, 0)
            for d in range(n):
                for a in cfg.factories_at(k):
                    need = int(self.make[a, d])
                    for b in sellers:
                        q = min(need, stock[b])
                        if q > 0:
                            self.deliveries.setdefault((a, d), []).append((b, q))
                            stock[b] -= q
                            need -= q
                    assert need == 0, (a, d)
                for b in sellers:
                    stock[b] += int(self.make[b, d])
        self.sell = Counter(
            (int(ex.agent[k]), int(ex.delivery[k]), int(ex.quantity[k])) for k in plan["sell"]
        )
        self.raw = {(f, d) for f, days in plan["buy"].items() for d in np.flatnonzero(days)}
        self.level = level


class Oracle(SCMLAgent):
    """Follows the plan: produces, buys and signs exactly what it says."""

    def __init__(self, shared: Shared) -> None:
        super().__init__()
        self.shared = shared

    def before_step(self) -> None:
        awi, sh = self.awi, self.shared
        d, me = awi.current_step, sh.names.index(self.name)
        awi.set_production(int(sh.make[me, d]), d)
        price = int(sh.cfg.catalog_prices[sh.level[me]])
        for seller, q in sh.deliveries.get((me, d), []):
            awi.request_negotiation(
                True,
                awi.my_input_product,
                (q, q),
                (price, price),
                (d, d),
                sh.names[seller],
                OneOffer(),
            )

    def respond_to_negotiation_request(self, initiator: str, agenda: Agenda) -> Negotiator:
        return OneOffer()

    def sign_all_contracts(self, contracts: list[Contract]) -> list[bool]:
        sh, me = self.shared, self.shared.names.index(self.name)
        out = []
        for c in contracts:
            if not c.exogenous:
                out.append(True)
            elif c.buyer == SIMULATOR_NAME:
                key = (me, c.delivery, c.quantity)
                out.append(sh.sell[key] > 0)
                sh.sell[key] -= 1
            else:
                out.append((me, c.delivery) in sh.raw)
        return out


def run_plan(cfg: WorldConfig, *, paying_only: bool = False, seed: int | None = None) -> Any:
    """Run ``cfg`` with every factory following the plan; the world's summary."""
    shared = Shared(cfg, plan(cfg, paying_only=paying_only))
    world = World(cfg, [Oracle(shared) for _ in range(cfg.n_factories)], seed=seed)
    shared.names = list(world.names)
    return summary(world.run())
