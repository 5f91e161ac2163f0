"""Hand-built worlds for the spec-audit tests (``test_scml_spec_*.py``)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from accord.core import Negotiator, NegotiatorView, Outcome, Response
from accord.leagues.scml.agent import SCMLAgent
from accord.leagues.scml.contracts import SIMULATOR_NAME, Contract
from accord.leagues.scml.generate import ExogenousContracts, generate_config
from accord.leagues.scml.params import SimulationParams
from accord.leagues.scml.world import World

#: (agent, product, quantity, unit_price, delivery, reveal, is_sell)
ExoRow = tuple[int, int, int, int, int, int, bool]


def exogenous(rows: Sequence[ExoRow]) -> ExogenousContracts:
    """Exogenous contracts from explicit rows (sorted by reveal day as the world needs)."""
    rows = sorted(rows, key=lambda r: (r[5], r[4], r[0]))
    cols = list(zip(*rows, strict=True)) if rows else [()] * 7
    ints = [np.asarray(c, dtype=np.int64) for c in cols[:6]]
    return ExogenousContracts(*ints, np.asarray(cols[6], dtype=bool))


def bare_world(
    agents: Sequence[SCMLAgent],
    per_level: Sequence[int],
    balances: Sequence[int],
    costs: Sequence[int],
    n_steps: int = 10,
    rows: Sequence[ExoRow] = (),
    catalog: Sequence[int] | None = None,
    seed: int = 0,
    **params: Any,
) -> World:
    """A world with exactly the given balances, costs, catalog and exogenous contracts."""
    cfg = generate_config(n_steps=n_steps, factories_per_level=list(per_level), seed=seed)
    cfg = replace(
        cfg,
        initial_balances=np.asarray(balances, dtype=np.int64),
        costs=np.asarray(costs, dtype=np.int64),
        catalog_prices=np.asarray(
            cfg.catalog_prices if catalog is None else catalog, dtype=np.int64
        ),
        exogenous=exogenous(rows),
        params=SimulationParams(**params),
    )
    return World(cfg, list(agents), seed=seed)


def inject(
    w: World, seller: int, buyer: int, product: int, q: int, u: int, day: int, on: int = 0
) -> Contract:
    """Put a signed contract into the world (seller/buyer -1 is the simulator)."""
    names = [SIMULATOR_NAME if k < 0 else w.names[k] for k in (seller, buyer)]
    c = Contract(
        id=w.book.new_id("c"),
        seller=names[0],
        buyer=names[1],
        product=product,
        unit_price=u,
        quantity=q,
        delivery=day,
        concluded_at=on,
        exogenous=seller < 0 or buyer < 0,
    )
    return w.book.add_signed(c, [k for k in (seller, buyer) if k >= 0], day=on)


class Scripted(SCMLAgent):
    """Signs everything, logs every callback with (day, phase), and runs ``hooks``.

    ``hooks`` maps ``(callback, day)`` to a function of the agent run in that callback.
    """

    def __init__(self, hooks: dict[tuple[str, int], Any] | None = None, sign: bool = True):
        super().__init__()
        self.hooks = hooks or {}
        self.sign = sign
        self.log: list[tuple[int, str, str, tuple[Any, ...]]] = []

    def _on(self, name: str, *args: Any) -> None:
        awi = self.awi
        self.log.append((awi.current_step, awi.phase.value, name, args))
        hook = self.hooks.get((name, awi.current_step))
        if hook is not None:
            hook(self)

    def calls(self, name: str) -> list[tuple[int, tuple[Any, ...]]]:
        return [(d, a) for d, _, n, a in self.log if n == name]

    def init(self) -> None:
        self._on("init")

    def before_step(self) -> None:
        self._on("before_step")

    def step(self) -> None:
        self._on("step")

    def respond_to_negotiation_request(self, initiator, agenda):
        self._on("respond_to_negotiation_request", initiator, agenda)
        return Fixed(None)

    def sign_all_contracts(self, contracts):
        self._on("sign_all_contracts", list(contracts))
        return [self.sign] * len(contracts)

    def on_negotiation_success(self, contract, agenda) -> None:
        self._on("on_negotiation_success", contract)

    def on_negotiation_failure(self, partner, agenda, reason) -> None:
        self._on("on_negotiation_failure", partner, reason)

    def on_contracts_finalized(self, signed, cancelled, rejectors) -> None:
        self._on("on_contracts_finalized", list(signed), list(cancelled), list(rejectors))

    def on_agent_bankrupt(self, agent, nullified, reduced) -> None:
        self._on("on_agent_bankrupt", agent, list(nullified), list(reduced))

    def on_failure(self, day, lines, reason) -> None:
        self._on("on_failure", day, list(lines), reason)


class Fixed(Negotiator):
    """Proposes ``offer`` (or the agenda's lowest values) and accepts iff ``accept``."""

    def __init__(self, offer: Outcome | None, accept: bool = True, name: str | None = None):
        super().__init__(name)
        self.offer = offer
        self.accept = accept
        self.first_seen: list[Outcome] = []

    def propose(self, view: NegotiatorView) -> Outcome | None:
        if self.offer is not None:
            return self.offer
        return tuple(i.lower for i in view.space.issues)

    def respond(self, view: NegotiatorView, offer: Outcome) -> Response:
        self.first_seen.append(offer)
        return Response.ACCEPT if self.accept else Response.REJECT
