"""Turn an English utterance into a structured negotiation act.

The parser is deterministic and rule based: number words become digits, money amounts are
found and cut out, then every mention of a good takes the quantity written before it
("3 cups of flour", "a dozen eggs", "an egg") or after it ("eggs x3"). The act kind follows
from accept / reject cues, the goods and the price.

>>> act = parse_utterance("Celia, I'll buy 2 cups of flour, 2 cups of sugar, and 2 cups of milk "
...                       "from you for $3.")
>>> act.kind.value, act.addressee, dict(act.goods), act.price
('offer', 'Celia', {'flour': 2, 'sugar': 2, 'milk': 2}, 3.0)
>>> parse_utterance("OK, I accept your offer.").kind.value
'accept'
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from functools import lru_cache

from accord.core.errors import UsageError

from .goods import CAKE, GOOD_WORDS, PANCAKE, PRODUCT_WORDS, UNIT_WORDS
from .prices import Price, find_prices
from .wordnums import normalise_numbers

DEFAULT_NAMES: tuple[str, ...] = ("Celia", "Watson")


class ActKind(StrEnum):
    """What an utterance does in the negotiation."""

    OFFER = "offer"  # goods and a price: "I'll buy 3 eggs for $2"
    REQUEST = "request"  # goods or a price question without a price: "can you sell me milk?"
    COUNTER = "counter"  # a price for the goods under discussion: "how about $3?"
    ACCEPT = "accept"  # "OK, I accept your offer"
    REJECT = "reject"  # "no, too expensive"
    OTHER = "other"  # small talk


@dataclass(frozen=True)
class Act:
    """A structured reading of one utterance.

    ``goods`` maps every good mentioned to its quantity, or ``None`` when no quantity was
    given ("some milk"). ``price`` is the total price proposed (the last amount mentioned;
    a unit price times the quantity for "2 dollars each"), ``prices`` every amount found.
    """

    kind: ActKind
    text: str
    goods: Mapping[str, int | None] = field(default_factory=dict)
    price: float | None = None
    addressee: str | None = None
    prices: tuple[float, ...] = ()
    asks_price: bool = False
    unknown: tuple[str, ...] = ()
    """Words asked for with a quantity that are no good we sell ("3 apples")."""

    @property
    def quantities(self) -> dict[str, int]:
        """The goods that came with a quantity.

        >>> parse_utterance("3 eggs and some milk").quantities
        {'egg': 3}
        """
        return {g: q for g, q in self.goods.items() if q is not None}


_TOKEN = re.compile(r"\d+(?:\.\d+)?|[a-z]+(?:'[a-z]+)?|@[a-z]+|[^\sa-z0-9]")
_FILLERS = (
    frozenset(
        str.split(
            """of the your those these my more extra additional fresh large big small medium whole
    plain white brown dark milk pure organic all purpose all-purpose regular good nice x
    free range free-range full fat skim - semi sweet"""
        )
    )
    | UNIT_WORDS
)
_ONE_WORDS = frozenset({"a", "an", "another", "single", "1"})
_VAGUE = frozenset({"some", "any", "few", "several", "lots", "lot", "many", "much", "enough"})

_NEG_ACCEPT = re.compile(
    r"\b(?:don'?t|do\s+not|won'?t|will\s+not|can'?t|cannot|can\s+not|not|never)\s+"
    r"(?:going\s+to\s+)?(?:accept|agree|take\s+it|do\s+that|deal)",
)
_REJECT = re.compile(
    r"\b(?:no\s+deal|no\s+thanks?|no\s+thank\s+you|not\s+interested|too\s+(?:expensive|much|"
    r"high|pricey|steep|costly)|i\s+reject|reject(?:ed)?|decline|nope|no\s+way|forget\s+it|"
    r"rip-?off|refuse|not\s+acceptable|unacceptable|can'?t\s+afford|i'?ll\s+pass|i\s+pass|"
    r"that'?s\s+a\s+lot|outrageous|you'?re\s+kidding|way\s+too)\b|^\s*no\b",
)
_ACCEPT = re.compile(
    r"\b(?:i\s+accept|accept(?:ed)?|it'?s\s+a\s+deal|deal|agreed|i\s+agree|sounds\s+good|"
    r"i'?ll\s+take\s+(?:it|that|them|those)|i\s+will\s+take\s+(?:it|that|them|those)|"
    r"let'?s\s+do\s+it|sold|you'?ve\s+got\s+a\s+deal|you\s+have\s+a\s+deal|yes\s+please|"
    r"that\s+works|works\s+for\s+me|fine\s+by\s+me|perfect|done|okay\s+deal|ok\s+deal|"
    r"i'?ll\s+buy\s+(?:it|that|them|those)|confirm(?:ed)?|^\s*(?:yes|yep|yeah|sure|ok|okay)"
    r"\s*[.!]*\s*$)\b",
)
_ASKS_PRICE = re.compile(
    r"\b(?:how\s+much|what(?:'s|\s+is|\s+would\s+be)?\s+(?:your|the)\s+(?:best\s+)?price|"
    r"price\s+(?:for|on)|good\s+price|best\s+price|quote|what\s+do\s+you\s+charge|"
    r"how\s+(?:cheap|low)|cost|can\s+you\s+do\s+better|lower|cheaper|discount|beat)\b",
)
_TAGS = re.compile(r"</?[a-zA-Z][^<>]*>")
_EXPLICIT_ACCEPT = re.compile(r"\baccept|\bconfirm")


_GREETING = r"(?:hey|hi|hello|ok|okay|so|well|and|now|yo|dear|excuse\s+me|thanks|thank\s+you)"


@lru_cache(maxsize=64)
def _addressee_patterns(names: tuple[str, ...]) -> tuple[dict[str, str], list[re.Pattern[str]]]:
    """Compiled patterns, most telling first: "@name", "Name," at a sentence start,
    a greeting + name, "name can/could/...", ", name" at the end, any mention."""
    by_lower = {n.lower(): n for n in names}
    alt = "|".join(re.escape(n) for n in by_lower)
    sources = (
        rf"@\s*({alt})\b",
        rf"(?:^|[.!?]\s*)(?:{_GREETING}[\s,]+)?({alt})\s*[,:;!?-]",
        rf"\b{_GREETING}[\s,]+({alt})\b",
        rf"\b({alt})\s*,?\s+(?:can|could|will|would|do|what|how|please|i|i'd|i'll|"
        rf"give|sell|make|let)\b",
        rf",\s*({alt})\s*[.!?]*\s*$",
        rf"^\s*({alt})\b",
        rf"\b({alt})\b",
    )
    return by_lower, [re.compile(p) for p in sources] if alt else []


@lru_cache(maxsize=64)
def _name_pattern(names: tuple[str, ...]) -> re.Pattern[str]:
    alt = "|".join(re.escape(n.lower()) for n in names) or r"(?!x)x"
    return re.compile(rf"@?\b(?:{alt})\b")


def _find_addressee(text: str, names: Sequence[str]) -> str | None:
    by_lower, patterns = _addressee_patterns(tuple(names))
    lowered = text.lower()
    for pattern in patterns:
        m = pattern.search(lowered)
        if m:
            return by_lower[m.group(1)]
    return None


def _number(token: str) -> float | None:
    try:
        return float(token)
    except ValueError:
        return None


def _quantity_before(tokens: list[str], i: int) -> int | None:
    j, steps = i - 1, 0
    while j >= 0 and steps < 6:
        tok = tokens[j]
        value = _number(tok)
        if value is not None:
            return int(value) if value == int(value) and value >= 0 else None
        if tok in _ONE_WORDS:
            return 1
        if tok in _VAGUE or tok in GOOD_WORDS or tok not in _FILLERS:
            return None
        j -= 1
        steps += 1
    return None


def _quantity_after(tokens: list[str], i: int) -> int | None:
    if i + 2 < len(tokens) and tokens[i + 1] in ("x", ":", "(", "=", "*"):
        value = _number(tokens[i + 2])
        if value is not None and value == int(value):
            return int(value)
    return None


_SOUNDS_LIKE = {"flower": "flour", "flowers": "flour", "shuger": "sugar", "sugur": "sugar"}
"""Misspellings too far from the good for one edit (homophones)."""
_NOT_GOODS = frozenset(
    str.split(
        """mile miles mild mill mills floor floors flout four legs pegs milky eggy sugary
    dollar dollars buck bucks bux usd cent cents each per piece pieces item items thing things
    one ones more less left times minute minutes min mins second seconds sec secs hour hours
    percent day days week weeks people person and or for at to with from than then please"""
    )
)
"""Real words one edit from a good's name that are not a misspelling of it."""


