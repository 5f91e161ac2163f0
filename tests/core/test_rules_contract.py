"""The Rules contract's data types: events, typed action descriptions, the error."""

from __future__ import annotations

import math

import pytest

from accord.core.errors import ProtocolViolation
from accord.core.protocols import (
    ActionField,
    ActionSpec,
    Event,
    FieldKind,
    IllegalAction,
    Legal,
    Visibility,
)

OFFER = ActionSpec(
    "offer",
    (
        ActionField("Food", FieldKind.CHOICE, options=("Pizza", "Sushi")),
        ActionField("qty", FieldKind.INTEGER, low=1, high=3),
    ),
    label="Make an offer",
)
LEGAL = Legal(1, (OFFER, ActionSpec("accept"), ActionSpec("end")))


def test_event_visibility_by_party_and_spectator() -> None:
    public = Event("offer", 0, {"outcome": [1]})
    mine = Event("note", 0, {}, Visibility.PARTY)
    hidden = Event("seed", None, {"seed": 3}, Visibility.OPERATOR)
    assert [public.visible_to(p) for p in (0, 1, None)] == [True, True, True]
    assert [mine.visible_to(p) for p in (0, 1, None)] == [True, False, False]
    assert [hidden.visible_to(p) for p in (0, 1, None)] == [False, False, False]


def test_event_json_round_trip_is_exact() -> None:
    e = Event("offer", 1, {"outcome": ["a", 2]}, Visibility.PARTY)
    assert e.to_json() == {
        "kind": "offer",
        "party": 1,
        "data": {"outcome": ["a", 2]},
        "visibility": "party",
    }
    assert Event.from_json(e.to_json()) == e


def test_legal_accepts_a_well_formed_action() -> None:
    assert LEGAL.problem({"kind": "offer", "args": {"Food": "Sushi", "qty": 3}}) is None
    assert LEGAL.problem({"kind": "accept", "args": {}}) is None
    assert LEGAL.kinds == ("offer", "accept", "end")
    assert LEGAL.spec("end") == ActionSpec("end")
    assert LEGAL.spec("reject") is None


@pytest.mark.parametrize(
    ("data", "problem"),
    [
        ("accept", 'an action is {"kind": ..., "args": {...}}; got \'accept\''),
        (
            {"kind": "accept"},
            "an action is {\"kind\": ..., \"args\": {...}}; got {'kind': 'accept'}",
        ),
        (
            {"kind": "reject", "args": {}},
            "'reject' is not allowed now; allowed: offer, accept, end",
        ),
        ({"kind": 3, "args": {}}, "3 is not allowed now; allowed: offer, accept, end"),
        ({"kind": "offer", "args": []}, "args must be an object; got []"),
        (
            {"kind": "offer", "args": {"Food": "Pizza"}},
            "offer takes arguments ['Food', 'qty']; got ['Food']",
        ),
        (
            {"kind": "offer", "args": {"Food": "Tacos", "qty": 1}},
            "Food must be one of ['Pizza', 'Sushi']; got 'Tacos'",
        ),
        ({"kind": "offer", "args": {"Food": "Pizza", "qty": 4}}, "qty must be in [1, 3]; got 4"),
        (
            {"kind": "offer", "args": {"Food": "Pizza", "qty": True}},
            "qty must be a finite integer; got True",
        ),
        (
            {"kind": "offer", "args": {"Food": "Pizza", "qty": 1.0}},
            "qty must be a finite integer; got 1.0",
        ),
    ],
)
def test_legal_names_what_is_wrong_with_an_action(data: object, problem: str) -> None:
    assert LEGAL.problem(data) == problem
    with pytest.raises(IllegalAction, match="party 1 may not play") as info:
        LEGAL.require(1, data)
    assert info.value.reason == problem
    assert info.value.party == 1
    assert isinstance(info.value, ProtocolViolation)


def test_nobody_to_act_allows_nothing() -> None:
    assert Legal(0, ()).problem({"kind": "offer", "args": {}}) == (
        "'offer' is not allowed now; allowed: nothing (not this party's turn)"
    )


def test_choice_keeps_bool_and_int_apart() -> None:
    f = ActionField("flag", FieldKind.CHOICE, options=(1, 2))
    assert f.problem(1) is None
    assert f.problem(True) == "flag must be one of [1, 2]; got True"


def test_number_and_text_fields() -> None:
    price = ActionField("price", FieldKind.NUMBER, low=0.0, high=1.0)
    assert price.problem(0.5) is None
    assert price.problem(1) is None
    assert price.problem(math.nan) == "price must be a finite number; got nan"
    assert price.problem("0.5") == "price must be a finite number; got '0.5'"
    note = ActionField("note", FieldKind.TEXT, max_length=3)
    assert note.problem("abc") is None
    assert note.problem("abcd") == "note must be at most 3 characters; got 4"
    assert note.problem(3) == "note must be text; got 3"


def test_schema_is_json_schema_of_the_wire_form() -> None:
    schema = LEGAL.schema()
    assert [s["properties"]["kind"] for s in schema["oneOf"]] == [
        {"const": "offer"},
        {"const": "accept"},
        {"const": "end"},
    ]
    args = schema["oneOf"][0]["properties"]["args"]
    assert args == {
        "type": "object",
        "properties": {
            "Food": {"title": "Food", "enum": ["Pizza", "Sushi"]},
            "qty": {"title": "qty", "type": "integer", "minimum": 1, "maximum": 3},
        },
        "required": ["Food", "qty"],
        "additionalProperties": False,
    }
    assert LEGAL.to_json()["actions"][0] == {
        "kind": "offer",
        "label": "Make an offer",
        "fields": [
            {
                "name": "Food",
                "kind": "choice",
                "options": ["Pizza", "Sushi"],
                "low": None,
                "high": None,
                "max_length": None,
                "label": "Food",
            },
            {
                "name": "qty",
                "kind": "integer",
                "options": [],
                "low": 1,
                "high": 3,
                "max_length": None,
                "label": "qty",
            },
        ],
    }
