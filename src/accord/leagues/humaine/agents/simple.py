"""A simple regex seller in the manner of the original sample agents.

It answers human utterances addressed to it (or to nobody) at once: a request or a priced
offer it does not like gets a counter-offer at a random markup over cost; a priced offer
at or above ``accept_ratio`` times cost is accepted; "I accept" makes the deal on its
standing offer. It ignores the rules of Appendix B and the other seller.

>>> from accord.leagues.humaine.agents.simple import RegexSeller
>>> RegexSeller("Watson").kind
'regex'
"""

from __future__ import annotations

import numpy as np

from accord.core.errors import ConfigError

from .base import Heard, SellerAgent
from .language import ActKind

DEFAULT_QUANTITY = 1


class RegexSeller(SellerAgent):
    """Markup-over-cost seller (agent-kleene / agent-py behaviour).

    Args:
        markup: range ``(low, high)`` of the random markup; price = cost * (1 + markup).
        accept_ratio: accept a buyer's price at or above ``accept_ratio * cost``.
    """

    kind = "regex"

    def __init__(
        self,
        name: str = "Celia",
        *,
        seed: int = 0,
        markup: tuple[float, float] = (0.5, 1.5),
        accept_ratio: float = 1.25,
        names: tuple[str, ...] = ("Celia", "Watson"),
    ) -> None:
        super().__init__(name, seed=seed, names=names)
        if not 0 <= markup[0] <= markup[1]:
            raise ConfigError(f"markup must be a range 0 <= low <= high, got {markup!r}")
        self.markup = markup
        self.accept_ratio = accept_ratio
        self.rng = np.random.default_rng(seed)

    def _price(self, bundle: dict[str, int]) -> float:
        ratio = 1.0 + float(self.rng.uniform(*self.markup))
        return max(0.01, round(self.cost(bundle) * ratio, 2))

    def on_human(self, heard: Heard) -> None:
        target = self.target_of(heard)
        act = heard.act
        if act.kind is ActKind.ACCEPT:
            if self.accept_target(heard) == self.name and self.standing is not None:
                self.accept(self.standing.bundle, self.standing.price)
            return
        if target not in (None, self.name):
            return
        if act.kind is ActKind.OFFER or act.kind is ActKind.COUNTER:
            if act.kind is ActKind.OFFER:
                bundle = {g: q or DEFAULT_QUANTITY for g, q in act.goods.items()}
            elif self.standing is not None:
                bundle = dict(self.standing.bundle)
            else:
                return
            assert act.price is not None
            if act.price >= self.accept_ratio * self.cost(bundle):
                self.accept(bundle, act.price)
            else:
                self.offer(bundle, self._price(bundle))
        elif act.kind is ActKind.REQUEST and act.goods:
            bundle = {g: q or DEFAULT_QUANTITY for g, q in act.goods.items()}
            self.offer(bundle, self._price(bundle))
