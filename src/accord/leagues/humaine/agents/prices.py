"""Find money amounts in (digit-normalised) text: "$3", "3 dollars", "3.50 USD", "4 bucks".

>>> [p.value for p in find_prices("2 eggs for $3 or 3.50 USD, maybe 4 bucks or 75 cents")]
[3.0, 3.5, 4.0, 0.75]
>>> [p.value for p in find_prices("I'll buy 3 eggs for 2")]
[2.0]
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .goods import GOOD_WORDS, PRODUCT_WORDS, UNIT_WORDS

_NUM = r"\d+(?:\.\d+)?"
_NOT_A_PRICE_NEXT = "|".join(
    sorted([*GOOD_WORDS, *PRODUCT_WORDS, *UNIT_WORDS, "of", "more", "x", "times"], key=len)[::-1]
)
_NOT_QTY = rf"(?!\s*(?:{_NOT_A_PRICE_NEXT})\b)(?!\s*%)(?!\d)"
_CENTS_TAIL = rf"(?:\s*,?\s*(?:and\s+)?(?P<cents>\d{{1,2}})\b{_NOT_QTY}(?:\s*cents?\b)?)?"
_CUES = (
    r"for|at|pay|paying|offer|offering|give\s+you|make\s+it|do\s+it\s+for|how\s+about|"
    r"what\s+about|price\s+of|budget\s+of|spend|only"
)

_PATTERNS: tuple[tuple[re.Pattern[str], float], ...] = (
    (
        re.compile(
            rf"(?:\bus)?\$\s*(?P<v>{_NUM})(?:\s*(?:and\s+)?(?P<cents>\d{{1,2}})\s*cents?\b)?"
        ),
        1,
    ),
    (
        re.compile(
            rf"\b(?P<v>{_NUM})\s*(?:\$|\busd\b|\bus\s+dollars?\b|\bdollars?\b|\bbucks?\b|\bbux\b)"
            + _CENTS_TAIL,
            re.IGNORECASE,
        ),
        1,
    ),
    (re.compile(rf"\b(?:usd|dollars?)\s*(?P<v>{_NUM})\b", re.IGNORECASE), 1),
    (re.compile(rf"\b(?P<v>{_NUM})\s*(?:cents?\b|¢)", re.IGNORECASE), 0.01),
    (re.compile(rf"\b(?:{_CUES})\s+(?P<v>{_NUM})\b{_NOT_QTY}", re.IGNORECASE), 1),
)
_PER_UNIT = re.compile(r"\s*(?:each|apiece|a\s+piece|per\s+\w+|an?\s+(?:cup|ounce|packet|egg))\b")


@dataclass(frozen=True)
class Price:
    """A money amount found in text, with its character span.

    ``per_unit`` is set for "2 dollars each" / "per cup": the amount is a unit price.
    """

    value: float
    start: int
    end: int
    per_unit: bool = False


def find_prices(text: str) -> list[Price]:
    """All non-overlapping money amounts in ``text``, in reading order.

    >>> find_prices("3 dollars and 50 cents each")[0]
    Price(value=3.5, start=0, end=27, per_unit=True)
    """
    found: list[Price] = []
    taken: list[tuple[int, int]] = []
    for pattern, scale in _PATTERNS:
        for m in pattern.finditer(text):
            start, end = m.span()
            if any(start < b and a < end for a, b in taken):
                continue
            value = float(m.group("v")) * scale
            cents = m.groupdict().get("cents")
            if cents:
                value += int(cents) / 100
            per = _PER_UNIT.match(text, end)
            if per:
                end = per.end()
            taken.append((start, end))
            found.append(Price(round(value, 2), start, end, per is not None))
    found.sort(key=lambda p: p.start)
    return found


def format_price(value: float) -> str:
    """Two-decimal dollar string used by our agents.

    >>> format_price(3.5), format_price(12)
    ('$3.50', '$12.00')
    """
    return f"${value:.2f}"
