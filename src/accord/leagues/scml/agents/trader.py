"""A profit-seeking trader: buys inputs it can turn into outputs and sells outputs it has.

Strategy (deliberately simple and transparent):

- It keeps a *plan*: units of input arriving and units of output leaving on every future
  day (its signed contracts). Simulating its lines day by day over the plan gives the
  projected free output stock; it never commits to sell more than that projection
  covers, so it does not have to buy on the expensive spot market.
- It buys (exogenous raw material or negotiated inputs) up to a small stock target
  that follows the demand it has seen, at prices below what the output fetches minus
  its production cost, and stops buying when the remaining days could not turn the
  inputs into sales.
- Negotiators concede in time from a greedy price towards the agent's limit price.

Example:
    >>> TraderAgent().short_type
    'Tra'
"""

from __future__ import annotations

import numpy as np

from accord.core import Negotiator, NegotiatorView, Outcome, Response
from accord.leagues.scml.agent import SCMLAgent
from accord.leagues.scml.agents.projection import free_stock, plan_key, project_stock
from accord.leagues.scml.agents.routine import Want, run_day
from accord.leagues.scml.contracts import Agenda, Contract

__all__ = ["TraderAgent", "TraderNegotiator"]


class TraderNegotiator(Negotiator):
    """Time-based concession between ``best`` and ``limit`` unit prices.

    ``feasible(q, t)`` (from the agent) says how many units it can trade on day ``t``.
    """

    def __init__(self, agent: TraderAgent, is_buy: bool, best: int, limit: int, exponent: float):
        super().__init__()
        self.agent = agent
        self.is_buy = is_buy
        self.best = best
        self.limit = limit
        self.exponent = exponent

    def _price_now(self, t: float) -> float:
        return float(self.best + (self.limit - self.best) * (t**self.exponent))

    def _good_price(self, price: int, t: float) -> bool:
        target = self._price_now(t)
        return price <= target if self.is_buy else price >= target

    def _pick(self, view: NegotiatorView) -> Outcome | None:
        iss = view.space.issues
        plo, phi = iss[0].lower, iss[0].upper  # type: ignore[attr-defined]
        qlo, qhi = iss[1].lower, iss[1].upper  # type: ignore[attr-defined]
        tlo = iss[2].lower  # type: ignore[attr-defined]
        caps = self.agent.capacities(self.is_buy, tlo, iss[2].upper)  # type: ignore[attr-defined]
        if len(caps) == 0:
            return None
        k = int(np.argmax(caps))
        best_q = min(qhi, int(caps[k]))
        if best_q < qlo:
            return None
        price = int(round(self._price_now(view.time)))
        price = min(max(price, plo), phi)
        return (price, best_q, tlo + k)

    def propose(self, view: NegotiatorView) -> Outcome | None:
        offer = self._pick(view)
        if offer is None:
            return None
        return offer

    def respond(self, view: NegotiatorView, offer: Outcome) -> Response:
        price, q, day = (int(x) for x in offer)
        if q > self.agent.capacity_for(self.is_buy, day):
            return Response.END if self._pick(view) is None else Response.REJECT
        if self._good_price(price, view.time):
            return Response.ACCEPT
        return Response.REJECT


