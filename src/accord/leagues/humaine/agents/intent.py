"""What a buyer's words offer, for the rules: a seller may accept only an offer the buyer
made (see :class:`accord.leagues.humaine.rules.Intent`).

The buyer (a person typing or speaking, a simulated buyer) usually sends text without a
bid. The orchestrator reads it with the sellers' own language layer
(:func:`accord.leagues.humaine.agents.language.parse_utterance`), so "Celia, I accept"
makes Celia's standing offer the buyer's, "2 eggs for $3" offers that, "how about $3?"
offers the standing offer's goods at $3, and "no thanks" withdraws. A request without a
price ("how much for 2 eggs?") offers nothing: no seller may accept it. A good named
without a count is one of it, as the sample sellers read it.

>>> read_intent("Celia, I accept your offer")
Intent(kind='accept', goods={}, price=None)
>>> read_intent("Watson, 2 eggs and a cup of milk for $3?")
Intent(kind='offer', goods={'egg': 2, 'milk': 1}, price=3.0)
>>> read_intent("Watson, I accept 2 eggs for $9")
Intent(kind='offer', goods={'egg': 2}, price=9.0)
>>> read_intent("how much for 2 egs and 1 cup of mlik?") is None
True
"""

from __future__ import annotations

from collections.abc import Sequence

from ..rules import Intent
from .language import DEFAULT_NAMES, ActKind, parse_utterance

__all__ = ["read_intent"]


def read_intent(text: str, names: Sequence[str] = DEFAULT_NAMES) -> Intent | None:
    """The offer in a buyer's ``text`` (None: it offers nothing)."""
    act = parse_utterance(text, names)
    goods = {g: q or 1 for g, q in act.goods.items() if q != 0}
    if act.kind is ActKind.REJECT:
        return Intent("reject")
    if act.kind is ActKind.ACCEPT and act.price is None:
        return Intent("accept")
    if act.price is None:
        return None
    if act.kind in (ActKind.OFFER, ActKind.ACCEPT) and goods:  # "I accept 2 eggs for $9"
        return Intent("offer", goods, act.price)
    if act.kind in (ActKind.COUNTER, ActKind.ACCEPT) and not goods:
        return Intent("price", {}, act.price)
    return None