def _one_edit(a: str, b: str) -> bool:
    """Whether ``a`` becomes ``b`` by one insertion, deletion, substitution or swap of
    two neighbours.

    >>> _one_edit("egss", "eggs"), _one_edit("suger", "sugar"), _one_edit("egg", "milk")
    (True, True, False)
    """
    if a == b or abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        diff = [i for i, (x, y) in enumerate(zip(a, b, strict=True)) if x != y]
        if len(diff) == 1:
            return True
        i = diff[0]
        return len(diff) == 2 and diff[1] == i + 1 and a[i] == b[i + 1] and a[i + 1] == b[i]
    short, long = (a, b) if len(a) < len(b) else (b, a)
    return any(long[:i] + long[i + 1 :] == short for i in range(len(long)))


@lru_cache(maxsize=4096)
def good_of(word: str) -> str | None:
    """The good a word names, tolerating a misspelling (one edit away from a name of the
    good, with the same first letter, at least 4 letters) and homophones.

    >>> good_of("egss"), good_of("suger"), good_of("flower"), good_of("floor"), good_of("apple")
    ('egg', 'sugar', 'flour', None, None)
    """
    if word in GOOD_WORDS:
        return GOOD_WORDS[word]
    if word in _SOUNDS_LIKE:
        return _SOUNDS_LIKE[word]
    if len(word) < 4 or word in _NOT_GOODS or not word.isalpha():
        return None
    for name, good in GOOD_WORDS.items():
        if len(name) >= 3 and name[0] == word[0] and _one_edit(word, name):
            return good
    return None


