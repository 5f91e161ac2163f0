"""Simulated buyers (peer-designed-agent style) that haggle in English.

A buyer plans what to bake from its utility and budget (:func:`shopping_plan` at the
prices it believes in), asks the sellers for the missing goods, reads their offers (the
buyer sees bids, as the human UI does), and accepts offers that improve its utility at a
price it finds fair. It waits at least ``gap`` seconds between utterances (R0).
Strategies differ in what they believe prices should be and how they haggle:

- :class:`FairBuyer` asks everyone, counters once or twice, accepts a fair price;
- :class:`LowballBuyer` opens with priced offers far below fair value and creeps up;
- :class:`ImpatientBuyer` takes the first offer that improves its utility;
- :class:`ShopperBuyer` asks one seller, then plays the other against it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from accord.core.errors import ConfigError

from ..utility import BuyerUtility
from .base import HUMAN, AgentContext, NotBound, Offer
from .goods import GOODS
from .phrases import (
    buyer_accept_text,
    buyer_counter_text,
    buyer_offer_text,
    buyer_reject_text,
    buyer_request_text,
)
from .valuation import Valuer, shopping_plan

MEAN_COST: dict[str, float] = {
    "egg": 0.375,
    "flour": 0.75,
    "sugar": 0.75,
    "milk": 0.30,
    "chocolate": 0.30,
    "vanilla": 0.30,
    "blueberry": 0.375,
}
"""Midpoints of the sellers' cost ranges (Appendix A): what every player knows."""


