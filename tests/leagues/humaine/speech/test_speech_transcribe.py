"""Speech in: synthesised buyer utterances transcribed offline, with the fallback rule.

The accuracy threshold comes from ``bench/bench_speech_accuracy.py`` (see
docs/humaine-immersive.md): on the buyer voices the domain decoder with fallback reaches 80% word
accuracy over 46 utterances (70% to 86% by voice), the general model alone 35%. This test
takes four in-domain utterances (each transcribed exactly here) and asks for 70% (decoding is
deterministic, so load does not change the transcripts), low enough to allow a different
pocketsphinx build a slip, high enough to fail if the grammar or the audio path breaks;
and for the grammar to beat the general model on the issue's example.
"""

from __future__ import annotations

import threading

import numpy as np
import pytest

from accord.core.errors import InvalidValue
from accord.leagues.humaine.speech import (
    BUYER_VOICES,
    InvalidAudio,
    Transcriber,
    read_wav,
    speak,
    word_error_rate,
    words,
    write_wav,
)

SAMPLES = (
    ("Celia, I want two eggs and three cups of flour for five dollars", "buyer-m1", 1.0),
    ("Watson, how much for five cups of sugar", "buyer-klatt", 1.2),
    ("I'm looking for three ounces of chocolate", "buyer-m2", 1.2),
    ("Watson, it's a deal", "buyer-klatt", 1.0),
)
THRESHOLD = 0.70


@pytest.fixture(scope="module")
def spoken(espeak: None) -> list[tuple[str, bytes]]:
    return [(t, speak(t, BUYER_VOICES[v], rate=r).wav) for t, v, r in SAMPLES]


def _accuracy(pairs: list[tuple[str, str]]) -> float:
    edits = sum(word_error_rate(ref, hyp) * len(words(ref)) for ref, hyp in pairs)
    return 1.0 - edits / sum(len(words(ref)) for ref, _ in pairs)


def test_grammar_transcribes_the_domain_better_than_the_general_model(
    transcriber: Transcriber, spoken: list[tuple[str, bytes]]
) -> None:
    heard = [transcriber.transcribe(wav) for _, wav in spoken]
    accuracy = _accuracy([(ref, t.text) for (ref, _), t in zip(spoken, heard, strict=True)])
    assert accuracy >= THRESHOLD, [t.text for t in heard]
    general = transcriber.transcribe(spoken[0][1], mode="general")  # the example
    assert general.source == "general"
    assert word_error_rate(spoken[0][0], heard[0].text) < word_error_rate(
        spoken[0][0], general.text
    )
    assert heard[0].text.startswith("Celia ")  # seller names are capitalised
    for (_, wav), t in zip(spoken, heard, strict=True):
        assert t.audio_seconds == pytest.approx(len(read_wav(wav)[0]) / 22050)
        assert 0.0 < t.seconds < 60.0


def test_float_samples_at_another_rate_give_the_same_transcript(
    transcriber: Transcriber, spoken: list[tuple[str, bytes]]
) -> None:
    samples, rate = read_wav(spoken[3][1])
    at_44k = np.interp(np.arange(samples.size * 2) / 2, np.arange(samples.size), samples)
    from_pcm = transcriber.transcribe_pcm(at_44k.astype(np.float32), 2 * rate)
    assert from_pcm.text == transcriber.transcribe(spoken[3][1]).text
    assert from_pcm.audio_seconds == pytest.approx(samples.size / rate)


def test_silence_finds_nothing_in_the_grammar_and_falls_back_to_the_general_model(
    transcriber: Transcriber,
) -> None:
    silence = write_wav(np.zeros(16000, dtype=np.int16), 16000)
    assert transcriber.transcribe(silence, mode="grammar").text == ""
    t = transcriber.transcribe(silence)
    assert (t.source, t.audio_seconds) == ("general", 1.0)


def test_concurrent_calls_from_threads_give_the_serial_results(
    transcriber: Transcriber, spoken: list[tuple[str, bytes]]
) -> None:
    wavs = [spoken[1][1], spoken[3][1]]
    serial = [transcriber.transcribe(w).text for w in wavs]
    results: dict[int, str] = {}
    threads = [
        threading.Thread(
            target=lambda i=i: results.__setitem__(i, transcriber.transcribe(wavs[i]).text)
        )
        for i in range(2)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert [results[0], results[1]] == serial


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (lambda t: t.transcribe(b"not a wav"), InvalidAudio, "expected a RIFF/WAVE file"),
        (lambda t: t.transcribe("x.wav"), InvalidAudio, "expected WAV bytes, got str"),
        (
            lambda t: t.transcribe_pcm(np.zeros((2, 10), dtype=np.float32), 16000),
            InvalidAudio,
            r"expected a 1-D float or int16 array of samples, got float32 \(2, 10\)",
        ),
        (
            lambda t: t.transcribe_pcm(np.zeros(10, dtype=np.float32), 16),
            InvalidAudio,
            "sample rate must be an int in 1000..384000 Hz, got 16",
        ),
        (
            lambda t: t.transcribe_pcm(np.zeros(16000 * 61, dtype=np.float32), 16000),
            InvalidAudio,
            "audio is 61.0 s long; at most 60 s per call",
        ),
        (
            lambda t: t.transcribe(write_wav(np.zeros(10, dtype=np.int16), 16000), mode="fast"),
            InvalidValue,
            "mode must be 'auto', 'grammar' or 'general', got 'fast'",
        ),
    ],
)
def test_bad_audio_is_a_clear_error(
    transcriber: Transcriber, call: object, error: type[Exception], message: str
) -> None:
    with pytest.raises(error, match=message):
        call(transcriber)  # type: ignore[operator]


def test_a_grammar_word_missing_from_the_dictionary_is_named(pocketsphinx: None) -> None:
    grammar = "#JSGF V1.0;\ngrammar t;\npublic <u> = celia | zqxjv;"
    with pytest.raises(InvalidValue, match="dictionary lacks: zqxjv"):
        Transcriber(grammar)