def _is_unknown_good(tokens: list[str], i: int) -> bool:
    """A word asked for with a quantity just before it ("3 apples", "2 cups of salt")
    that names no good, product, unit or everyday word."""
    tok = tokens[i]
    if not tok.isalpha() or len(tok) < 3 or tok in _NOT_GOODS or tok in _FILLERS:
        return False
    if tok in _ONE_WORDS or tok in _VAGUE or tok in PRODUCT_WORDS:
        return False
    j = i - 1
    while j >= 0 and tokens[j] in _FILLERS and tokens[j] not in GOOD_WORDS:
        j -= 1
    return j >= 0 and _number(tokens[j]) is not None and j >= i - 3


def _scan_goods(tokens: list[str], unknown: list[str] | None = None) -> dict[str, int | None]:
    goods: dict[str, int | None] = {}
    products: dict[str, int] = {}
    for i, raw in enumerate(tokens):
        good_word = good_of(raw)
        if good_word is None and i > 0 and _number(tokens[i - 1]) is not None:
            good_word = _near_good(raw)  # "2 egs"
        tok = raw if good_word is None or raw in GOOD_WORDS else good_word
        if (
            unknown is not None
            and good_word is None
            and raw not in unknown
            and _is_unknown_good(tokens, i)
        ):
            unknown.append(raw)
        if tok in GOOD_WORDS:
            # "milk chocolate" names chocolate; "chocolate chips" is chocolate
            if tok == "milk" and i + 1 < len(tokens) and tokens[i + 1] in ("chocolate", "choc"):
                continue
            good = GOOD_WORDS[tok]
            qty = _quantity_before(tokens, i)
            if qty is None:
                qty = _quantity_after(tokens, i)
            if qty is None and good in goods:
                continue
            goods[good] = qty  # a later mention restates the quantity
        elif tok in PRODUCT_WORDS:
            qty = _quantity_before(tokens, i)
            if qty:
                products[PRODUCT_WORDS[tok]] = products.get(PRODUCT_WORDS[tok], 0) + qty
    if not goods and products:
        for product, count in products.items():
            recipe = CAKE if product == "cake" else PANCAKE
            for good, per in recipe.items():
                goods[good] = (goods.get(good) or 0) + per * count
    return goods


_MONEY = re.compile(r"\$|dollar|buck|\bbux\b|\busd\b|cent|¢")