class SimulatedBuyer:
    """Base buyer. Subclasses implement :meth:`move`."""

    strategy = "base"
    belief_markup = 1.0
    """Believed fair price = mean cost * (1 + belief_markup)."""

    def __init__(
        self,
        *,
        seed: int = 0,
        names: tuple[str, ...] = ("Celia", "Watson"),
        gap: float = 5.2,
        listen: float = 3.0,
        batch: int = 2,
    ) -> None:
        self.seed = seed
        self.names = names
        self.gap = gap
        self.listen = listen
        self.batch = batch
        self.rng = np.random.default_rng(seed)
        self.ctx: AgentContext | None = None
        self.utility: BuyerUtility | None = None
        self.valuer: Valuer | None = None
        self.budget = 0.0
        self.round_id: str | None = None
        self.reset()

    def reset(self) -> None:
        self.active = False
        self.inventory: dict[str, int] = {}
        self.spent = 0.0
        self.target: dict[str, int] = {}
        self.products: list[dict[str, int]] = []
        self.offers: dict[str, Offer] = {}
        self.last_said = -1e9
        self.turns = 0
        self.counters = 0
        self.started_at = 0.0
        self.duration = 300.0
        self.said: list[str] = []
        self.done = False

    # ------------------------------------------------------------- callbacks
    def bind(self, ctx: AgentContext) -> SimulatedBuyer:
        self.ctx = ctx
        return self

    def set_utility(self, body: Mapping[str, Any], budget: float | None = None) -> dict[str, Any]:
        """Buyer utility in wire form; ``budget`` (dollars) if known here."""
        self.utility = BuyerUtility.from_wire(body)
        self.valuer = Valuer(self.utility)
        self.round_id = body.get("roundId") or self.round_id
        if budget is not None:
            self.budget = float(budget)
        return {"status": "acknowledged"}

    def start_round(self, body: Mapping[str, Any] | None = None) -> dict[str, Any]:
        body = body or {}
        budget, utility = self.budget, self.utility
        self.reset()
        self.budget, self.utility = budget, utility
        self.active = True
        self.duration = float(body.get("roundDuration") or 300.0)
        self.started_at = self._now()
        self._replan()
        self._schedule(float(self.rng.uniform(0.2, 1.5)))
        return {"status": "acknowledged"}

    def end_round(self, body: Mapping[str, Any] | None = None) -> dict[str, Any]:
        self.active = False
        return {"status": "acknowledged"}

    def receive_message(self, body: Mapping[str, Any]) -> dict[str, Any]:
        """A permitted message; agent messages carry their bid here."""
        speaker = body.get("speaker")
        bid = body.get("bid") or {}
        if speaker in self.names and bid:
            quantity = {g: int(n) for g, n in (bid.get("quantity") or {}).items() if n}
            price = float((bid.get("price") or {}).get("value", 0.0))
            if bid.get("type") == "Accept":
                for g, n in quantity.items():
                    self.inventory[g] = self.inventory.get(g, 0) + n
                self.spent = round(self.spent + price, 2)
                self.offers.clear()
                self.counters = 0
                if not self._need():
                    self._replan()
            elif bid.get("type") == "SellOffer":
                self.offers[str(speaker)] = Offer(str(speaker), quantity, price, self._now())
        return {"status": "acknowledged"}

    def receive_rejection(self, body: Mapping[str, Any]) -> dict[str, Any]:
        if "R0" in str(body.get("rationale", "")) or "previous human" in str(body.get("rationale")):
            self._schedule(self.gap)
        return {"status": "acknowledged"}

    # ---------------------------------------------------------------- reading
    @property
    def remaining(self) -> float:
        return round(self.budget - self.spent, 2)

    def elapsed_fraction(self) -> float:
        return min(1.0, max(0.0, (self._now() - self.started_at) / max(self.duration, 1e-9)))

    def fair_price(self, bundle: Mapping[str, int]) -> float:
        """What this buyer believes ``bundle`` should cost."""
        return sum(MEAN_COST[g] * n for g, n in bundle.items()) * (1 + self.belief_markup)

    def gain(self, bundle: Mapping[str, int]) -> float:
        assert self.valuer is not None
        return self.valuer.gain(self.inventory, bundle)

    def value(self) -> float:
        return 0.0 if self.valuer is None else self.valuer.value(self.inventory)

    def good_offers(self) -> list[Offer]:
        """Offers that add value and fit the budget, cheapest per unit of gain first."""
        ok = [
            o
            for o in self.offers.values()
            if o.price <= self.remaining + 1e-9 and self.gain(o.bundle) > 1e-9
        ]
        return sorted(ok, key=lambda o: (o.price / self.gain(o.bundle), o.speaker))

    # --------------------------------------------------------------- planning
    def _need(self) -> dict[str, int]:
        return {
            g: n - self.inventory.get(g, 0)
            for g, n in self.target.items()
            if n > self.inventory.get(g, 0)
        }

    def _replan(self) -> None:
        if self.utility is None:
            return
        prices = {g: MEAN_COST[g] * (1 + self.belief_markup) for g in GOODS}
        plan = shopping_plan(self.utility, self.remaining, prices)
        if not plan.goods:
            self.done = True
            return
        self.target = {g: self.inventory.get(g, 0) + n for g, n in plan.goods.items()}
        base = dict(self.inventory)
        self.products = [base] + plan.units()

    def chunk(self) -> dict[str, int]:
        """What is missing for the next ``batch`` products of the plan."""
        cumulative: dict[str, int] = {}
        covered = 0
        for i, unit in enumerate(self.products):
            for g, n in unit.items():
                cumulative[g] = cumulative.get(g, 0) + n
            if all(self.inventory.get(g, 0) >= n for g, n in cumulative.items()):
                covered = i + 1
            else:
                break
        want: dict[str, int] = {}
        for unit in self.products[: covered + self.batch]:
            for g, n in unit.items():
                want[g] = want.get(g, 0) + n
        return {
            g: n - self.inventory.get(g, 0) for g, n in want.items() if n > self.inventory.get(g, 0)
        }

    # ---------------------------------------------------------------- talking
    def move(self) -> tuple[str, str] | None:
        """The next utterance ``(text, addressee)`` or None to stay quiet."""
        raise NotImplementedError

    def _step(self) -> None:
        if not self.active or self.done:
            return
        now = self._now()
        if now - self.last_said < self.gap:
            self._schedule(self.gap - (now - self.last_said) + 0.01)
            return
        if not self._need() and not self.good_offers():
            self._replan()
            if self.done or not self._need():
                return
        move = self.move()
        if move is not None:
            self.say(*move)
        self._schedule(max(self.gap, self.listen) + float(self.rng.uniform(0.0, 0.5)))

    def say(self, text: str, addressee: str = "") -> None:
        if self.ctx is None:
            raise NotBound("buyer has no context; call bind(ctx) first")
        message: dict[str, Any] = {
            "speaker": HUMAN,
            "addressee": addressee,
            "text": text,
            "role": "buyer",
            "timestamp": int(self._now() * 1000),
        }
        if self.round_id:
            message["roundId"] = self.round_id
        self.last_said = self._now()
        self.turns += 1
        self.said.append(text)
        self.ctx.send(message)

    def request(self, addressee: str = "") -> tuple[str, str] | None:
        bundle = self.chunk()
        if not bundle:
            return None
        self.offers.clear()
        self.counters = 0
        return buyer_request_text(bundle, addressee), addressee

    def accept(self, offer: Offer) -> tuple[str, str]:
        return buyer_accept_text(offer.speaker), offer.speaker

    def other(self, seller: str) -> str:
        return next((n for n in self.names if n != seller), seller)

    def _now(self) -> float:
        return 0.0 if self.ctx is None else self.ctx.now()

    def _schedule(self, delay: float) -> None:
        if self.ctx is not None:
            self.ctx.call_later(delay, self._step)


