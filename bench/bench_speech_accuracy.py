"""HUMAINE immersive mode: word accuracy and decode time of the offline speech input.

Synthesises buyer utterances of the domain with espeak-ng (four buyer voices, three
speeds), transcribes each with the :class:`Transcriber` twice: the domain grammar with
its general-model fallback (what the platform uses), and pocketsphinx's general model
alone (the baseline the issue measured). Prints the per-utterance word error rate (WER)
of both, side by side, then for each: the word accuracy over all utterances
(1 - total word edits / total reference words), the mean WER, and the mean decode time
and real-time factor (decode seconds per second of audio).

The original platform used a cloud speech-to-text service; it cannot run offline, so there
is no peer figure to put beside ours.

    python bench/bench_speech_accuracy.py            # all utterances
    python bench/bench_speech_accuracy.py --limit 8  # the first eight
    python bench/bench_speech_accuracy.py --grammar-only
"""

from __future__ import annotations

import argparse
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
    parser.add_argument(
        "--grammar-only", action="store_true", help="skip the general model (a quicker run)"
    )
    args = parser.parse_args(argv)
    for reason in (speech_available(), transcription_available()):
        if reason is not None:
            print(f"cannot run: {reason}", file=sys.stderr)
            return 2
    utterances = UTTERANCES[: args.limit] if args.limit > 0 else UTTERANCES
    voices = list(BUYER_VOICES.values())
    modes = ("auto",) if args.grammar_only else ("auto", "general")
    start = time.perf_counter()
    transcriber = Transcriber()
    print(f"transcriber built in {time.perf_counter() - start:.2f} s")
    totals = {
        mode: {"edits": 0.0, "wer": 0.0, "decode": 0.0, "audio": 0.0, "general": 0}
        for mode in ("auto", "general")
    }
    ref_words = 0
    per_voice: dict[str, list[float]] = {v.name: [0.0, 0.0] for v in voices}  # edits, words
    print(
        f"{'voice':<12} {'speed':>5} {'audio':>6} {'WER g+f':>8} {'WER gen':>8}  reference / grammar+fallback / general"
    )
    for i, text in enumerate(utterances):
        voice = voices[i % len(voices)]
        speed = SPEEDS[(i // len(voices)) % len(SPEEDS)]
        spoken = speak(text, voice, rate=speed)
        n = len(words(text))
        ref_words += n
        heard = {}
        for mode in modes:
            t = transcriber.transcribe(spoken.wav, mode=mode)  # type: ignore[arg-type]
            wer = word_error_rate(text, t.text)
            acc = totals[mode]
            acc["edits"] += wer * n
            acc["wer"] += wer
            acc["decode"] += t.seconds
            acc["audio"] += t.audio_seconds
            acc["general"] += t.source == "general"
            heard[mode] = (wer, t)
            if mode == "auto":
                per_voice[voice.name][0] += wer * n
                per_voice[voice.name][1] += n
        print(
            f"{voice.name:<12} {speed:>5.2f} {spoken.seconds:>5.1f}s "
            f"{heard['auto'][0]:>8.2f} {heard.get('general', (float('nan'),))[0]:>8.2f}  {text}\n"
            f"{'':>44}g+f: {heard['auto'][1].text}"
            + (" (general fallback)" if heard["auto"][1].source == "general" else "")
            + (f"\n{'':>44}gen: {heard['general'][1].text}" if "general" in heard else ""),
            flush=True,
        )
    count = len(utterances)
    print(
        f"\n{count} utterances, {ref_words} reference words, {len(voices)} voices, speeds {SPEEDS}"
    )
    labels = {"auto": "grammar + general fallback", "general": "general model alone"}
    for mode in modes:
        label = labels[mode]
        acc = totals[mode]
        print(
            f"{label:<27} word accuracy {1 - acc['edits'] / ref_words:6.1%}  mean WER "
            f"{acc['wer'] / count:5.3f}  mean decode {acc['decode'] / count:5.2f} s  "
            f"real-time factor {acc['decode'] / acc['audio']:4.2f}"
            + (f"  (fallback used {acc['general']}x)" if mode == "auto" else "")
        )
    print(
        "grammar + fallback by voice: "
        + ", ".join(f"{name} {1 - e / w:.0%}" for name, (e, w) in per_voice.items() if w)
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
