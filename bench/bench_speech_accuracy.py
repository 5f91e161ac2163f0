"""HUMAINE immersive mode: word accuracy and decode time of the offline speech input.

Synthesises buyer utterances of the domain with espeak-ng (four buyer voices, three
speeds), transcribes each with three set-ups, side by side in one run: the domain trigram
model with its general-model fallback (``ngram``, what the platform uses), the domain
grammar's FSG search with the same fallback (``fsg``, the previous set-up), and
pocketsphinx's general model alone (``general``, the baseline the issue measured). Prints
the per-utterance word error rate (WER) of each, then for each: the word accuracy over all
utterances (1 - total word edits / total reference words), the mean WER, the mean decode
wall time, the mean CPU seconds per utterance (``time.process_time``) and the real-time
factor; and the load average at the start and the end (the machine may be shared).

The original platform used a cloud speech-to-text service; it cannot run offline, so there
is no peer figure to put beside ours.

    python bench/bench_speech_accuracy.py            # all utterances
    python bench/bench_speech_accuracy.py --limit 8  # the first eight
    python bench/bench_speech_accuracy.py --no-general --no-fsg  # only the platform's set-up
"""

from __future__ import annotations

import argparse
import os
import sys
import time

from accord.leagues.humaine.speech import (
    BUYER_VOICES,
    Transcriber,
    speak,
    speech_available,
    transcription_available,
    word_error_rate,
    words,
)

UTTERANCES: tuple[str, ...] = (
    # requests
    "Celia, I want two eggs and three cups of flour for five dollars",
    "I'd like to buy three eggs, two cups of sugar, four cups of milk and five ounces of chocolate",
    "Watson, can you sell me some milk and sugar",
    "Can anyone give me a good price on blueberries",
    "I need four eggs and two cups of milk",
    "Watson, I would like six teaspoons of vanilla",
    "Hello Celia, do you have any blueberries",
    "Can I have two packets of blueberries",
    "I want to buy ten cups of flour",
    "Celia, give me eight eggs please",
    "I'm looking for three ounces of chocolate",
    "Watson, how much for five cups of sugar",
    "How much are twelve eggs",
    "What is your price for two cups of milk and two eggs",
    "I'd like enough for two cakes",
    # offers and counter-offers
    "Celia, I'll buy two cups of flour, two cups of sugar, and two cups of milk from you for three dollars",
    "Watson, I'll buy three eggs for two dollars",
    "How about four eggs for six dollars",
    "I'll pay ten dollars for four cups of flour",
    "What about twenty dollars",
    "Would you take fifteen dollars",
    "Celia, I offer seven dollars and fifty cents",
    "No, how about five dollars",
    "Watson, I will pay thirty dollars for all of it",
    "I'll buy six eggs and a cup of milk for nine dollars",
    "How about three cups of sugar for four dollars",
    # accepts
    "Celia, I accept",
    "OK, I accept your offer",
    "Watson, it's a deal",
    "Yes please",
    "Sounds good, thank you",
    "Celia, I accept the offer",
    # short accepts and rejects (the immersive page's deal-closing words)
    "Celia, I accept",
    "Watson, no thanks",
    "I accept",
    "Yes",
    "Watson, I accept",
    "Celia, no thanks",
    "I accept",
    "Yes",
    # rejects
    "No thanks",
    "No thank you, that's too expensive",
    "Watson, I reject your offer",
    "That's too much",
    "No deal",
    "Celia, I don't accept that",
)

SPEEDS: tuple[float, ...] = (1.0, 0.85, 1.2)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--limit", type=int, default=0, help="only the first N utterances")
    parser.add_argument("--no-general", action="store_true", help="skip the general model")
    parser.add_argument("--no-fsg", action="store_true", help="skip the grammar (FSG) search")
    args = parser.parse_args(argv)
    for reason in (speech_available(), transcription_available()):
        if reason is not None:
            print(f"cannot run: {reason}", file=sys.stderr)
            return 2
    utterances = UTTERANCES[: args.limit] if args.limit > 0 else UTTERANCES
    voices = list(BUYER_VOICES.values())
    print(f"load average at start: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    setups: dict[str, tuple[Transcriber, str]] = {}
    for name in ("ngram", "fsg"):
        if name == "fsg" and args.no_fsg:
            continue
        start = time.perf_counter()
        setups[name] = (Transcriber(search=name), "auto")  # type: ignore[arg-type]
        print(f"{name} transcriber built in {time.perf_counter() - start:.2f} s")
    if not args.no_general:
        setups["general"] = (setups["ngram"][0], "general")
    totals = {
        name: {"edits": 0.0, "wer": 0.0, "decode": 0.0, "cpu": 0.0, "audio": 0.0, "fallback": 0}
        for name in setups
    }
    ref_words = 0
    per_voice: dict[str, list[float]] = {v.name: [0.0, 0.0] for v in voices}  # edits, words
    print(f"{'voice':<12} {'speed':>5} {'audio':>6} " + " ".join(f"{n:>8}" for n in setups))
    for i, text in enumerate(utterances):
        voice = voices[i % len(voices)]
        speed = SPEEDS[(i // len(voices)) % len(SPEEDS)]
        spoken = speak(text, voice, rate=speed)
        n = len(words(text))
        ref_words += n
        heard = {}
        for name, (transcriber, mode) in setups.items():
            cpu = time.process_time()
            t = transcriber.transcribe(spoken.wav, mode=mode)  # type: ignore[arg-type]
            cpu = time.process_time() - cpu
            wer = word_error_rate(text, t.text)
            acc = totals[name]
            acc["edits"] += wer * n
            acc["wer"] += wer
            acc["decode"] += t.seconds
            acc["cpu"] += cpu
            acc["audio"] += t.audio_seconds
            acc["fallback"] += mode == "auto" and t.source == "general"
            heard[name] = (wer, t)
            if name == "ngram":
                per_voice[voice.name][0] += wer * n
                per_voice[voice.name][1] += n
        print(
            f"{voice.name:<12} {speed:>5.2f} {spoken.seconds:>5.1f}s "
            + " ".join(f"{w:>8.2f}" for w, _ in heard.values())
            + f"  {text}"
        )
        for name, (_, t) in heard.items():
            fallback = " (general fallback)" if name != "general" and t.source == "general" else ""
            print(f"{'':>30}{name:>8}: {t.text}{fallback}", flush=True)
    count = len(utterances)
    print(
        f"\n{count} utterances, {ref_words} reference words, {len(voices)} voices, speeds {SPEEDS}"
    )
    labels = {
        "ngram": "domain trigram + fallback",
        "fsg": "domain FSG + fallback",
        "general": "general model alone",
    }
    for name in setups:
        acc = totals[name]
        print(
            f"{labels[name]:<26} word accuracy {1 - acc['edits'] / ref_words:6.1%}  mean WER "
            f"{acc['wer'] / count:5.3f}  decode {acc['decode'] / count:5.2f} s  "
            f"CPU {acc['cpu'] / count:5.2f} s/utterance  real-time factor "
            f"{acc['decode'] / acc['audio']:4.2f}"
            + (f"  (fallback used {acc['fallback']}x)" if name != "general" else "")
        )
    print(
        "domain trigram + fallback by voice: "
        + ", ".join(f"{name} {1 - e / w:.0%}" for name, (e, w) in per_voice.items() if w)
    )
    print(f"load average at end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
