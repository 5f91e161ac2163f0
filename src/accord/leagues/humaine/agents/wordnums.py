"""Turn number words into digits so the rest of the language layer only sees digits.

>>> normalise_numbers("half a dozen eggs and twenty-five cups of milk")
'6 eggs and 25 cups of milk'
>>> normalise_numbers("three and a half dollars for a couple of eggs")
'3.5 dollars for 2 eggs'
"""

from __future__ import annotations

import re

from accord.core.errors import ParseError

_SMALL = {
    "zero": 0,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "thirteen": 13,
    "fourteen": 14,
    "fifteen": 15,
    "sixteen": 16,
    "seventeen": 17,
    "eighteen": 18,
    "nineteen": 19,
}
_TENS = {
    "twenty": 20,
    "thirty": 30,
    "forty": 40,
    "fifty": 50,
    "sixty": 60,
    "seventy": 70,
    "eighty": 80,
    "ninety": 90,
}
_WORD = "|".join(sorted([*_SMALL, *_TENS], key=len, reverse=True))
_SEP = r"(?:\s+|-)"
_PHRASE = re.compile(
    rf"\b(?:a|one|{_WORD})\s+hundred(?:(?:\s+and)?\s+(?:{_WORD})(?:{_SEP}(?:{_WORD}))?)?\b"
    rf"|\b(?:{_WORD})(?:{_SEP}(?:{_WORD}))*\b",
    re.IGNORECASE,
)


def words_to_int(phrase: str) -> int:
    """Value of a number phrase such as ``"twenty five"`` or ``"one hundred and two"``.

    >>> words_to_int("twenty-five"), words_to_int("a hundred and twelve")
    (25, 112)
    """
    total = 0
    current = 0
    for raw in re.split(r"[\s-]+", phrase.lower().strip()):
        if raw in ("and", ""):
            continue
        if raw == "a":
            current = max(current, 1)
        elif raw == "hundred":
            total += max(current, 1) * 100
            current = 0
        elif raw in _SMALL:
            current += _SMALL[raw]
        elif raw in _TENS:
            current += _TENS[raw]
        else:
            raise ParseError(f"not a number word: {raw!r} in {phrase!r}")
    return total + current


def _phrase_value(match: re.Match[str]) -> str:
    text = match.group(0)
    words = [w for w in re.split(r"[\s-]+", text.lower()) if w and w != "and"]
    # "two three" is two numbers, not five: only tens followed by a unit combine
    values: list[int] = []
    i = 0
    while i < len(words):
        if i + 1 < len(words) and words[i + 1] == "hundred":
            j = i + 2
            value = words_to_int(" ".join(words[i : i + 2]))
            if j < len(words) and words[j] in _TENS:
                value += _TENS[words[j]]
                j += 1
                if j < len(words) and words[j] in _SMALL and _SMALL[words[j]] < 10:
                    value += _SMALL[words[j]]
                    j += 1
            elif j < len(words) and words[j] in _SMALL:
                value += _SMALL[words[j]]
                j += 1
            values.append(value)
            i = j
        elif words[i] in _TENS and i + 1 < len(words) and 0 < _SMALL.get(words[i + 1], 10) < 10:
            values.append(_TENS[words[i]] + _SMALL[words[i + 1]])
            i += 2
        elif words[i] == "a":
            values.append(1)
            i += 1
        else:
            values.append(words_to_int(words[i]))
            i += 1
    return " ".join(str(v) for v in values)


_REWRITES: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(p, re.IGNORECASE), r)
    for p, r in (
        (r"\bhalf\s+(?:a\s+)?dozen\b", "6"),
        (r"\b(?:a|one|1)\s+dozen\b", "12"),
        (r"\b(?:a\s+)?couple\s+(?:of\s+)?", "2 "),
        (r"\b(?:a\s+)?pair\s+of\s+", "2 "),
        (r"\bblue\s+berr(y|ies)\b", r"blueberr\1"),
        (r"\ba\s+half\b", "0.5"),
    )
)
_DOZENS = re.compile(r"\b(\d+)\s+dozens?\b", re.IGNORECASE)
_BARE_DOZEN = re.compile(r"\bdozens?\b", re.IGNORECASE)
_AND_HALF = re.compile(r"\b(\d+)\s+and\s+0\.5\b")
_HALF_PAST_DOLLAR = re.compile(r"\b(\d+)\s+(dollars?|bucks?)\s+and\s+0\.5\b", re.IGNORECASE)


def normalise_numbers(text: str) -> str:
    """Replace number words, dozens, couples and halves by digits.

    >>> normalise_numbers("Two dozen eggs, a pair of cups of milk, one hundred and two")
    '24 eggs, 2 cups of milk, 102'
    """
    out = _PHRASE.sub(_phrase_value, text)
    for pattern, repl in _REWRITES:
        out = pattern.sub(repl, out)
    out = _DOZENS.sub(lambda m: str(int(m.group(1)) * 12), out)
    out = _BARE_DOZEN.sub("12", out)
    out = _HALF_PAST_DOLLAR.sub(lambda m: f"{m.group(1)}.5 {m.group(2)}", out)
    out = _AND_HALF.sub(lambda m: f"{m.group(1)}.5", out)
    return out
