"""The default SCML agent: it plans from its exogenous contracts and makes a market.

Strategy (each rule is one method below):

- **Plan.** It keeps the units of input arriving and output leaving on every future day
  (its signed contracts, plus agreements reached today and not yet signed). Running its
  lines on every input gives the projected output stock before each day's deliveries:
  what it may still sell for a day (``sell_capacity``) and the inputs it lacks to deliver
  what it sold (``buy_need``).
- **Exogenous contracts.** A first-level factory signs raw supply, a last-level factory
  signs final demand, as long as the day's units fit its lines (for demand: or the stock
  its secured inputs make covers them, ``stock_sales``), the price covers its
  cost at the current trading prices (no margin of its own: ``margin`` 0) (for supply: its output's price less its cost,
  ``supply_margin`` 0, and never less than the raw material's catalog price
  (``supply_at_cost``: a factory whose cost exceeds its output's catalog price still
  buys raw supply and prices its output from its real cost, so the chain does not starve
  where its downstream can pay that); for demand: its cost plus the input at
  ``demand_input_share`` of its price, 0.8, since its buyers start below the trading
  price and the chain's profit counts, not its own margin), and (for supply) it can pay. Then the
  plan shows what to sell (the output of the supply) or buy (the inputs of the demand).
- **Expected supply (issue 26).** A last-level factory signs final demand that its
  *expected* input stock covers: what it secured, or ``rate`` units a day from its
  suppliers from the day after tomorrow (and not before ``warmup`` days per level, the
  time the chain takes to fill), whichever is more; a day already short counts as
  covered on the spot market. ``rate`` starts at ``expected_supply`` (0.4) of its share
  of its suppliers' lines, halves on a day it falls short and follows the units its
  suppliers really sold it (a moving average, ``flow_weight``). A deep chain fills
  sooner than ``warmup``: it expects supply from ``fill_days = (2, 2)``, 2 days a level
  plus 2, when that is earlier (level 3: day 8, not 9; level 4: day 10, not 12), so the
  early demand of deep chains is signed. Purchases for what it
  signs are the plan's buy need. Buying ahead stops once no more final demand can be
  revealed in time for it (``end_stop``), and a first-level factory then signs raw
  supply only for what it sold.
  The expectation is a total (``expected_total``): by day t it expects
  ``rate`` units a day since the first expected day or what it secured, whichever is
  more (secured purchases are part of the flow, not on top of it; a lumpy purchase no
  longer counts as more supply on the days after it). ``middle_expected=True`` (off) lets a middle factory
  sell what its expected inputs will make, too: more demand, more breaches.
- **Negotiation.** Every day it asks every partner for what the plan shows: inputs for
  the days they are needed, outputs for the days they are available. Only a last-level
  factory sells ahead of inputs it can still buy (final demand, within a small,
  self-adjusting position); a middle factory sells only what its signed inputs will make
  (its short sales were most of the breaches; ``middle_lead`` > 0 lets it sell ahead of
  inputs for deliveries that many days away, and ``lead_short`` lets a last-level
  factory lack more units for a far delivery: both sign more demand and cause more
  breaches, see docs/scml.md), and every factory with suppliers buys
  about ``speculative_days`` (4) days of production ahead (a last-level factory: days of
  the final demand offered to it so far, if fewer, ``demand_paced``; before, one with
  little demand held 40 units its peers lacked), so goods are pushed down the
  chain, up to its input's catalog price even when its output's catalog price does not
  cover that and its cost (``buy_at_catalog``: its buyers may pay more); a first-level
  factory keeps up to 4 to 6 days of production of unsold stock (``long_cap``). It accepts a partner's request when the plan has room
  in the agenda's days. Negotiators concede in time from an aspiration price to the
  agent's limit and never agree to more units than the plan has room for at that
  moment (agreements reached in other sessions the same day count at once, and so do
  the units its other sessions offer at that moment, ``count_offers``: sessions are
  stepped in lockstep, and two offers accepted in one pass over-committed the plan, so
  a quarter of the agreements were cancelled at signing; now about 12 %). It proposes
  the first day that has room for the quantity (``earliest``; before, the day with the
  most room, often the agenda's last, so goods waited in stock a few days a level and
  reached the last level of a deep chain late).
- **Buying when short.** When its signed sales lack inputs, its buy negotiators go up
  to ``urgent_price`` (1.6) times the input's trading price: a seller short of products
  buys them on the spot market, dearer still, and commits a breach (a last-level factory
  whose limit was under what its peers paid signed demand its suppliers then sold to
  them, and breached 11 times in world 5001). ``expect_price`` (off) signs final demand
  against *expected* supply only when its price less the factory's cost pays that share
  of the input's trading price (else against secured stock only): fewer breaches, less
  demand.
- **Selling secured stock** (``salvage`` 0.5). Final demand under its floor is signed
  when stock it secured covers it at a price above its cost plus half the input's
  trading price (what the input is worth at the end, eq. 3's 0.5): a factory whose
  cost is above the chain's margin sold nothing and kept what it had bought (worlds
  3002 and 9005). It then sells those units below their full cost; its upstream gains.
- **Signing.** It signs what it agreed to unless the plan cannot execute it (which its
  negotiators avoid), the cheapest purchases and dearest sales first.
  ``firm_inputs=True`` (off) signs final demand only against inputs signed before
  today (a seller may still refuse today's agreements): fewer breaches, less demand.
- **Production.** Every day it runs as many lines as it has inputs and cash for.

Example:
    >>> MarketAgent().short_type
    'Mar'
"""

