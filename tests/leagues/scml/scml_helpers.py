"""Shared helpers for the SCML tests (agents that record, hand-built scenarios)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from accord.core import Negotiator, NegotiatorView, Outcome, Response
from accord.leagues.scml.agent import SCMLAgent
from accord.leagues.scml.agents import TraderAgent
from accord.leagues.scml.contracts import Agenda, Contract
from accord.leagues.scml.generate import ExogenousContracts, generate_config
from accord.leagues.scml.params import SimulationParams
from accord.leagues.scml.world import World


class Recorder(SCMLAgent):
    """Signs everything and records every callback it receives."""

    def __init__(self) -> None:
        super().__init__()
        self.calls: list[tuple[str, tuple]] = []

    def _log(self, name: str, *args) -> None:
        self.calls.append((name, args))

    def before_step(self) -> None:
        self._log("before_step")

    def step(self) -> None:
        self._log("step")

    def sign_all_contracts(self, contracts):
        self._log("sign_all_contracts", contracts)
        return [True] * len(contracts)

    def on_agent_bankrupt(self, agent, nullified, reduced) -> None:
        self._log("on_agent_bankrupt", agent, list(nullified), list(reduced))


class AcceptAll(Negotiator):
    """Offers the highest (buyer: highest too) price and largest quantity, accepts anything."""

    def propose(self, view: NegotiatorView) -> Outcome | None:
        iss = view.space.issues
        return (iss[0].upper, iss[1].upper, iss[2].lower)

    def respond(self, view: NegotiatorView, offer: Outcome) -> Response:
        return Response.ACCEPT


class RecklessBuyer(SCMLAgent):
    """Buys as much as it can at ten times the catalog price: it goes bankrupt."""

    def __init__(self) -> None:
        super().__init__()
        self.calls_after_bankruptcy: list[str] = []
        self.refused_after_bankruptcy = 0

    def _check(self, name: str) -> None:
        if self.awi.state.bankrupt:
            self.calls_after_bankruptcy.append(name)

    def before_step(self) -> None:
        self._check("before_step")

    def step(self) -> None:
        self._check("step")
        awi = self.awi
        if awi.current_step + 1 >= awi.n_steps:
            return
        p = awi.my_input_product
        cat = awi.catalog_prices[p]
        for s in awi.my_suppliers:
            t = awi.current_step + 1
            awi.request_negotiation(
                True,
                p,
                (1, 10),
                (cat * 5, cat * 10),
                (t, min(t + 1, awi.n_steps - 1)),
                s,
                AcceptAll(),
            )

    def respond_to_negotiation_request(self, initiator: str, agenda: Agenda):
        self._check("respond_to_negotiation_request")
        return AcceptAll()

    def sign_all_contracts(self, contracts):
        self._check("sign_all_contracts")
        return [True] * len(contracts)

    def on_contracts_finalized(self, signed, cancelled, rejectors) -> None:
        self._check("on_contracts_finalized")

    def on_agent_bankrupt(self, agent, nullified, reduced) -> None:
        self._check("on_agent_bankrupt")


class PhaseRecorder(TraderAgent):
    """A trader that logs (day, phase, callback) of every callback."""

    def __init__(self) -> None:
        super().__init__()
        self.log: list[tuple[int, str, str]] = []

    def _log(self, name: str) -> None:
        awi = self.awi
        self.log.append((awi.current_step, awi.phase.value, name))

    def before_step(self) -> None:
        self._log("before_step")
        super().before_step()

    def step(self) -> None:
        self._log("step")
        super().step()

    def sign_all_contracts(self, contracts):
        self._log("sign_all_contracts")
        return super().sign_all_contracts(contracts)

    def on_negotiation_success(self, contract, agenda) -> None:
        self._log("on_negotiation_success")

    def on_contracts_finalized(self, signed, cancelled, rejectors) -> None:
        self._log("on_contracts_finalized")
        super().on_contracts_finalized(signed, cancelled, rejectors)

    def on_failure(self, day, lines, reason) -> None:
        self._log("on_failure")


def empty_exogenous() -> ExogenousContracts:
    z = np.zeros(0, dtype=np.int64)
    return ExogenousContracts(z, z, z, z, z, z, np.zeros(0, dtype=bool))


def example_world(global_penalty: float = 0.2, spot_lambda: float = 0.025) -> World:
    """Four factories: A (0) and D (1) at level 0, B (2) at level 1, C (3) at level 2.

    Product 1 is "p" of section 4.4 (B's input), product 2 is "p'" (B's output).
    """
    cfg = generate_config(n_steps=10, factories_per_level=[2, 1, 1], seed=0)
    params = SimulationParams(global_penalty=global_penalty, spot_lambda=spot_lambda)
    cfg = replace(
        cfg,
        initial_balances=np.array([1000, 1000, 21, 1000], dtype=np.int64),
        exogenous=empty_exogenous(),
        params=params,
    )
    w = World(cfg, [Recorder() for _ in range(4)], seed=0)
    w.day = 4
    return w


def inject(w: World, seller: int, buyer: int, product: int, q: int, u: int, day: int, first=False):
    """Put a signed contract straight into the world (a test-only shortcut)."""
    c = Contract(
        id=w.book.new_id("c"),
        seller=w.names[seller],
        buyer=w.names[buyer],
        product=product,
        unit_price=u,
        quantity=q,
        delivery=day,
        concluded_at=0,
    )
    return w.book.add_signed(c, [seller, buyer], day=0, first=first)


def rebase(w: World) -> None:
    """Make the hand-set state the accounting baseline of the invariants."""
    w.ledger.rebase()
