"""Word error rate: exact values on hand-made examples, digits and words alike."""

from __future__ import annotations

import pytest

from accord.leagues.humaine.speech.wer import number_words, word_error_rate, words


@pytest.mark.parametrize(
    ("reference", "hypothesis", "expected"),
    [
        ("celia i want two eggs", "celia i want two eggs", 0.0),
        ("celia i want two eggs", "celia i want to eggs", 1 / 5),  # one substitution
        ("celia i want two eggs", "i want two eggs", 1 / 5),  # one deletion
        ("celia i want two eggs", "celia i want two eggs please", 1 / 5),  # one insertion
        ("watson i accept", "", 1.0),  # three deletions
        ("i accept", "well the author is here", 5 / 2),  # 2 substitutions, 3 insertions
        ("Two eggs for $5.", "2 eggs for five dollars", 0.0),
        ("twenty-five cups", "25 cups", 0.0),
        ("I'll pay $3.50", "i'll pay three point five zero dollars", 0.0),
        ("", "", 0.0),
        ("", "noise", 1.0),
    ],
)
def test_word_error_rate_exact_values(reference: str, hypothesis: str, expected: float) -> None:
    assert word_error_rate(reference, hypothesis) == pytest.approx(expected, abs=1e-12)


def test_normalisation_lowercases_spells_digits_and_strips_punctuation() -> None:
    assert words("Celia, I'd like 12 eggs -- for $105!") == (
        ["celia", "i'd", "like", "twelve", "eggs", "for", "one", "hundred", "five", "dollars"]
    )


@pytest.mark.parametrize(
    ("n", "spoken"),
    [(0, "zero"), (7, "seven"), (19, "nineteen"), (20, "twenty"), (99, "ninety nine")]
    + [(100, "one hundred"), (310, "three hundred ten"), (1000, "one thousand")]
    + [(1234567, "one two three four five six seven")],
)
def test_number_words(n: int, spoken: str) -> None:
    assert number_words(n) == spoken