class TraderAgent(SCMLAgent):
    """Plans inputs and outputs, never sells what it cannot make, buys what it can sell."""

    def __init__(self, margin: float = 0.1, stock_days: float = 2.0, exponent: float = 2.0):
        super().__init__()
        self.margin = margin
        self.stock_days = stock_days
        self.exponent = exponent

    # -- bookkeeping ------------------------------------------------------------------
    def init(self) -> None:
        awi = self.awi
        n = awi.n_steps
        self.incoming = np.zeros(n + 1, dtype=np.int64)
        self.outgoing = np.zeros(n + 1, dtype=np.int64)
        self.in_prices: list[tuple[int, int]] = []
        self.out_prices: list[tuple[int, int]] = []
        self.demand_seen = 0
        self.days_levels_left = awi.bb.settings["n_products"] - 1 - awi.level
        cat = awi.catalog_prices
        self.cat_in = cat[awi.my_input_product]
        self.cat_out = cat[awi.my_output_product]
        self._key: tuple[int, bool] = (-1, False)
        self._raw: np.ndarray = np.zeros(n + 1, dtype=np.int64)
        self._sell_cap: np.ndarray = np.zeros(n + 1, dtype=np.int64)
        self._buy_cap: np.ndarray = np.zeros(n + 1, dtype=np.int64)

    def _book(self, c: Contract, sign: int = 1) -> None:
        """Add (sign 1) or remove (-1) a contract from the plan, updating the projection."""
        q = sign * c.quantity
        t = c.delivery
        valid = self._key == plan_key(self.awi)
        if c.buyer == self.awi.agent:
            self.incoming[t] += q
            if sign > 0:
                self.in_prices.append((c.unit_price, c.quantity))
            if valid:
                self._raw[t + 1 :] += q  # (ignores line capacity until tomorrow's projection)
        else:
            self.outgoing[t] += q
            if sign > 0:
                self.out_prices.append((c.unit_price, c.quantity))
            if valid:
                self._raw[t:] -= q
        if valid:
            self._caps()

    def on_contracts_finalized(
        self, signed: list[Contract], cancelled: list[Contract], rejectors: list[list[str]]
    ) -> None:
        for c in signed:
            if c.seller == self.awi.agent and not c.exogenous:
                self.demand_seen += c.quantity
            self._book(c)

    def on_agent_bankrupt(
        self, agent: str, nullified: list[Contract], reduced: list[Contract]
    ) -> None:
        for c in nullified:
            self._book(c, -1)
        for c in reduced:
            self._book(c)

    # -- projections ------------------------------------------------------------------
    def _project(self) -> None:
        """Output stock after each day's deliveries, if lines run on every input."""
        key = plan_key(self.awi)
        if self._key == key:
            return
        awi = self.awi
        inv = awi.current_inventory
        self._raw, _ = project_stock(
            int(inv[awi.my_input_product]),
            int(inv[awi.my_output_product]),
            awi.n_lines,
            self.incoming.tolist(),
            self.outgoing.tolist(),
            *key,
            awi.n_steps,
        )
        self._key = key
        self._caps()

    def _caps(self) -> None:
        """Units it would sell / buy for delivery on each day, from the projection."""
        awi = self.awi
        n = awi.n_steps
        free = free_stock(self._raw)  # a sale must keep later days >= 0
        self._sell_cap = np.maximum(0, free)
        nxt = np.empty_like(free)
        nxt[:-1] = free[1:]
        nxt[-1] = free[-1]
        want = np.maximum(0, -nxt) + np.maximum(0.0, self._target_stock() - np.maximum(0, nxt))
        buy = np.minimum(awi.n_lines, np.rint(want)).astype(np.int64)
        # inputs arriving later could no longer flow down the chain in time
        buy[max(0, n - self.days_levels_left) :] = 0
        self._buy_cap = buy

    def capacity_for(self, is_buy: bool, day: int) -> int:
        """Units this agent is willing to trade for delivery on ``day``."""
        self._project()
        if day >= self.awi.n_steps:
            return 0
        return int((self._buy_cap if is_buy else self._sell_cap)[day])

    def capacities(self, is_buy: bool, first: int, last: int) -> np.ndarray:
        """``capacity_for`` over the days ``first..last``."""
        self._project()
        last = min(last, self.awi.n_steps - 1)
        return (self._buy_cap if is_buy else self._sell_cap)[first : last + 1]

    def _target_stock(self) -> float:
        awi = self.awi
        prior_days = 3.0
        rate = (self.demand_seen + prior_days * 0.5 * awi.n_lines) / (awi.current_step + prior_days)
        return self.stock_days * min(rate, awi.n_lines)

    # -- prices -----------------------------------------------------------------------
    def _avg(self, pairs: list[tuple[int, int]], default: float) -> float:
        q = sum(x for _, x in pairs[-20:])
        return sum(p * x for p, x in pairs[-20:]) / q if q else default

    def sell_floor(self) -> int:
        unit_in = self._avg(self.in_prices, self.cat_in)
        return int(np.ceil((unit_in + self.awi.cost) * (1 + self.margin)))

    def buy_ceiling(self) -> int:
        if self.awi.is_last_level:
            out = float(self.cat_out)
        else:
            out = max(self._avg(self.out_prices, self.cat_out), float(self.cat_out))
        return int(np.floor(out / (1 + self.margin) - self.awi.cost))

    # -- decisions --------------------------------------------------------------------
    def sign_all_contracts(self, contracts: list[Contract]) -> list[bool]:
        awi = self.awi
        me = awi.agent
        answer = [False] * len(contracts)
        # sells first (highest price first): each must stay covered by the projection
        sells = sorted(
            (i for i, c in enumerate(contracts) if c.seller == me),
            key=lambda i: -contracts[i].unit_price,
        )
        floor = self.sell_floor()
        for i in sells:
            c = contracts[i]
            if c.exogenous:
                self.demand_seen += c.quantity
            ok_price = c.exogenous or c.unit_price >= floor * 0.9
            if ok_price and self.capacity_for(False, c.delivery) >= c.quantity:
                answer[i] = True
                self._book(c)
        buys = sorted(
            (i for i, c in enumerate(contracts) if c.buyer == me),
            key=lambda i: contracts[i].unit_price,
        )
        ceiling = self.buy_ceiling()
        for i in buys:
            c = contracts[i]
            ok_price = c.exogenous or c.unit_price <= ceiling / 0.9
            if ok_price and self.capacity_for(True, c.delivery) >= c.quantity:
                answer[i] = True
                self._book(c)
        # undo the provisional bookings: the world reports what was really signed
        for i, yes in enumerate(answer):
            if yes:
                self._book(contracts[i], -1)
                if contracts[i].seller == me:
                    self.out_prices.pop()
                else:
                    self.in_prices.pop()
        return answer

    def step(self) -> None:
        self._key = (-1, False)  # inventories change during execution
        run_day(self.awi, self._want, self._negotiator)

    def _want(self, is_buy: bool) -> Want | None:
        """The most units it can trade on one of the next days (at least two)."""
        awi = self.awi
        start = awi.current_step + 1
        end = min(awi.n_steps - 1, start + max(2, awi.horizon // 2))
        caps = self.capacities(is_buy, start, end)
        best_q = int(caps.max()) if len(caps) else 0
        if best_q <= 0:
            return None
        return (1, best_q), (start, end)

    def _negotiator(self, is_buy: bool) -> TraderNegotiator:
        if is_buy:
            limit = self.buy_ceiling()
            best = max(1, int(self.cat_in * 0.7))
            return TraderNegotiator(self, True, min(best, limit), limit, self.exponent)
        limit = self.sell_floor()
        best = int(self.cat_out * 1.3)
        return TraderNegotiator(self, False, max(best, limit), limit, self.exponent)

    def respond_to_negotiation_request(self, initiator: str, agenda: Agenda) -> Negotiator | None:
        my_buy = not agenda.is_buy
        t0, t1 = agenda.time
        caps = self.capacities(my_buy, t0, t1)
        if len(caps) == 0 or caps.max() <= 0:
            return None
        return self._negotiator(my_buy)
