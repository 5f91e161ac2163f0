"""A seller that knows the rules of Appendix B and reads the other seller.

Timing (R2, R3): when addressed it answers after ``reply_delay`` seconds, well inside
the 2 s window; when the other seller is addressed it waits for that seller's message
(then answers ``follow_delay`` later, so the two are not "simultaneous") or for the
window to pass; when nobody is addressed it answers quickly. It says at most one thing
per human utterance, retries a reply blocked as simultaneous, and keeps messages short
(R4). Pricing: never below ``cost * (1 + min_margin)``; the markup falls from
``max_markup`` to ``min_margin`` over the round (``t ** concession_exponent``) and by
``step`` after every rejection or counter; it undercuts the other seller's latest offer
(read from the transcript, since bids of other agents are stripped) when it can.

>>> from accord.leagues.humaine.agents.strong import StrongSeller
>>> StrongSeller("Celia").kind
'strong'
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from accord.core.errors import ConfigError

from .base import HUMAN, Heard, SellerAgent
from .language import ActKind
from .phrases import accept_text, describe_bundle, sell_offer_text

DEFAULTS: dict[str, int] = {
    "egg": 2,
    "flour": 2,
    "sugar": 1,
    "milk": 2,
    "chocolate": 3,
    "vanilla": 2,
    "blueberry": 1,
}
"""Quantities offered for a good asked for without a number (a recipe's or a flavour's
minimum)."""

_OPENERS = ("", "Good choice!", "Fresh today!", "Just for you!")


class StrongSeller(SellerAgent):
    """Rule-aware, competitor-reading, conceding seller."""

    kind = "strong"

    def __init__(
        self,
        name: str = "Celia",
        *,
        seed: int = 0,
        max_markup: float = 1.6,
        min_margin: float = 0.25,
        concession_exponent: float = 2.0,
        step: float = 0.15,
        undercut: float = 0.04,
        window: float = 2.0,
        reply_delay: float = 0.3,
        follow_delay: float = 0.25,
        unaddressed_wait: float = 1.0,
        names: tuple[str, ...] = ("Celia", "Watson"),
    ) -> None:
        super().__init__(name, seed=seed, names=names)
        if not 0 <= min_margin <= max_markup:
            raise ConfigError(
                f"need 0 <= min_margin <= max_markup, got {min_margin!r} and {max_markup!r}"
            )
        self.max_markup = max_markup
        self.min_margin = min_margin
        self.concession_exponent = concession_exponent
        self.step = step
        self.undercut = undercut
        self.window = window
        self.reply_delay = reply_delay
        self.follow_delay = follow_delay
        self.unaddressed_wait = unaddressed_wait

    def reset_round(self) -> None:
        super().reset_round()
        self.concessions = 0
        self.needs: dict[str, int] = {}
        self._turn = 0
        self._answered_turn = -1
        self.rival_low_ratio: float | None = None
        self.rival_deal_ratio: float | None = None

    # ----------------------------------------------------------------- pricing
    def floor(self, bundle: Mapping[str, int]) -> float:
        """Lowest price ever offered or accepted for ``bundle``."""
        return round(self.cost(bundle) * (1 + self.min_margin) + 0.005, 2)

    def markup(self) -> float:
        """Current markup over cost, from the clock and the concessions so far."""
        t = self.elapsed_fraction()
        span = self.max_markup - self.min_margin
        timed = self.max_markup - span * float(t**self.concession_exponent)
        return max(self.min_margin, timed * float((1 - self.step) ** self.concessions))

    def ask(self, bundle: Mapping[str, int]) -> float:
        """The price to ask now: the aspiration, under the rival's offer if it is lower."""
        cost = self.cost(bundle)
        price = cost * (1 + self.markup())
        rival = self.rival_offer
        if rival is not None and rival.bundle:
            rival_cost = self.cost(rival.bundle)
            if rival_cost > 0:
                rival_price = rival.price / rival_cost * cost
                price = min(price, rival_price * (1 - self.undercut))
        if self.rival_deal_ratio is not None:
            price = min(price, self.rival_deal_ratio * cost * (1 - self.undercut))
        return round(max(price, self.floor(bundle)), 2)

    # ------------------------------------------------------------------ timing
    def on_human(self, heard: Heard) -> None:
        self._turn += 1
        act = heard.act
        for good, qty in act.quantities.items():
            self.needs[good] = max(self.needs.get(good, 0), qty)
        target = self.target_of(heard)
        turn = self._turn
        if act.kind is ActKind.ACCEPT and self.accept_target(heard) != self.name:
            return
        if target == self.name or act.kind is ActKind.ACCEPT:
            self._later(self.reply_delay, turn)
        elif target is None:
            self._later(self.unaddressed_wait, turn)
        else:
            self._later(self.window + 0.1, turn)

    def on_agent(self, heard: Heard) -> None:
        last = self.last_human
        if last is None or self._answered_turn == self._turn:
            return
        act = heard.act
        if act.kind is ActKind.ACCEPT:
            for good, qty in act.quantities.items():
                self.needs[good] = max(0, self.needs.get(good, 0) - qty)
        if act.kind in (ActKind.ACCEPT, ActKind.OFFER) and act.price is not None and act.quantities:
            cost = self.cost(act.quantities)
            if cost > 0:
                ratio = act.price / cost
                low = self.rival_low_ratio
                self.rival_low_ratio = ratio if low is None else min(low, ratio)
                if act.kind is ActKind.ACCEPT:
                    self.rival_deal_ratio = ratio
        self._later(self.follow_delay, self._turn)

    def on_rejection(self, message: dict[str, Any]) -> None:
        rationale = str(message.get("rationale", ""))
        self._answered_turn = -1
        if "Simultaneous" in rationale:
            self._later(self.follow_delay, self._turn)
        elif "Premature" in rationale:
            self._later(self.window + 0.1, self._turn)
        else:
            self._answered_turn = self._turn  # R1/R2-expired/R3/R4: wait for the human

    def _later(self, delay: float, turn: int) -> None:
        if self.ctx is None:
            return
        self.ctx.call_later(delay, lambda: self._respond(turn))

    # --------------------------------------------------------------- deciding
    def _respond(self, turn: int) -> None:
        if not self.active or turn != self._turn or self._answered_turn == turn:
            return
        heard = self.last_human
        if heard is None:
            return
        move = self.decide(heard)
        if move is None:
            return
        self._answered_turn = turn
        kind, bundle, price = move
        if kind == "Accept":
            self.concessions = 0  # the next negotiation starts from the clock's markup
            self.accept(bundle, price, accept_text(bundle, price))
        else:
            self.offer(bundle, price, self._offer_text(bundle, price))

    def _offer_text(self, bundle: Mapping[str, int], price: float) -> str:
        opener = _OPENERS[(self._turn + len(self.heard)) % len(_OPENERS)]
        rival = self.rival_offer
        if rival is not None and rival.bundle == dict(bundle) and price < rival.price:
            return f"I'll beat {rival.speaker}: {describe_bundle(bundle)} for ${price:.2f}."
        text = sell_offer_text(bundle, price, opener)
        return text if len(text.split()) <= 100 else f"{describe_bundle(bundle)}: ${price:.2f}"

    def _bundle_for(self, heard: Heard) -> dict[str, int]:
        act = heard.act
        if act.goods:
            return {g: q if q else self.needs.get(g) or DEFAULTS[g] for g, q in act.goods.items()}
        target = self.target_of(heard)
        if target == self.rival and self.rival_offer is not None:
            return dict(self.rival_offer.bundle)
        if self.standing is not None:
            return dict(self.standing.bundle)
        if self.rival_offer is not None:
            return dict(self.rival_offer.bundle)
        return {g: q for g, q in self.needs.items() if q}

    def decide(self, heard: Heard) -> tuple[str, dict[str, int], float] | None:
        """The move for the latest human utterance: ("Accept"|"SellOffer", bundle, price)."""
        act = heard.act
        target = self.target_of(heard)
        if act.kind is ActKind.ACCEPT:
            if self.accept_target(heard) == self.name and self.standing is not None:
                return ("Accept", dict(self.standing.bundle), self.standing.price)
            return None
        if act.kind is ActKind.OTHER:
            return None
        if target == self.rival and self.last_seller_offer is None and self._rival_dealt():
            return None
        if act.kind is ActKind.REJECT and target in (None, self.name) and self.standing is not None:
            self.concessions += 1
        bundle = self._bundle_for(heard)
        if not bundle:
            return None
        ask = self.ask(bundle)
        if act.price is not None and act.kind in (ActKind.OFFER, ActKind.COUNTER):
            if target in (None, self.name):
                self.concessions += 1
                ask = self.ask(bundle)
                if act.price >= ask - 0.005 or (
                    act.price >= self.floor(bundle)
                    and (
                        self.elapsed_fraction() > 0.85 or self._rival_would_take(bundle, act.price)
                    )
                ):
                    return ("Accept", bundle, round(act.price, 2))
            elif act.price >= self.floor(bundle):
                return ("SellOffer", bundle, round(max(act.price, self.floor(bundle)), 2))
        return ("SellOffer", bundle, ask)

    def _rival_would_take(self, bundle: Mapping[str, int], price: float) -> bool:
        """Whether the other seller has offered or sold at this price level or lower."""
        low = self.rival_low_ratio
        cost = self.cost(bundle)
        return low is not None and cost > 0 and price / cost >= low * 0.98

    def _rival_dealt(self) -> bool:
        last = self.heard[-1] if self.heard else None
        return bool(
            last and last.speaker not in (HUMAN, self.name) and last.act.kind is ActKind.ACCEPT
        )
