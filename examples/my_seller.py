"""A small HUMAINE seller: fixed markup over cost, accepts fair counter-offers.

Used by docs/humaine.md and examples/06_humaine_fast_round.py. The same class runs in
fast mode (virtual time) and as an HTTP service:
``accord humaine agents serve --kind my_seller:MarkupSeller`` (with ``examples/`` on
``PYTHONPATH``).
"""

from accord.leagues.humaine.agents import SellerAgent
from accord.leagues.humaine.agents.base import Heard
from accord.leagues.humaine.agents.language import ActKind


class MarkupSeller(SellerAgent):
    """Asks cost x (1 + markup); accepts a buyer's price of at least cost x (1 + floor)."""

    kind = "markup"

    def __init__(self, name="Celia", *, seed=0, markup=0.8, floor=0.3, delay=0.4):
        super().__init__(name, seed=seed)
        self.markup, self.floor, self.delay = markup, floor, delay

    def on_human(self, heard: Heard) -> None:
        if self.target_of(heard) not in (None, self.name):
            return  # R2: the addressed seller answers first; stay quiet
        act, standing = heard.act, self.standing
        if act.kind is ActKind.ACCEPT:
            if standing is not None and self.accept_target(heard) == self.name:
                self.later(lambda: self.accept(standing.bundle, standing.price))
            return
        bundle = {g: q or 1 for g, q in act.goods.items()}
        if not bundle and standing is not None:
            bundle = dict(standing.bundle)  # "how about $3?" is about the standing offer
        if not bundle:
            return
        lowest = self.cost(bundle) * (1 + self.floor)
        price = act.price
        if price is not None and price >= lowest:
            self.later(lambda: self.accept(bundle, price))
        else:
            self.later(
                lambda: self.offer(bundle, max(lowest, self.cost(bundle) * (1 + self.markup)))
            )

    def later(self, say) -> None:
        """Speak after ``delay`` seconds: inside R2's 2 s window, not simultaneous (R3)."""
        assert self.ctx is not None
        self.ctx.call_later(self.delay, say)
