"""The language layer on the spec's example sentences and many more (table driven)."""

from __future__ import annotations

import pytest

from accord.leagues.humaine.agents.goods import GOODS, check_bundle, unit_phrase
from accord.leagues.humaine.agents.language import ActKind, parse_utterance
from accord.leagues.humaine.agents.phrases import (
    accept_text,
    buyer_accept_text,
    buyer_counter_text,
    buyer_offer_text,
    buyer_reject_text,
    buyer_request_text,
    sell_offer_text,
)
from accord.leagues.humaine.agents.prices import find_prices
from accord.leagues.humaine.agents.wordnums import normalise_numbers

O, R, C, A, X, N = (  # noqa: E741
    ActKind.OFFER,
    ActKind.REQUEST,
    ActKind.COUNTER,
    ActKind.ACCEPT,
    ActKind.REJECT,
    ActKind.OTHER,
)

# (text, kind, addressee, goods, price)
TABLE: list[tuple[str, ActKind, str | None, dict[str, int | None], float | None]] = [
    # --- section 3 of the spec
    (
        "I'd like to buy 3 eggs, 2 cups of sugar, 4 cups of milk and 5 ounces of chocolate.",
        R,
        None,
        {"egg": 3, "sugar": 2, "milk": 4, "chocolate": 5},
        None,
    ),
    ("Can anyone give me a good price on blueberries?", R, None, {"blueberry": None}, None),
    (
        "Celia, I'll buy 2 cups of flour, 2 cups of sugar, and 2 cups of milk from you for $3.",
        O,
        "Celia",
        {"flour": 2, "sugar": 2, "milk": 2},
        3.0,
    ),
    (
        "Watson, can you sell me some milk and sugar?",
        R,
        "Watson",
        {"milk": None, "sugar": None},
        None,
    ),
    # --- Appendix D
    ("I'd like to purchase 2 eggs and 3 cups of flour.", R, None, {"egg": 2, "flour": 3}, None),
    (
        "I'll buy 4 eggs, 3 cups of flour, 2 cups of milk and 8 ounces of chocolate from you for $21.",
        O,
        None,
        {"egg": 4, "flour": 3, "milk": 2, "chocolate": 8},
        21.0,
    ),
    ("Watson, I'll buy 3 eggs for $2.", O, "Watson", {"egg": 3}, 2.0),
    ("OK, I accept your offer.", A, None, {}, None),
    # --- Appendix B dialogues (agent lines included)
    ("Celia, I would like to buy 2 eggs.", R, "Celia", {"egg": 2}, None),
    ("I can give you 2 eggs for 5 dollars.", O, None, {"egg": 2}, 5.0),
    ("I can give you 2 eggs for 4.5 dollars.", O, None, {"egg": 2}, 4.5),
    ("Watson, I also would like to buy milk.", R, "Watson", {"milk": None}, None),
    ("I can give you 2 eggs for 3 dollars.", O, None, {"egg": 2}, 3.0),
    (
        "I can give you a cup of milk for 2 dollars. The total for 2 eggs and a cup of milk "
        "is 7 dollars.",
        O,
        None,
        {"milk": 1, "egg": 2},
        7.0,
    ),
    ("I can give you 2 eggs for 5.50 dollars.", O, None, {"egg": 2}, 5.5),
    ("I would like to buy 2 eggs.", R, None, {"egg": 2}, None),
    ("I can give you 2 eggs for 4.50 dollars.", O, None, {"egg": 2}, 4.5),
    # --- Appendix C and the captured wire examples
    ("Watson I'd like to buy 5 eggs for $2", O, "Watson", {"egg": 5}, 2.0),
    ("How about if I sell you 1 blueberry for 0.69 USD.", O, None, {"blueberry": 1}, 0.69),
    ("How about if I sell you 5 egg for 3.73 USD.", O, None, {"egg": 5}, 3.73),
    (
        "Watson, I want to buy 2 eggs, 2 cups of flour, 1 cup of milk and 1 cup of sugar for $4",
        O,
        "Watson",
        {"egg": 2, "flour": 2, "milk": 1, "sugar": 1},
        4.0,
    ),
    (
        "I confirm that I'm selling you  2 egg 2 flour 1 milk 1 sugar for 8.21 USD.",
        A,
        None,
        {"egg": 2, "flour": 2, "milk": 1, "sugar": 1},
        8.21,
    ),
    ("Watson, I want 2 eggs", R, "Watson", {"egg": 2}, None),
    # --- quantity words and units
    ("hey watson, a dozen eggs please", R, "Watson", {"egg": 12}, None),
    ("@Celia half a dozen eggs for 3 bucks", O, "Celia", {"egg": 6}, 3.0),
    ("Two dozen eggs and three cups of flour", R, None, {"egg": 24, "flour": 3}, None),
    ("I need twenty-five eggs", R, None, {"egg": 25}, None),
    ("Could I get an egg and a cup of sugar?", R, None, {"egg": 1, "sugar": 1}, None),
    ("a couple of eggs and a pair of cups of milk", R, None, {"egg": 2, "milk": 2}, None),
    ("Four ounces of chocolate, please", R, None, {"chocolate": 4}, None),
    ("I want 5 oz of dark chocolate", R, None, {"chocolate": 5}, None),
    ("Two teaspoons of vanilla extract", R, None, {"vanilla": 2}, None),
    ("3 tsp vanilla", R, None, {"vanilla": 3}, None),
    ("I'd like 2 packets of blueberries", R, None, {"blueberry": 2}, None),
    ("one packet of blue berries", R, None, {"blueberry": 1}, None),
    ("three packs of blueberries and six eggs", R, None, {"blueberry": 3, "egg": 6}, None),
    ("eggs x3 and milk: 2", R, None, {"egg": 3, "milk": 2}, None),
    ("I want 2 more eggs", R, None, {"egg": 2}, None),
    ("Give me 10 large eggs", R, None, {"egg": 10}, None),
    ("2 cups of all-purpose flour", R, None, {"flour": 2}, None),
    ("one hundred eggs for twenty dollars", O, None, {"egg": 100}, 20.0),
    (
        "I need ingredients for 2 cakes",
        R,
        None,
        {"egg": 4, "flour": 4, "milk": 2, "sugar": 2},
        None,
    ),
    (
        "What would it cost to make 1 batch of pancakes?",
        R,
        None,
        {"egg": 1, "flour": 2, "milk": 2},
        None,
    ),
    ("some choc and cocoa", R, None, {"chocolate": None}, None),
    # --- prices
    ("Watson, 3 eggs for 2 dollars and 50 cents", O, "Watson", {"egg": 3}, 2.5),
    ("2 eggs for 75 cents", O, None, {"egg": 2}, 0.75),
    ("I'll give you 3.50 USD for 2 cups of milk", O, None, {"milk": 2}, 3.5),
    ("4 eggs for USD 3", O, None, {"egg": 4}, 3.0),
    ("I'll buy 3 eggs for 2", O, None, {"egg": 3}, 2.0),
    ("How about 3 eggs for four bucks?", O, None, {"egg": 3}, 4.0),
    ("I'll pay 5 for 2 cups of sugar", O, None, {"sugar": 2}, 5.0),
    ("2 dollars each for 3 eggs", O, None, {"egg": 3}, 6.0),
    ("3 cups of milk at $1 per cup", O, None, {"milk": 3}, 3.0),
    ("Can I have 6 eggs for three and a half dollars?", O, None, {"egg": 6}, 3.5),
    ("1 egg for 1$", O, None, {"egg": 1}, 1.0),
    # --- counters
    ("Too expensive, how about $3?", C, None, {}, 3.0),
    ("Celia offered me $3, Watson can you beat that?", C, "Watson", {}, 3.0),
    ("Would you do it for 4 dollars, Celia?", C, "Celia", {}, 4.0),
    ("I can only pay 2.75", C, None, {}, 2.75),
    ("Make it 5 bucks and we have a deal", C, None, {}, 5.0),
    ("No, I'll give you 3 dollars", C, None, {}, 3.0),
    # --- acceptances
    ("Deal!", A, None, {}, None),
    ("It's a deal, Watson", A, "Watson", {}, None),
    ("I'll take it", A, None, {}, None),
    ("Sounds good", A, None, {}, None),
    ("ok", A, None, {}, None),
    ("Yes please, Celia.", A, "Celia", {}, None),
    ("Watson, I accept your offer of 2 eggs for $3", A, "Watson", {"egg": 2}, 3.0),
    ("Agreed.", A, None, {}, None),
    # --- rejections
    ("no, too expensive", X, None, {}, None),
    ("No thanks", X, None, {}, None),
    ("I don't accept that", X, None, {}, None),
    ("that's a rip-off celia", X, "Celia", {}, None),
    ("Not interested, Watson.", X, "Watson", {}, None),
    ("I reject your offer", X, None, {}, None),
    ("That is way too much!", X, None, {}, None),
    # --- requests without goods, other talk, addressee forms
    ("What's your best price, Watson?", R, "Watson", {}, None),
    ("How much for the eggs?", R, None, {"egg": None}, None),
    ("Can you give me a good deal on eggs?", R, None, {"egg": None}, None),
    ("Hello everyone!", N, None, {}, None),
    ("Hi Celia", N, "Celia", {}, None),
    ("thanks watson", N, "Watson", {}, None),
    ("Watson offered less. Celia?", N, "Celia", {}, None),
    ("I want 3 eggs, celia", R, "Celia", {"egg": 3}, None),
    ("WATSON: 2 EGGS FOR $1", O, "Watson", {"egg": 2}, 1.0),
    (
        '<speak>I can sell you <prosody rate="slow">3 eggs</prosody> for $2.</speak>',
        O,
        None,
        {"egg": 3},
        2.0,
    ),
    (
        "Celia\u2019s eggs are nice. Watson, I\u2019ll buy 2 eggs for $1.50",
        O,
        "Watson",
        {"egg": 2},
        1.5,
    ),
]