from __future__ import annotations

import numpy as np

from accord.core import Negotiator, NegotiatorView, Outcome, Response, SessionResult
from accord.leagues.scml.agent import SCMLAgent
from accord.leagues.scml.agents.projection import free_stock, plan_key, project_stock
from accord.leagues.scml.agents.routine import Want, run_day
from accord.leagues.scml.contracts import Agenda, Contract

__all__ = ["MarketAgent", "MarketNegotiator"]


class MarketNegotiator(Negotiator):
    """Concedes linearly in time from ``best`` to ``limit`` (unit prices); the quantity is
    what the agent's plan has room for on the offered day."""

    def __init__(self, agent: MarketAgent, is_buy: bool, best: int, limit: int) -> None:
        super().__init__()
        self.agent = agent
        self.is_buy = is_buy
        self.best = best
        self.limit = limit
        self._asked: tuple[int, int] | None = None  # (day, units) it offers now

    def _price(self, t: float) -> float:
        return self.best + (self.limit - self.best) * min(1.0, t * 1.1)

    def propose(self, view: NegotiatorView) -> Outcome | None:
        iss = view.space.issues
        plo, phi = iss[0].lower, iss[0].upper  # type: ignore[attr-defined]
        qlo, qhi = iss[1].lower, iss[1].upper  # type: ignore[attr-defined]
        tlo, thi = iss[2].lower, iss[2].upper  # type: ignore[attr-defined]
        self._withdraw()
        room = self.agent.room_list(self.is_buy, tlo, thi)  # tiny: lists beat numpy
        if not room:
            return None
        asked = self.agent.asked[self.is_buy]
        if asked is not None:  # what its other sessions offer now may be accepted too
            room = [r - asked[t] for t, r in enumerate(room, tlo)]
        most = max(room)
        if most < qlo:
            return None
        price = int(round(self._price(view.time)))
        q = min(qhi, most)
        if self.agent.earliest:  # the first day with room for q: goods move sooner
            day = tlo + next(k for k, r in enumerate(room) if r >= q)
        else:
            day = tlo + room.index(most)
        if asked is not None:
            asked[day] += q
            self._asked = (day, q)
        return (min(max(price, plo), phi), q, day)

    def _withdraw(self) -> None:
        if self._asked is not None:
            asked = self.agent.asked[self.is_buy]
            if asked is not None:
                asked[self._asked[0]] -= self._asked[1]
            self._asked = None

    def respond(self, view: NegotiatorView, offer: Outcome) -> Response:
        self._withdraw()
        price, q, day = (int(x) for x in offer)
        if q > self.agent.room_on(self.is_buy, day):
            return Response.REJECT
        good = price <= self._price(view.time) if self.is_buy else price >= self._price(view.time)
        return Response.ACCEPT if good else Response.REJECT

    def on_end(self, view: NegotiatorView, result: SessionResult) -> None:
        self._withdraw()
        if result.agreement is not None:
            _, q, day = (int(x) for x in result.agreement)
            self.agent.pending(self.is_buy, day, q)


