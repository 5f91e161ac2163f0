"""Word error rate: how far a transcript is from what was said.

``WER = (substitutions + deletions + insertions) / words in the reference``, the
Levenshtein distance over words (each edit costs 1). Word accuracy is ``1 - WER``.

Both texts are normalised first, the same way:

1. lowercase; ``$N`` becomes ``N dollars``;
2. numbers written in digits become words: ``25`` -> ``twenty five``, ``100`` -> ``one
   hundred``, ``3.5`` -> ``three point five`` (so "2 eggs" and "two eggs" are equal);
3. hyphens split words (``twenty-five`` -> ``twenty five``); every other punctuation mark
   is removed except an apostrophe inside a word (``i'll`` stays one word).

An empty reference gives 0.0 against an empty hypothesis and 1.0 against anything else.

>>> words("Celia, I'll pay $25 for 2 eggs!")
['celia', "i'll", 'pay', 'twenty', 'five', 'dollars', 'for', 'two', 'eggs']
>>> word_error_rate("two eggs for five dollars", "2 eggs for $5")
0.0
>>> word_error_rate("I want two eggs", "I want to eggs please")
0.5
"""

from __future__ import annotations

import re

__all__ = ["number_words", "word_error_rate", "words"]

_ONES = [
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
]
_TENS = ["_", "_", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]
_DOLLARS = re.compile(r"\$\s*(\d+(?:\.\d+)?)")
_NUMBER = re.compile(r"\d+(?:\.\d+)?")
_NOT_WORD = re.compile(r"[^a-z0-9' ]+")


def number_words(n: int) -> str:
    """English words for a whole number below a million (digit by digit above).

    >>> number_words(0), number_words(17), number_words(40), number_words(305), number_words(2024)
    ('zero', 'seventeen', 'forty', 'three hundred five', 'two thousand twenty four')
    """
    if n < 20:
        return _ONES[n]
    if n < 100:
        return _TENS[n // 10] + ("" if n % 10 == 0 else " " + _ONES[n % 10])
    if n < 1000:
        rest = "" if n % 100 == 0 else " " + number_words(n % 100)
        return _ONES[n // 100] + " hundred" + rest
    if n < 1_000_000:
        rest = "" if n % 1000 == 0 else " " + number_words(n % 1000)
        return number_words(n // 1000) + " thousand" + rest
    return " ".join(_ONES[int(d)] for d in str(n))


def _spell(match: re.Match[str]) -> str:
    whole, _, frac = match.group(0).partition(".")
    spoken = number_words(int(whole))
    if frac:
        spoken += " point " + " ".join(_ONES[int(d)] for d in frac)
    return f" {spoken} "


def words(text: str) -> list[str]:
    """The normalised words of ``text`` (see the module doc)."""
    text = _DOLLARS.sub(r"\1 dollars", text.lower())
    text = _NUMBER.sub(_spell, text).replace("-", " ")
    return [w.strip("'") for w in _NOT_WORD.sub(" ", text).split() if w.strip("'")]


def word_error_rate(reference: str, hypothesis: str) -> float:
    """Word-level Levenshtein distance divided by the reference's word count.

    >>> word_error_rate("celia i accept", "celia accept")  # one deletion
    0.3333333333333333
    >>> word_error_rate("", ""), word_error_rate("", "hello")
    (0.0, 1.0)
    """
    ref, hyp = words(reference), words(hypothesis)
    if not ref:
        return 0.0 if not hyp else 1.0
    previous = list(range(len(hyp) + 1))
    for i, r in enumerate(ref, start=1):
        current = [i]
        for j, h in enumerate(hyp, start=1):
            current.append(
                min(
                    previous[j] + 1,  # deletion
                    current[j - 1] + 1,  # insertion
                    previous[j - 1] + (r != h),  # substitution or match
                )
            )
        previous = current
    return previous[-1] / len(ref)
