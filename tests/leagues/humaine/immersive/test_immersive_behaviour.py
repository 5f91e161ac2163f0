"""The behaviour field (gestures), SSML for display and the addressee rules."""

from __future__ import annotations

import pytest

from accord.leagues.humaine.behaviour import (
    GESTURES,
    choose_addressee,
    display_text,
    gestures_of,
)
from accord.leagues.humaine.messages import RelayMessage, explain

NAMES = ["Celia", "Watson"]


@pytest.mark.parametrize(
    ("behavior", "known", "unknown"),
    [
        (None, [], []),  # agents written for the original send none
        ("smile", ["smile"], []),
        ("Wave, nod", ["wave", "nod"], []),
        (["shake head", "shake_head", "SHRUG"], ["shake_head", "shrug"], []),
        ({"gesture": "think"}, ["thinking"], []),
        ({"gesture": ["thinking", "shrug"]}, ["thinking", "shrug"], []),
        (["dance", 3, "", "nod"], ["nod"], ["dance"]),
        (["smile", "wave", "nod", "shrug", "thinking"], ["smile", "wave", "nod", "shrug"], []),
        (42, [], []),
    ],
)
def test_gestures_of(behavior: object, known: list[str], unknown: list[str]) -> None:
    assert gestures_of({"behavior": behavior}) == (known, unknown)


def test_the_british_spelling_is_read_too_and_every_gesture_is_known() -> None:
    assert gestures_of({"behaviour": "nod"}) == (["nod"], [])
    for g in GESTURES:
        assert gestures_of({"behavior": g}) == ([g], [])


def test_display_text_drops_ssml_tags_and_entities() -> None:
    ssml = (
        '<speak><prosody rate="slow" pitch="+10%">Two eggs</prosody>, '
        '<break time="1s"/>for <emphasis level="strong">$3</emphasis> &amp; a smile.</speak>'
    )
    assert display_text(ssml) == "Two eggs, for $3 & a smile."
    assert display_text("no tags at all") == "no tags at all"


@pytest.mark.parametrize(
    ("text", "focus", "by", "expected"),
    [
        ("Celia, two eggs please", "Watson", "click", ("Celia", "name in utterance")),
        ("OK watson I accept, Celia", "", "click", ("Watson", "name in utterance")),
        ("two eggs please", "Watson", "click", ("Watson", "last avatar clicked")),
        ("two eggs please", "Celia", "head pose", ("Celia", "head pose (camera)")),
        ("two eggs please", "", "click", ("", "nobody named or chosen: both sellers hear it")),
        (
            "two eggs please",
            "Mallory",
            "click",
            ("", "nobody named or chosen: both sellers hear it"),
        ),
        (
            "Celiac friendly eggs?",
            "",
            "click",
            ("", "nobody named or chosen: both sellers hear it"),
        ),
    ],
)
def test_choose_addressee(text: str, focus: str, by: str, expected: tuple[str, str]) -> None:
    assert choose_addressee(text, NAMES, focus=focus, focus_by=by) == expected


def test_the_wire_message_carries_behaviour_and_stays_compatible() -> None:
    base = {"speaker": "Watson", "text": "<speak>hi</speak>", "role": "seller"}
    assert RelayMessage.model_validate(base).behavior is None
    m = RelayMessage.model_validate(base | {"behavior": ["wave", "smile"]})
    assert m.behavior == ["wave", "smile"]
    with pytest.raises(Exception) as e:
        RelayMessage.model_validate(base | {"behavior": ["wave"] * 100})
    assert "behavior may take 400 characters" in explain(e.value)


class Ctx:
    """An agent context that keeps what the agent relays."""

    def __init__(self) -> None:
        self.sent: list[dict[str, object]] = []

    def now(self) -> float:
        return 0.0

    def timestamp(self) -> str:
        return "2020-02-20T08:08:05.825Z"

    def send(self, message: dict[str, object]) -> None:
        self.sent.append(message)

    def call_later(self, delay: float, fn: object) -> None:
        raise AssertionError("not needed here")


def test_sellers_send_behaviour_only_when_asked() -> None:
    from accord.leagues.humaine.agents.base import SAMPLE_GESTURES, SellerAgent

    plain = SellerAgent("Celia").bind(ctx := Ctx())
    plain.offer({"egg": 2}, 3.0)
    plain.accept({"egg": 2}, 3.0, behavior=["nod", "smile"])
    plain.tell("Hello", behavior="wave")
    assert "behavior" not in ctx.sent[0]  # as the original's agents: no field at all
    assert [m.get("behavior") for m in ctx.sent] == [None, ["nod", "smile"], "wave"]
    gesturing = SellerAgent("Watson").bind(ctx := Ctx())
    gesturing.gestures = SAMPLE_GESTURES
    gesturing.offer({"egg": 2}, 3.0)
    gesturing.accept({"egg": 2}, 3.0)
    gesturing.tell("Let me see")
    gesturing.offer({"egg": 2}, 3.0, behavior="shrug")
    assert [m["behavior"] for m in ctx.sent] == ["smile", ["nod", "smile"], "thinking", "shrug"]
    assert all(gestures_of(m)[1] == [] for m in ctx.sent)