class MarketAgent(SCMLAgent):
    """Plans from its exogenous contracts and trading prices; negotiates what it can sign.

    ``short_lines``: the most a last-level factory sells ahead of secured inputs, in days
    of production (2), used only with ``expected_supply=0`` (the rule before this round).
    The settings before issue 26 are in ``tests/leagues/scml/test_scml_agents_routine.py``
    (``MarketBefore``); ``middle_lead``, ``lead_short`` and ``middle_expected`` are off.
    """

    def __init__(
        self,
        margin: float = 0.0,
        demand_input_share: float | None = 0.8,
        speculative_days: float = 4.0,
        middle_short_sales: bool = False,
        stock_days: tuple[float, float, float] = (4.0, 6.0, 4.0),
        supply_margin: float = 0.0,
        supply_at_cost: bool = True,
        short_lines: float = 2.0,
        middle_lead: int = 0,
        lead_short: float = 0.0,
        expected_supply: float = 0.4,
        end_stop: bool = True,
        warmup: float = 3.0,
        flow_weight: float = 0.5,
        buy_at_catalog: float = 1.0,
        middle_expected: bool = False,
        stock_sales: bool = True,
        expected_total: bool = True,
        demand_paced: bool = True,
        count_offers: bool = True,
        firm_inputs: bool = False,
        expect_price: float | None = None,
        urgent_price: float = 1.6,
        salvage: float = 0.5,
        fill_days: tuple[float, float] | None = (2.0, 2.0),
        earliest: bool = True,
    ) -> None:
        super().__init__()
        self.margin = margin
        self.demand_input_share = demand_input_share
        self.speculative_days = speculative_days
        self.middle_short_sales = middle_short_sales
        self.stock_days = stock_days  # first level's unsold stock: start, most, glut
        self.supply_margin = supply_margin
        self.supply_at_cost = supply_at_cost
        self.short_lines = short_lines
        self.middle_lead = middle_lead
        self.lead_short = lead_short
        self.expected_supply = expected_supply
        self.end_stop = end_stop
        self.warmup = warmup
        self.flow_weight = flow_weight
        self.buy_at_catalog = buy_at_catalog
        self.middle_expected = middle_expected
        self.stock_sales = stock_sales
        self.expected_total = expected_total
        self.demand_paced = demand_paced
        self.count_offers = count_offers
        self.firm_inputs = firm_inputs
        self.expect_price = expect_price
        self.urgent_price = urgent_price
        self.salvage = salvage
        self.fill_days = fill_days
        self.earliest = earliest

    # -- the plan ---------------------------------------------------------------------
    def init(self) -> None:
        awi = self.awi
        n = awi.n_steps + 2
        self.inp = np.zeros(n, dtype=np.int64)  # signed inputs arriving on each day
        self.out = np.zeros(n, dtype=np.int64)  # signed outputs leaving on each day
        self.p_in = np.zeros(n, dtype=np.int64)  # agreed today, not yet signed
        self.p_out = np.zeros(n, dtype=np.int64)
        self.levels_after = int(awi.bb.settings["n_products"]) - 2 - awi.level
        self._key: tuple[int, bool] = (-1, False)
        self._sell = np.zeros(n, dtype=np.int64)
        self._buy = np.zeros(n, dtype=np.int64)
        self._short = 0
        # how far it sells ahead of secured inputs (last level) and buys ahead of sales
        # (first level): grows while that works, halves after a shortfall or a glut
        self.short_cap = awi.n_lines / 2
        self.long_cap = self.stock_days[0] * awi.n_lines
        # units a day it expects to buy beyond what it secured: its share of what its
        # suppliers can make (halves after a shortfall, grows back while it works)
        sup = len(awi.my_suppliers)
        peers = max(1, len(awi.bb.consumers(awi.my_input_product)))
        self.rate_cap = self.expected_supply * awi.n_lines * min(1.0, sup / peers)
        self.rate = self.rate_cap
        self.flow = self.rate_cap  # units a day its suppliers sell it (moving average)
        self._bought = 0
        self._offered = 0  # final-product units offered to it (a last-level factory)
        self._clear_asked()

    def _project(self) -> None:
        """Projected output stock before each day's deliveries -> sell room and buy need."""
        key = plan_key(self.awi)
        if key == self._key:
            return
        self._key = key
        awi = self.awi
        day, executed = key
        inv = awi.current_inventory
        raw, spare = project_stock(
            int(inv[awi.my_input_product]),
            int(inv[awi.my_output_product]),
            awi.n_lines,
            (self.inp + self.p_in).tolist(),
            (self.out + self.p_out).tolist(),
            day,
            executed,
            awi.n_steps,
        )
        start = day + 1 if executed else day
        free = free_stock(raw)
        self._sell = np.maximum(0, free)
        if self.middle_expected and self.rate > 0 and not (awi.is_first_level or awi.is_last_level):
            # sell what it expects to make from inputs it can still buy (the buy need
            # then asks its suppliers for them)
            self._sell = np.maximum(self._sell, self._expected_free())
        self._sell[:start] = 0
        # inputs lacking: a shortfall on day s needs inputs on a day before s
        short = np.maximum(0, -np.minimum.accumulate(raw))
        need = np.zeros(awi.n_steps + 1, dtype=np.int64)
        need[:-1] = np.diff(short)
        need = np.minimum(need, spare)
        self._buy = need
        self._short = int(short[-1])
        self._spare = spare
        # the same as lists, for the negotiators' scalar look-ups (valid until the key changes)
        self._sell_l: list[int] = self._sell.tolist()
        self._buy_l: list[int] = need.tolist()
        self._spare_l: list[int] = spare.tolist()
        self._p_in_sum = int(self.p_in.sum())

    def _speculative_list(self, first: int, last: int) -> list[int]:
        """Extra inputs a factory buys ahead of its sales: about a day of production."""
        awi = self.awi
        stop = awi.n_steps - 1 - self.levels_after - 1  # later inputs cannot be sold in time
        if self.end_stop and awi.current_step >= self._last_useful_day():
            return [0] * (last - first + 1)  # no demand is left to reveal for them
        sell = self._sell_l
        uncommitted = sell[min(last + 1, len(sell) - 1)]
        per_day = float(awi.n_lines)
        if awi.is_last_level and self.demand_paced:
            per_day = min(per_day, self._demand_rate())
        days = int(self.speculative_days * per_day)
        budget = max(0, days - uncommitted - self._p_in_sum)
        spare = self._spare_l
        n = len(spare)
        return [
            min(budget, spare[t] if t < n else 0) if t <= stop else 0
            for t in range(first, last + 1)
        ]

    def _demand_rate(self) -> float:
        """Final-product units a day offered to it so far (a last-level factory)."""
        awi = self.awi
        seen = min(awi.n_steps, awi.current_step + awi.horizon + 1)
        return self._offered / max(1, seen)

    def _last_useful_day(self) -> int:
        """The last day on which buying ahead of sales can still serve final demand not
        yet revealed: the last reveal, less a day per level after this one."""
        awi = self.awi
        return awi.n_steps - 1 - awi.horizon - self.levels_after

    def room(self, is_buy: bool, first: int, last: int) -> np.ndarray:
        """Units it would trade for delivery on each day ``first..last`` (now)."""
        return np.array(self.room_list(is_buy, first, last), dtype=np.int64)

    def room_list(self, is_buy: bool, first: int, last: int) -> list[int]:
        """:meth:`room` as a list (the negotiators' hot path: tiny, no numpy)."""
        self._project()
        awi = self.awi
        last = min(last, awi.n_steps - 1)
        if last < first:
            return []
        if not is_buy:
            sell = self._sell_l[first : last + 1]
            lead = self._short_lead()
            if lead:  # sell ahead of inputs it can still buy
                ahead = int(max(0.0, self.short_cap - self._short))
                soon = awi.current_step + lead
                for k in range(max(0, soon - first), len(sell)):
                    sell[k] += ahead
            return sell
        need = self._buy_l[first : last + 1]
        if awi.is_first_level:
            return need
        return [max(a, b) for a, b in zip(need, self._speculative_list(first, last), strict=True)]

    def _short_lead(self) -> int:
        """Days ahead from which it sells ahead of inputs it can still buy (0: never)."""
        awi = self.awi
        if awi.is_last_level or (self.middle_short_sales and not awi.is_first_level):
            return 2
        if self.middle_lead and not awi.is_first_level:
            return self.middle_lead
        return 0

    def room_on(self, is_buy: bool, day: int) -> int:
        """``room(is_buy, day, day)[0]`` (0 past the last day), without the arrays."""
        self._project()
        awi = self.awi
        if day > awi.n_steps - 1:
            return 0
        if not is_buy:
            units = self._sell_l[day]
            lead = self._short_lead()
            if lead and day >= awi.current_step + lead:
                units += int(max(0.0, self.short_cap - self._short))
            return units
        need = self._buy_l[day]
        if awi.is_first_level:
            return need
        return max(need, self._speculative_list(day, day)[0])

    def pending(self, is_buy: bool, day: int, q: int) -> None:
        """A negotiator agreed on ``q`` units for ``day`` (signed or not at signing)."""
        (self.p_in if is_buy else self.p_out)[day] += q
        self._key = (-1, False)

    def _book(self, c: Contract, sign: int = 1) -> None:
        arr = self.inp if c.buyer == self.awi.agent else self.out
        arr[c.delivery] += sign * c.quantity
        self._key = (-1, False)

    # -- prices -----------------------------------------------------------------------
    def _tp(self, product: int) -> float:
        return max(float(self.awi.trading_prices[product]), 1.0)

    def buy_limit(self) -> int:
        """The most it pays for one input: the output's price less cost and margin."""
        awi = self.awi
        out = max(self._tp(awi.my_output_product), float(awi.catalog_prices[awi.my_output_product]))
        limit = max(1, int(out / (1 + self.margin) - awi.cost))
        if self.buy_at_catalog:
            limit = max(limit, int(awi.catalog_prices[awi.my_input_product] * self.buy_at_catalog))
        return limit

    def sell_floor(self) -> int:
        """The least it takes for one output: the input's price plus cost and margin."""
        awi = self.awi
        inp = min(self._tp(awi.my_input_product), float(awi.catalog_prices[awi.my_input_product]))
        return max(1, int(np.ceil((inp + awi.cost) * (1 + self.margin))))

    def supply_limit(self) -> int:
        """The most it pays for raw supply: its output's price less its cost and
        ``supply_margin`` (0: the chain's profit counts, not its own margin)."""
        awi = self.awi
        out = max(self._tp(awi.my_output_product), float(awi.catalog_prices[awi.my_output_product]))
        limit = max(1, int(out / (1 + self.supply_margin) - awi.cost))
        if self.supply_at_cost:
            limit = max(limit, int(awi.catalog_prices[awi.my_input_product]))
        return limit

    def demand_floor(self) -> int:
        """The least it takes for final demand: its cost plus the input at a share of its
        price (it buys below the trading price; the chain's profit is what counts); with
        ``demand_input_share=None``, the same floor as for its other sales."""
        if self.demand_input_share is None:
            return self.sell_floor()
        awi = self.awi
        inp = min(self._tp(awi.my_input_product), float(awi.catalog_prices[awi.my_input_product]))
        return max(1, int(np.ceil(self.demand_input_share * inp + awi.cost)))

    # -- callbacks --------------------------------------------------------------------
    def before_step(self) -> None:
        self.p_in[:] = 0
        self.p_out[:] = 0
        self._clear_asked()

    def _clear_asked(self) -> None:
        """Units its negotiators offer at this moment, per day (``count_offers``)."""
        n = self.awi.n_steps + 2
        on = self.count_offers
        self.asked: dict[bool, list[int] | None] = {
            b: [0] * n if on else None for b in (True, False)
        }
        self._key = (-1, False)

    def sign_all_contracts(self, contracts: list[Contract]) -> list[bool]:
        awi = self.awi
        me = awi.agent
        self.p_in[:] = 0  # today's agreements are decided here, one by one
        self.p_out[:] = 0
        self._key = (-1, False)
        answer = [False] * len(contracts)
        cash = awi.current_balance
        sells = sorted(
            (i for i, c in enumerate(contracts) if c.seller == me),
            key=lambda i: (not contracts[i].exogenous, -contracts[i].unit_price),
        )
        buys = sorted(
            (i for i, c in enumerate(contracts) if c.buyer == me),
            key=lambda i: (not contracts[i].exogenous, contracts[i].unit_price),
        )
        # buys first: a first-level factory's supply is what it will sell
        for i in buys:
            c = contracts[i]
            if c.exogenous:
                glut = self._sell[min(c.delivery + 1, len(self._sell) - 1)] + c.quantity
                ok = (
                    c.unit_price <= self.supply_limit()
                    and self._lines_free(True, c)
                    and c.value <= cash
                    and (glut <= self.long_cap or self._needed(c))
                    and (
                        not self.end_stop
                        or awi.current_step < self._last_useful_day()
                        or self._needed(c)
                    )
                )
            else:
                ok = c.quantity <= self.room_on(True, c.delivery) and c.value <= cash
            if ok:
                answer[i] = True
                cash -= c.value
                self._book(c)
        # final demand is signed against inputs signed before today (``firm_inputs``):
        # a seller may still refuse today's agreements
        today = [contracts[i] for i in buys if answer[i] and not contracts[i].exogenous]
        held = self.firm_inputs and bool(today)
        for c in today if held else ():
            self._book(c, -1)
        for i in sells:
            c = contracts[i]
            if held and not c.exogenous:
                held = False
                for b in today:
                    self._book(b)
            if c.exogenous:
                self._offered += c.quantity
                ok = (
                    (c.unit_price >= self.demand_floor() or self._salvage_ok(c))
                    and (self._lines_free(False, c) or self._in_stock(c))
                    and c.delivery >= awi.current_step + 2  # time to buy and make it
                    and (
                        (self._expected_ok(c) if self._competitive(c) else self._in_stock(c))
                        if self.expected_supply > 0
                        else self._short_after(c) <= self.short_cap + self._lead_allowance(c)
                    )
                )
            else:
                ok = c.quantity <= self.room_on(False, c.delivery)
            if ok:
                answer[i] = True
                self._book(c)
        for b in today if held else ():
            self._book(b)
        for i, yes in enumerate(answer):  # the world reports what was really signed
            if yes:
                self._book(contracts[i], -1)
        return answer

    def _needed(self, c: Contract) -> bool:
        """Raw supply ``c`` covers a shortfall of what it sold (and fits before it)."""
        if not self.end_stop:
            return False
        self._project()
        short = self._buy[: c.delivery + 1]
        return int(short.sum()) >= c.quantity

    def _lead_allowance(self, c: Contract) -> float:
        """Extra units it may lack for a delivery far enough ahead to buy them up the chain."""
        awi = self.awi
        days = c.delivery - awi.current_step - int(awi.bb.settings["n_products"])
        return self.lead_short * awi.n_lines * max(0, days)

    def _salvage_ok(self, c: Contract) -> bool:
        """Final demand under its floor that stock it secured covers, at a price above
        what that stock is worth at the end (its cost plus ``salvage`` of the input's
        trading price): the inputs are paid for, holding them earns less."""
        if not self.salvage:
            return False
        awi = self.awi
        worth = awi.cost + self.salvage * self._tp(awi.my_input_product)
        return c.unit_price >= worth and self._in_stock(c)

    def _competitive(self, c: Contract) -> bool:
        """Its price less its cost pays the input's trading price (``expect_price`` of it):
        only then do its suppliers sell to it rather than to its peers."""
        if self.expect_price is None:
            return True
        awi = self.awi
        return c.unit_price - awi.cost >= self.expect_price * self._tp(awi.my_input_product)

    def _expected_ok(self, c: Contract) -> bool:
        """``c`` fits the stock it expects (:meth:`_expected_free`)."""
        if self.rate <= 0:
            return False
        free = self._expected_free()
        return c.delivery < len(free) and int(free[c.delivery]) >= c.quantity

    def _first_expected_day(self) -> int:
        """The first day it expects unsecured supply: ``warmup`` days a level, or (if
        sooner, ``fill_days = (a, b)``) ``a`` days a level plus ``b``."""
        level = self.awi.level
        first = self.warmup * level
        if self.fill_days is not None:
            first = min(first, self.fill_days[0] * level + self.fill_days[1])
        return int(first)

    def _expected_free(self) -> np.ndarray:
        """Free output stock if, from the day after tomorrow, its suppliers deliver
        ``rate`` units a day (or what it secured, if more); a day already short counts as
        bought on the spot market (the stock starts again from 0)."""
        awi = self.awi
        day, executed = plan_key(awi)
        inc = (self.inp + self.p_in).tolist()
        rate = int(self.rate)
        start = max(day + 2, self._first_expected_day())
        if self.expected_total:
            # secured purchases are part of the expected flow, not on top of it: the
            # units arrived by day t are at least ``rate`` a day since ``start``
            secured = expected = 0
            for t in range(start, awi.n_steps):
                secured += inc[t]
                total = max(secured, rate * (t - start + 1))
                inc[t] = total - expected
                expected = total
        else:
            for t in range(start, awi.n_steps):
                if inc[t] < rate:
                    inc[t] = rate
        inv = awi.current_inventory
        raw, _ = project_stock(
            int(inv[awi.my_input_product]),
            int(inv[awi.my_output_product]),
            awi.n_lines,
            inc,
            (self.out + self.p_out).tolist(),
            day,
            executed,
            awi.n_steps,
        )
        raw -= np.minimum(0, np.minimum.accumulate(raw))
        return free_stock(raw)

    def _short_after(self, c: Contract) -> int:
        """Units it would lack (with no more purchases) after also selling ``c``."""
        self._project()
        covered = int(self._sell[c.delivery]) if c.delivery < len(self._sell) else 0
        return self._short + max(0, c.quantity - covered)

    def _adapt(self) -> None:
        """Halve the positions after today's shortfall or glut, else let them grow."""
        awi = self.awi
        lines = awi.n_lines
        short_today = any(b.agent == awi.agent for b in awi.bb.breaches_on(awi.current_step))
        if short_today:
            self.short_cap = 0.0
            self.rate = self.rate / 2
        else:
            self.rate = min(self.rate_cap, self.rate + lines / 20)
        if self.flow_weight and awi.current_step >= self.warmup * awi.level:
            w = self.flow_weight
            self.flow = (1 - w) * self.flow + w * self._bought
            self.rate = min(self.rate, self.flow)
        self._bought = 0
        if not short_today:
            self.short_cap = min(self.short_lines * lines, self.short_cap + lines / 10)
        stock = awi.current_inventory[awi.my_output_product]
        if stock > self.stock_days[2] * lines:
            self.long_cap = max(lines / 2, self.long_cap / 2)
        else:
            self.long_cap = min(self.stock_days[1] * lines, self.long_cap + lines / 4)

    def _in_stock(self, c: Contract) -> bool:
        """Final demand ``c`` is covered by the stock its secured inputs make
        (``stock_sales``: then the day's units may exceed a day of production)."""
        if not self.stock_sales:
            return False
        self._project()
        return c.delivery < len(self._sell) and int(self._sell[c.delivery]) >= c.quantity

    def _lines_free(self, is_buy: bool, c: Contract) -> bool:
        """An exogenous contract fits: the day's units stay within one day of production."""
        arr = self.inp if is_buy else self.out
        return int(arr[c.delivery]) + c.quantity <= self.awi.n_lines

    def on_contracts_finalized(
        self, signed: list[Contract], cancelled: list[Contract], rejectors: list[list[str]]
    ) -> None:
        me = self.awi.agent
        for c in signed:
            self._book(c)
            if c.buyer == me and not c.exogenous:
                self._bought += c.quantity

    def on_agent_bankrupt(
        self, agent: str, nullified: list[Contract], reduced: list[Contract]
    ) -> None:
        for c in nullified:
            self._book(c, -1)
        for c in reduced:
            self._book(c)

    def step(self) -> None:
        self._adapt()
        self._key = (-1, False)  # inventories change during execution
        run_day(self.awi, self._want, self._negotiator)

    def _want(self, is_buy: bool) -> Want | None:
        """Up to the most units the plan has room for, on the days it has room."""
        awi = self.awi
        first = awi.current_step + 1
        last = min(awi.n_steps - 1, first + max(2, awi.horizon))
        room = self.room(is_buy, first, last)
        if len(room) == 0 or room.max() <= 0:
            return None
        days = np.flatnonzero(room > 0)
        return (1, int(room.max())), (first + int(days[0]), first + int(days[-1]))

    def _negotiator(self, is_buy: bool) -> MarketNegotiator:
        awi = self.awi
        if is_buy:
            limit = self.buy_limit()
            if self.urgent_price:
                self._project()
                if self._short > 0:  # signed sales lack inputs: dearer than a breach
                    limit = max(limit, int(self.urgent_price * self._tp(awi.my_input_product)))
            best = min(limit, max(1, int(self._tp(awi.my_input_product) * 0.9)))
            return MarketNegotiator(self, True, best, limit)
        floor = self.sell_floor()
        best = max(floor, int(np.ceil(self._tp(awi.my_output_product) * 1.1)))
        return MarketNegotiator(self, False, best, floor)

    def respond_to_negotiation_request(self, initiator: str, agenda: Agenda) -> Negotiator | None:
        mine_buy = not agenda.is_buy
        room = self.room(mine_buy, *agenda.time)
        if len(room) == 0 or room.max() < agenda.quantity[0]:
            return None
        return self._negotiator(mine_buy)
