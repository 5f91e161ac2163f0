"""Render negotiation acts as short English sentences our own parser reads back.

>>> describe_bundle({"egg": 2, "milk": 1, "chocolate": 3})
'2 eggs, 1 cup of milk and 3 ounces of chocolate'
>>> sell_offer_text({"egg": 5}, 3.73)
'How about if I sell you 5 eggs for $3.73?'
"""

from __future__ import annotations

from collections.abc import Mapping

from .goods import GOODS, unit_phrase
from .prices import format_price


def describe_bundle(bundle: Mapping[str, int]) -> str:
    """Goods in spec order, joined with commas and "and"; "nothing" when empty."""
    parts = [unit_phrase(g, bundle[g]) for g in GOODS if bundle.get(g)]
    if not parts:
        return "nothing"
    if len(parts) == 1:
        return parts[0]
    return ", ".join(parts[:-1]) + " and " + parts[-1]


def sell_offer_text(bundle: Mapping[str, int], price: float, opener: str = "") -> str:
    """A seller's offer sentence."""
    lead = f"{opener} " if opener else ""
    return f"{lead}How about if I sell you {describe_bundle(bundle)} for {format_price(price)}?"


def accept_text(bundle: Mapping[str, int], price: float) -> str:
    """A seller's confirmation of a deal."""
    return (
        f"Deal! I confirm that I'm selling you {describe_bundle(bundle)} for {format_price(price)}."
    )


def buyer_request_text(bundle: Mapping[str, int], addressee: str = "") -> str:
    """A buyer's solicitation, e.g. "Celia, I'd like to buy 2 eggs."."""
    lead = f"{addressee}, " if addressee else ""
    return f"{lead}I'd like to buy {describe_bundle(bundle)}."


def buyer_offer_text(bundle: Mapping[str, int], price: float, addressee: str = "") -> str:
    """A buyer's priced offer, e.g. "Watson, I'll buy 3 eggs for $2.00."."""
    lead = f"{addressee}, " if addressee else ""
    return f"{lead}I'll buy {describe_bundle(bundle)} for {format_price(price)}."


def buyer_counter_text(price: float, addressee: str = "", rival: str = "") -> str:
    """A buyer's counter on the goods under discussion, optionally citing the rival seller."""
    lead = f"{addressee}, " if addressee else ""
    if rival:
        return f"{lead}{rival} will do it for less. How about {format_price(price)}?"
    return f"{lead}That's too expensive. How about {format_price(price)}?"


def buyer_accept_text(addressee: str = "") -> str:
    """A buyer's acceptance."""
    lead = f"{addressee}, " if addressee else ""
    return f"{lead}OK, I accept your offer."


def buyer_reject_text(addressee: str = "") -> str:
    """A buyer's plain rejection."""
    lead = f"{addressee}, " if addressee else ""
    return f"{lead}No thanks, that's too expensive."