@pytest.mark.parametrize(("text", "kind", "addressee", "goods", "price"), TABLE)
def test_table(
    text: str,
    kind: ActKind,
    addressee: str | None,
    goods: dict[str, int | None],
    price: float | None,
) -> None:
    act = parse_utterance(text)
    assert (act.kind, act.addressee, dict(act.goods), act.price) == (kind, addressee, goods, price)


def test_table_is_large_and_covers_every_good() -> None:
    assert len(TABLE) >= 60
    mentioned = {g for row in TABLE for g in row[3]}
    assert mentioned == set(GOODS)


def test_goods_keep_mention_order() -> None:
    act = parse_utterance("milk, then 2 eggs, then flour")
    assert list(act.goods) == ["milk", "egg", "flour"]


def test_custom_names() -> None:
    act = parse_utterance("Alice, 2 eggs for $1", names=("Alice", "Bob"))
    assert act.addressee == "Alice"
    assert parse_utterance("Celia, 2 eggs", names=("Alice", "Bob")).addressee is None


def test_non_string_is_refused() -> None:
    with pytest.raises(TypeError, match="utterance must be a string, got int"):
        parse_utterance(3)  # type: ignore[arg-type]


def test_quantities_property_drops_unspecified() -> None:
    assert parse_utterance("3 eggs and some milk").quantities == {"egg": 3}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("half a dozen", "6"),
        ("a dozen", "12"),
        ("3 dozen", "36"),
        ("twenty-five", "25"),
        ("one hundred and two", "102"),
        ("ninety nine", "99"),
        ("someone", "someone"),
    ],
)
def test_normalise_numbers(text: str, expected: str) -> None:
    assert normalise_numbers(text) == expected


