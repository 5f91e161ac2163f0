"""The SSML subset: what is kept, what is removed, and that markup never raises."""

from __future__ import annotations

import pytest

from accord.leagues.humaine.speech.ssml import sanitise


def test_documented_subset_is_kept_with_canonical_attributes() -> None:
    clean = sanitise(
        '<speak>I can do <prosody rate="slow" pitch="+10%">three eggs</prosody>'
        '<break time="0.5s"/> for <emphasis level="strong">four</emphasis> dollars.</speak>'
    )
    assert clean.ssml == (
        '<speak>I can do <prosody rate="slow" pitch="+10%">three eggs</prosody>'
        '<break time="500ms"/> for <emphasis level="strong">four</emphasis> dollars.</speak>'
    )
    assert clean.text == "I can do three eggs for four dollars."


def test_unknown_tags_are_removed_and_their_text_spoken() -> None:
    clean = sanitise('<voice name="x">Hi</voice> <audio src="/etc/passwd"/><say-as>5</say-as> eggs')
    assert clean.ssml == "<speak>Hi 5 eggs</speak>"
    assert clean.text == "Hi 5 eggs"


def test_attributes_outside_the_subset_are_dropped() -> None:
    clean = sanitise(
        '<prosody rate="9000%" pitch="loud" volume="x-loud">a</prosody>'
        '<break time="1h" strength="huge"/><emphasis level="shout">b</emphasis>'
    )
    assert clean.ssml == "<speak><prosody>a</prosody><break/><emphasis>b</emphasis></speak>"


def test_long_breaks_are_capped_at_five_seconds() -> None:
    assert sanitise('a<break time="60s"/>b').ssml == '<speak>a<break time="5000ms"/>b</speak>'


@pytest.mark.parametrize(
    ("raw", "ssml", "text"),
    [
        ("<emphasis>yes", "<speak><emphasis>yes</emphasis></speak>", "yes"),
        ("no</prosody> way", "<speak>no way</speak>", "no way"),
        (
            "<emphasis><prosody rate='fast'>a</emphasis>b",
            '<speak><emphasis><prosody rate="fast">a</prosody></emphasis>b</speak>',
            "ab",
        ),
        ("5 < 6 and 7 > 3", "<speak>5 &lt; 6 and 7 &gt; 3</speak>", "5 < 6 and 7 > 3"),
        ("a <3 b", "<speak>a &lt;3 b</speak>", "a <3 b"),
        ("<!-- hidden -->fish &amp; chips", "<speak>fish &amp; chips</speak>", "fish & chips"),
        ("<?xml version='1.0'?><speak>ok", "<speak>ok</speak>", "ok"),
        ('<break time="x', '<speak>&lt;break time="x</speak>', '<break time="x'),
        ("", "<speak></speak>", ""),
    ],
)
def test_malformed_markup_never_raises(raw: str, ssml: str, text: str) -> None:
    clean = sanitise(raw)
    assert (clean.ssml, clean.text) == (ssml, text)