def _is_a_quantity(norm: str, price: Price) -> bool:
    """A bare number after a cue ("for 2") read as a price, though the next word names a
    good, even misspelled ("for 2 egs"), a product or a unit: a quantity, never a price.

    >>> _is_a_quantity("how much for 2 egs", find_prices("how much for 2 egs")[0])
    True
    >>> _is_a_quantity("2 eggs for 3", find_prices("2 eggs for 3")[0])
    False
    """
    if _MONEY.search(norm[price.start : price.end]):
        return False
    following = _TOKEN.findall(norm[price.end : price.end + 40])
    if not following:
        return False
    word = following[0]
    return _near_good(word) is not None or word in PRODUCT_WORDS or word in UNIT_WORDS


def _near_good(word: str) -> str | None:
    """:func:`good_of`, also for a three-letter word one edit from a good's name with the
    same first letter ("egs"): read so only right after a count ("2 egs").

    >>> _near_good("egs"), _near_good("leg"), _near_good("suger")
    ('egg', None, 'sugar')
    """
    good = good_of(word)
    if good is not None or len(word) != 3 or not word.isalpha() or word in _NOT_GOODS:
        return good
    for name, g in GOOD_WORDS.items():
        if name[0] == word[0] and _one_edit(word, name):
            return g
    return None


def _cut_prices(text: str, prices: list[Price]) -> str:
    out, last = [], 0
    for p in prices:
        out.append(text[last : p.start])
        out.append(" <price> ")
        last = p.end
    out.append(text[last:])
    return "".join(out)


def parse_utterance(text: str, names: Sequence[str] = DEFAULT_NAMES) -> Act:
    """Read one utterance (buyer or seller) as an :class:`Act`.

    ``names`` are the agent names that can be addressed ("Celia, ...", "hey watson", "@Celia").

    >>> a = parse_utterance("Watson, I'll buy half a dozen eggs for 4 bucks")
    >>> a.kind.value, a.addressee, dict(a.goods), a.price
    ('offer', 'Watson', {'egg': 6}, 4.0)
    >>> parse_utterance("Too expensive. How about 3.50 USD?").kind.value
    'counter'
    """
    if not isinstance(text, str):
        raise UsageError(f"utterance must be a string, got {type(text).__name__}")
    text_plain = _TAGS.sub(" ", text)  # SSML such as <prosody rate="slow">
    norm = normalise_numbers(text_plain.replace("\u2019", "'").replace("\u2018", "'")).lower()
    addressee = _find_addressee(text_plain, names)
    norm = _name_pattern(tuple(names)).sub(" ", norm)
    prices = [p for p in find_prices(norm) if not _is_a_quantity(norm, p)]
    tokens = _TOKEN.findall(_cut_prices(norm, prices))
    unknown: list[str] = []
    goods = _scan_goods(tokens, unknown)
    price: float | None = None
    if prices:
        last = prices[-1]
        price = last.value
        if last.per_unit:
            known = [q for q in goods.values() if q is not None]
            if known:
                price = round(last.value * sum(known), 2)
    asks_price = bool(_ASKS_PRICE.search(norm)) and price is None
    kind = _classify(norm, goods, price, asks_price)
    return Act(
        kind=kind,
        text=text,
        goods=goods,
        price=price,
        addressee=addressee,
        prices=tuple(p.value for p in prices),
        asks_price=asks_price,
        unknown=tuple(unknown),
    )


def _classify(
    norm: str, goods: Mapping[str, int | None], price: float | None, asks_price: bool
) -> ActKind:
    negated_accept = bool(_NEG_ACCEPT.search(norm))
    rejects = negated_accept or bool(_REJECT.search(norm))
    accepts = not negated_accept and bool(_ACCEPT.search(norm))
    explicit_accept = accepts and _EXPLICIT_ACCEPT.search(norm) is not None
    if accepts and not rejects and (explicit_accept or (not goods and price is None)):
        return ActKind.ACCEPT
    if goods and price is not None:
        return ActKind.OFFER
    if price is not None:
        return ActKind.COUNTER
    if rejects:
        return ActKind.REJECT
    if goods or asks_price:
        return ActKind.REQUEST
    if re.search(r"\b(?:buy|purchase|sell|need|want|order|get)\b", norm):
        return ActKind.REQUEST
    return ActKind.OTHER