@pytest.mark.parametrize(
    ("text", "values"),
    [
        ("$3", [3.0]),
        ("3 dollars", [3.0]),
        ("3.50 USD", [3.5]),
        ("for 4 bucks", [4.0]),
        ("$3 and 50 cents", [3.5]),
        ("3 dollars and 2 eggs", [3.0]),
        ("for 3 eggs", []),
        ("for 2 of your eggs", []),
        ("$5 or $4.25", [5.0, 4.25]),
    ],
)
def test_find_prices(text: str, values: list[float]) -> None:
    assert [p.value for p in find_prices(text)] == values


def test_rendered_sentences_parse_back() -> None:
    bundle = {
        "egg": 2,
        "flour": 2,
        "milk": 1,
        "sugar": 1,
        "chocolate": 3,
        "vanilla": 2,
        "blueberry": 1,
    }
    cases = [
        (sell_offer_text(bundle, 3.5), O, None, 3.5),
        (accept_text(bundle, 8.21), A, None, 8.21),
        (buyer_request_text(bundle, "Celia"), R, "Celia", None),
        (buyer_offer_text(bundle, 4, "Watson"), O, "Watson", 4.0),
    ]
    for text, kind, addressee, price in cases:
        act = parse_utterance(text)
        assert (act.kind, act.addressee, dict(act.goods), act.price) == (
            kind,
            addressee,
            bundle,
            price,
        ), text
    assert parse_utterance(buyer_counter_text(3, "Celia", "Watson")).kind == C
    assert parse_utterance(buyer_counter_text(3, "Celia", "Watson")).addressee == "Celia"
    assert parse_utterance(buyer_accept_text("Watson")).kind == A
    assert parse_utterance(buyer_reject_text()).kind == X


def test_unit_phrase_and_bundle_checks() -> None:
    assert unit_phrase("vanilla", 1) == "1 teaspoon of vanilla"
    assert check_bundle({"egg": 1, "milk": 0}) == {"egg": 1}
    with pytest.raises(ValueError, match="unknown good 'butter'; expected one of egg"):
        check_bundle({"butter": 1})
    with pytest.raises(ValueError, match="quantity of egg must be a non-negative integer, got -1"):
        check_bundle({"egg": -1})


def test_package_exports_resolve() -> None:
    import accord.leagues.humaine.agents as pkg

    assert sorted(pkg.__all__) == sorted(set(pkg.__all__))
    for name in pkg.__all__:
        assert getattr(pkg, name) is not None, name
