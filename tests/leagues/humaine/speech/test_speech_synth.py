"""Speech out: espeak-ng speaks the sellers' texts, SSML honoured, bad markup harmless."""

from __future__ import annotations

import numpy as np
import pytest

from accord.core.errors import InvalidValue
from accord.leagues.humaine.speech import VOICES, Voice, read_wav, speak, wav_seconds


def _energy(wav: bytes) -> float:
    samples, _ = read_wav(wav)
    return float(np.sqrt(np.mean(samples**2)))


def test_celia_and_watson_speak_a_wav_whose_duration_is_its_header(espeak: None) -> None:
    for name in ("Celia", "Watson"):
        u = speak("I can sell you three eggs for four dollars.", VOICES[name])
        assert u.wav[:4] == b"RIFF" and u.wav[8:12] == b"WAVE"
        assert u.seconds == wav_seconds(u.wav)
        assert 1.0 < u.seconds < 6.0
        assert _energy(u.wav) > 0.01
        assert u.text == "I can sell you three eggs for four dollars."


def _median_pitch(wav: bytes) -> float:
    """Median fundamental frequency (Hz) of the loud 40 ms frames, by autocorrelation."""
    s, rate = read_wav(wav)
    size, lo, hi = int(0.04 * rate), int(rate / 400), int(rate / 60)
    pitches = []
    for start in range(0, s.size - size, size):
        frame = s[start : start + size] - s[start : start + size].mean()
        if np.sqrt(np.mean(frame**2)) < 0.05:
            continue
        ac = np.correlate(frame, frame, mode="full")[size - 1 :]
        pitches.append(rate / (lo + int(np.argmax(ac[lo:hi]))))
    return float(np.median(pitches))


def test_celia_speaks_higher_than_watson(espeak: None) -> None:
    text = "Hello, I can sell you some milk and sugar."
    celia, watson = (
        _median_pitch(speak(text, VOICES["Celia"]).wav),
        _median_pitch(speak(text, VOICES["Watson"]).wav),
    )
    assert celia > 1.3 * watson, (celia, watson)


def test_a_break_lengthens_speech_and_rate_shortens_it(espeak: None) -> None:
    voice = VOICES["Watson"]
    plain = speak("two eggs for five dollars", voice)
    paused = speak('two eggs <break time="1500ms"/> for five dollars', voice)
    fast = speak("two eggs for five dollars", voice, rate=2.0)
    slow_tag = speak('<prosody rate="x-slow">two eggs for five dollars</prosody>', voice)
    assert paused.seconds > plain.seconds + 1.2
    assert fast.seconds < plain.seconds * 0.75
    assert slow_tag.seconds > plain.seconds * 1.2
    assert paused.text == plain.text == "two eggs for five dollars"


@pytest.mark.parametrize(
    "text",
    [
        '<audio src="file:///etc/passwd"/>two eggs',
        "<voice name='en-gb'>two</voice> eggs",
        "two <unknown attr=1>eggs",
        "two </emphasis></speak> eggs",
        "<speak><speak>two eggs",
        "two eggs & <3 > 2 $5 ; rm -rf /",
        '<prosody rate="-99999%" pitch="\'; echo">two eggs</prosody>',
    ],
)
def test_unknown_or_malformed_markup_is_removed_and_the_text_spoken(
    espeak: None, text: str
) -> None:
    u = speak(text, VOICES["Celia"])
    assert u.seconds > 0.3 and _energy(u.wav) > 0.01
    assert "<" not in u.text.replace("<3", "") and "eggs" in u.text


def test_empty_text_is_a_silent_valid_wav(espeak: None) -> None:
    u = speak("<speak></speak>", VOICES["Celia"])
    assert u.text == "" and u.seconds == wav_seconds(u.wav) < 0.5


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"rate": 0.0}, "rate must be a number in 0.25..4, got 0.0"),
        ({"rate": float("nan")}, "rate"),
    ],
)
def test_bad_rate_is_a_clear_error(kwargs: dict[str, float], message: str) -> None:
    with pytest.raises(InvalidValue, match=message):
        speak("hi", VOICES["Celia"], **kwargs)


def test_bad_voice_is_a_clear_error() -> None:
    with pytest.raises(InvalidValue, match="espeak voice id must look like 'en-us\\+f3'"):
        Voice("x", "en-us; rm -rf /")
