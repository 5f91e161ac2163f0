"""A spoken take's confidence is graded (0-1), from how far the recogniser's two domain
searches agree: on these espeak-ng takes one heard right scores 1, one outside the domain
0, and one heard with a word two ways in between; the operator's threshold decides which
takes the buyer must confirm. (A weak signal, documented in
:func:`accord.leagues.humaine.speech.transcribe.confidence`: both searches can agree on
a wrong sentence, so a threshold is the operator's explicit choice, off by default.)"""

from __future__ import annotations

import pytest

from accord.leagues.humaine.speech import Transcriber
from accord.leagues.humaine.speech.synth import speak
from accord.leagues.humaine.speech.voices import Voice

CLEAR = Voice("clear", "en-gb+m1", pitch=50, wpm=190)
QUICK = Voice("quick", "en-us+f2", pitch=70, wpm=200)
THRESHOLD = 0.95


@pytest.fixture(scope="module")
def transcriber(pocketsphinx: None, espeak: None) -> Transcriber:
    return Transcriber(sellers=("Celia", "Watson"))


def _heard(t: Transcriber, text: str, voice: Voice) -> tuple[str, float]:
    u = speak(text, voice)
    from accord.leagues.humaine.speech.wav import read_pcm16

    samples, rate = read_pcm16(u.wav)
    got = t.transcribe_pcm(samples, rate, score=True)
    assert got.confidence is not None
    return got.text, got.confidence


def test_confidence_is_graded_and_the_threshold_sorts_the_takes(
    espeak: None, transcriber: Transcriber
) -> None:
    _, foreign = _heard(transcriber, "the weather is lovely in the mountains today", CLEAR)
    assert foreign <= 0.5  # outside the domain: the two searches guess differently
    near, middle = _heard(transcriber, "how much for 2 eggs and 1 cup of milk", QUICK)
    assert 0.5 < middle < 1.0, near  # one word heard two ways: neither sure nor lost
    right, sure = _heard(transcriber, "no deal", QUICK)
    assert (right, sure) == ("no deal", 1.0)
    sent = [c >= THRESHOLD for c in (sure, foreign, middle)]
    assert sent == [True, False, False]  # only the sure take goes without the buyer
    assert transcriber.transcribe_pcm(*_pcm("no deal")).confidence is None  # not asked


def _pcm(text: str, voice: Voice = CLEAR) -> tuple[object, int]:
    from accord.leagues.humaine.speech.wav import read_pcm16

    return read_pcm16(speak(text, voice).wav)
