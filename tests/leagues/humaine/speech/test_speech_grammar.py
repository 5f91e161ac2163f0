"""The domain grammar is built from Accord's goods list and speaks the spec's examples."""

from __future__ import annotations

import pytest

from accord.core.errors import InvalidValue
from accord.leagues.humaine.goods import GOODS, UNITS
from accord.leagues.humaine.speech import domain_grammar, grammar_words


def test_every_good_and_unit_of_the_goods_list_is_in_the_grammar() -> None:
    vocabulary = grammar_words(domain_grammar())
    assert set(GOODS) <= vocabulary
    assert {"eggs", "blueberries"} <= vocabulary
    assert {u for u in UNITS.values() if u != "each"} <= vocabulary
    assert {u + "s" for u in UNITS.values() if u != "each"} <= vocabulary
    assert {"celia", "watson", "dollars", "cents", "accept", "reject", "deal"} <= vocabulary


def test_the_grammar_follows_its_arguments() -> None:
    grammar = domain_grammar(sellers=["Ann", "Bob"], goods=["egg"], units={"egg": "each"})
    assert "<seller> = ann | bob;" in grammar and "<noun> = eggs;" in grammar
    assert "<one_noun> = egg;" in grammar
    assert "flour" not in grammar_words(grammar)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"sellers": ["R2-D2"]}, "seller name 'R2-D2' cannot be spoken in the grammar"),
        ({"sellers": []}, "the grammar needs at least one seller name"),
    ],
)
def test_unspeakable_words_are_a_clear_error(kwargs: dict[str, list[str]], message: str) -> None:
    with pytest.raises(InvalidValue, match=message):
        domain_grammar(**kwargs)  # type: ignore[arg-type]
