"""Short utterances ("Celia, I accept", "yes"): the words that close or refuse a deal.

The trigram search always ends on a complete hypothesis (the grammar search returned a
partial path such as "Celia no i can" for "Celia, I accept"). "yes" and the browser test's
take ("Celia, I accept" in buyer-f2's voice) are recognised exactly; the rest of the
short set is not yet recognised reliably across the buyer voices (the word "accept" at
the end of a take is misheard: "i get", "i have"; see docs/humaine-immersive.md), which
the strict xfail records: it fails loudly the day they are.
"""

from __future__ import annotations

import pytest

from accord.leagues.humaine.speech import BUYER_VOICES, Transcriber, speak, word_error_rate

SHORT = ("Celia, I accept", "Watson, no thanks", "I accept", "Yes")


def test_yes_and_the_browser_tests_accept_are_heard_exactly(
    transcriber: Transcriber, espeak: None
) -> None:
    for voice in BUYER_VOICES.values():
        heard = transcriber.transcribe(speak("Yes", voice).wav)
        assert (heard.text, heard.source) == ("yes", "grammar"), voice.name
    heard = transcriber.transcribe(speak("Celia, I accept", BUYER_VOICES["buyer-f2"]).wav)
    assert heard.text == "Celia i accept"


@pytest.mark.xfail(strict=True, reason="'accept' at the end of a take is misheard by some voices")
def test_short_utterances_are_heard_with_every_buyer_voice(
    transcriber: Transcriber, espeak: None
) -> None:
    wrong = [
        (text, voice.name, heard)
        for text in SHORT
        for voice in BUYER_VOICES.values()
        if word_error_rate(text, heard := transcriber.transcribe(speak(text, voice).wav).text)
    ]
    assert not wrong, wrong
