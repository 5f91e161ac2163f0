"""The do-nothing and the random agent.

Example:
    >>> DoNothingAgent().sign_all_contracts([None, None])
    [False, False]
"""

from __future__ import annotations

from typing import Any

from accord.core import Negotiator, NegotiatorView, Outcome, Response
from accord.leagues.scml.agent import SCMLAgent
from accord.leagues.scml.contracts import Agenda, Contract

__all__ = ["DoNothingAgent", "RandomAgent", "RandomNegotiator"]


class DoNothingAgent(SCMLAgent):
    """Never negotiates, signs nothing, produces nothing: its profit is exactly zero."""

    def sign_all_contracts(self, contracts: list[Any]) -> list[bool]:
        return [False] * len(contracts)


class RandomNegotiator(Negotiator):
    """Offers uniformly random outcomes; accepts with probability ``p_accept``."""

    def __init__(self, p_accept: float = 0.15, p_end: float = 0.01) -> None:
        super().__init__()
        self.p_accept = p_accept
        self.p_end = p_end

    def propose(self, view: NegotiatorView) -> Outcome | None:
        return view.space.sample(1, view.rng)[0]

    def respond(self, view: NegotiatorView, offer: Outcome) -> Response:
        r = view.rng.random()
        if r < self.p_end:
            return Response.END
        return Response.ACCEPT if r < self.p_end + self.p_accept else Response.REJECT


class RandomAgent(SCMLAgent):
    """Requests random negotiations, accepts random requests, signs at random, and
    produces whatever inputs it holds."""

    def __init__(self, p_request: float = 0.5, p_sign: float = 0.8) -> None:
        super().__init__()
        self.p_request = p_request
        self.p_sign = p_sign

    def step(self) -> None:
        awi = self.awi
        rng = awi.rng
        day = awi.current_step
        inp = awi.current_inventory[awi.my_input_product]
        if inp > 0:
            awi.set_production(min(inp, awi.n_lines), day + 1) if day + 1 < awi.n_steps else None
        if day + 1 >= awi.n_steps or rng.random() > self.p_request:
            return
        is_buy = bool(rng.random() < 0.5)
        partners = awi.my_suppliers if is_buy else awi.my_consumers
        if not partners:
            is_buy = not is_buy
            partners = awi.my_suppliers if is_buy else awi.my_consumers
        product = awi.my_input_product if is_buy else awi.my_output_product
        cat = awi.catalog_prices[product]
        partner = partners[int(rng.integers(len(partners)))]
        t0 = day + 1
        awi.request_negotiation(
            is_buy,
            product,
            (1, awi.n_lines),
            (max(1, cat // 2), max(1, 2 * cat)),
            (t0, min(awi.n_steps - 1, t0 + 5)),
            partner,
            RandomNegotiator(),
        )

    def respond_to_negotiation_request(self, initiator: str, agenda: Agenda) -> Negotiator | None:
        return RandomNegotiator() if self.awi.rng.random() < 0.7 else None

    def sign_all_contracts(self, contracts: list[Contract]) -> list[bool]:
        rng = self.awi.rng
        return [bool(rng.random() < self.p_sign) for _ in contracts]