class FairBuyer(SimulatedBuyer):
    """Asks everyone, accepts a fair price, counters up to twice, then settles."""

    strategy = "fair"
    belief_markup = 1.0

    def move(self) -> tuple[str, str] | None:
        offers = self.good_offers()
        if not offers:
            return self.request()
        best = offers[0]
        fair = self.fair_price(best.bundle)
        late = self.elapsed_fraction() > 0.8
        if best.price <= fair or (late and best.price <= fair * 1.5):
            return self.accept(best)
        if self.counters < 2:
            self.counters += 1
            return buyer_counter_text(round(fair * 0.9, 2), best.speaker), best.speaker
        if best.price <= fair * 1.4:
            return self.accept(best)
        return buyer_reject_text(best.speaker), best.speaker


class ImpatientBuyer(SimulatedBuyer):
    """Takes the first offer that improves its utility."""

    strategy = "impatient"
    belief_markup = 2.0

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("listen", 2.5)
        super().__init__(**kwargs)

    def move(self) -> tuple[str, str] | None:
        offers = self.good_offers()
        return self.accept(offers[0]) if offers else self.request()


class LowballBuyer(SimulatedBuyer):
    """Greedy: opens at ``opening`` times the fair price, raises by ``raise_by`` a turn."""

    strategy = "lowball"
    belief_markup = 0.8

    def __init__(self, *, opening: float = 0.5, raise_by: float = 0.12, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.opening = opening
        self.raise_by = raise_by

    def move(self) -> tuple[str, str] | None:
        bundle = self.chunk()
        offers = self.good_offers()
        bid_ratio = min(1.0, self.opening * (1 + self.raise_by) ** self.counters)
        if offers:
            best = offers[0]
            fair = self.fair_price(best.bundle)
            if best.price <= fair * max(bid_ratio * 1.15, 0.0) or (
                self.elapsed_fraction() > 0.75 and best.price <= fair * 1.2
            ):
                return self.accept(best)
        if not bundle:
            return None
        seller = self.names[self.counters % len(self.names)]
        price = round(self.fair_price(bundle) * bid_ratio, 2)
        if price > self.remaining:
            price = self.remaining
        self.counters += 1
        return buyer_offer_text(bundle, price, seller), seller


class ShopperBuyer(SimulatedBuyer):
    """Plays the sellers against each other by quoting one's price to the other."""

    strategy = "shopper"
    belief_markup = 1.0

    def move(self) -> tuple[str, str] | None:
        offers = self.good_offers()
        if not offers:
            seller = self.names[self.turns % len(self.names)]
            return self.request(seller)
        best = offers[0]
        fair = self.fair_price(best.bundle)
        if best.price <= fair * 0.85 or self.counters >= 3 and best.price <= fair * 1.4:
            return self.accept(best)
        if self.counters >= 3:
            return self.request()
        self.counters += 1
        rival = self.other(best.speaker)
        return buyer_counter_text(round(best.price * 0.85, 2), rival, best.speaker), rival


BUYERS: dict[str, Callable[..., SimulatedBuyer]] = {
    "fair": FairBuyer,
    "impatient": ImpatientBuyer,
    "lowball": LowballBuyer,
    "shopper": ShopperBuyer,
}
"""Buyer strategies by name."""


def make_buyer(strategy: str, seed: int = 0) -> SimulatedBuyer:
    """A buyer by strategy name.

    >>> make_buyer("fair").strategy
    'fair'
    """
    try:
        return BUYERS[strategy](seed=seed)
    except KeyError:
        raise ConfigError(
            f"unknown buyer strategy {strategy!r}; expected one of {', '.join(BUYERS)}"
        ) from None
