"""Speech in: the buyer's audio turned into text offline by pocketsphinx.

Two pocketsphinx decoders (its wheel ships the US English acoustic model, dictionary and
language model), built once and reused:

- the domain decoder: by default a trigram model of sentences sampled from the JSGF grammar
  of :func:`.grammar.domain_grammar` (names, numbers, goods, units, prices, accept and
  reject phrases; see :mod:`.domain_lm`); ``search="fsg"`` uses the grammar itself;
- the general decoder: pocketsphinx's general English language model.

The rule: decode with the domain decoder; when its hypothesis is not a sentence of the
grammar (checked with :func:`.domain_lm.sentence_matcher`), decode with the grammar's FSG
search (narrow beams, then the default ones) and take its hypothesis if it finds one; when
nothing is found (an empty hypothesis, as on silence), decode with the general model and
return that, marked ``source="general"``. The trigram search is about eight times faster than the grammar
search and, unlike it, always ends on a complete hypothesis: the FSG search returned a
partial path ("Celia no i can") or nothing for short takes such as "Celia, I accept",
whose last word did not reach a final state of the grammar. (A score-based rule was tried:
pocketsphinx's posterior and the acoustic score against a phone loop did not separate
in-domain from out-of-domain speech on the synthesised utterances, so the rule is the
empty result.) Decoding holds a lock, so one transcriber can serve a threaded server
(calls are serialised; build one per worker to decode in parallel).

>>> transcription_available() in (None, "pocketsphinx not installed: pip install '.[speech]' (in the Accord clone)")
True
"""

from __future__ import annotations

import os
import tempfile
import threading
import time
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from accord.core.errors import InvalidValue

from .domain_lm import arpa_model, sample_sentences, sentence_matcher
from .errors import InvalidAudio, SpeechUnavailable
from .grammar import domain_grammar, grammar_words
from .wav import read_pcm16, resample, to_int16

__all__ = [
    "MAX_AUDIO_SECONDS",
    "Mode",
    "Search",
    "Transcriber",
    "Transcript",
    "transcription_available",
]

MAX_AUDIO_SECONDS = 60.0
"""Longest audio one call decodes; a buyer's utterance is a sentence or two."""

SAMPLE_RATE = 16000
"""The acoustic model's sample rate; other rates are resampled to it."""

BEAMS = {"beam": 1e-30, "wbeam": 1e-25, "pbeam": 1e-30}
"""pocketsphinx's search beams of the grammar (FSG) search."""

NGRAM_CONFIG = {"lw": 4.0, "beam": 1e-60, "wbeam": 1e-40, "pbeam": 1e-60}
"""pocketsphinx settings of the trigram search (chosen on the bench: a lower language
weight and wider beams than the defaults gained 4 points of word accuracy for 0.03 s)."""

PAD_SECONDS = 0.3
"""Faint noise (1e-4 of full scale, seeded) added before and after the audio: the acoustic
model expects the silence that precedes and follows speech, and synthesised or trimmed
audio starts and ends abruptly (measured with the trigram search: +4.5 points of word
accuracy; the FSG search lost accuracy with it, so only the trigram search gets it)."""

Search = Literal["ngram", "fsg"]
"""The domain search: ``ngram`` (default), a trigram model of sentences sampled from the
grammar; ``fsg``, the grammar itself (slower, and it drops short utterances' last word)."""

LM_SENTENCES = 20000
"""Sentences sampled from the grammar to build the domain trigram model."""

VARIANTS = {"celia": "S IY L IY AH"}
"""Extra pronunciations added to the dictionary: "Celia" with a full second vowel (as
espeak-ng and many speakers say it; the dictionary has only S IY L Y AH)."""

Mode = Literal["auto", "grammar", "general"]
"""``auto``: grammar, then the general model if the grammar found nothing; or one alone."""


@dataclass(frozen=True)
class Transcript:
    """What was heard: the text, which search produced it, the decode time, the audio
    length, and (when asked for: ``transcribe_pcm(..., score=True)``) how sure the
    recogniser is of the words, 0-1 (see :func:`confidence`; None when not asked)."""

    text: str
    source: Literal["grammar", "general"]
    seconds: float
    audio_seconds: float
    confidence: float | None = None


def confidence(trigram: str, grammar: str) -> float:
    """How sure a take is: how far the two domain searches agree on its words,
    ``1 - WER(trigram hypothesis, grammar hypothesis)`` clipped to 0-1, 0 when either
    heard nothing. The trigram search always ends on some sentence, the grammar's search
    only on a sentence of the grammar: a take spoken clearly in the domain gets the same
    words from both; a misheard or out-of-domain take gets two different guesses (on
    espeak-ng takes of five voices: a mean of 0.67 for takes heard with at most 20 %
    word errors, 0.32 for worse ones; the n-best list's agreement and the general
    model's did not separate them).

    >>> confidence("celia how much for two eggs", "celia how much for two eggs")
    1.0
    >>> round(confidence("how much are two eggs and one cup of milk",
    ...                  "how much for two eggs and one cup of milk"), 2)
    0.9
    >>> confidence("eleven eight hundred and fifty", "")
    0.0
    """
    from .wer import word_error_rate

    if not trigram.strip() or not grammar.strip():
        return 0.0
    return float(min(1.0, max(0.0, 1.0 - word_error_rate(trigram, grammar))))


def transcription_available() -> str | None:
    """None when :class:`Transcriber` can work here, else a one-line reason with the hint."""
    try:
        import pocketsphinx  # noqa: F401
    except ImportError:
        return "pocketsphinx not installed: pip install '.[speech]' (in the Accord clone)"
    return None


class Transcriber:
    """Offline speech-to-text for the HUMAINE buyer (see the module doc for the rule).

    ``grammar`` defaults to :func:`.domain_grammar`; ``sellers`` (capitalised in the text)
    default to Celia and Watson.
    """

    def __init__(
        self,
        grammar: str | None = None,
        *,
        sellers: tuple[str, ...] = (),
        search: Search = "ngram",
    ) -> None:
        reason = transcription_available()
        if reason is not None:
            raise SpeechUnavailable(reason)
        from pocketsphinx import Decoder

        self.grammar = grammar if grammar is not None else domain_grammar()
        self._names = {s.lower(): s for s in (sellers or ("Celia", "Watson"))}
        self._lock = threading.Lock()
        self._ngram: Any = None  # the trigram decoder, if that is the search
        self._fsg_decoder: Any = None  # the grammar at narrow beams, built on first need
        self._matcher = sentence_matcher(self.grammar if grammar is None else grammar)
        if search not in ("ngram", "fsg"):
            raise InvalidValue(f"search must be 'ngram' or 'fsg', got {search!r}")
        self.search: Search = search
        # The FSG search with beams narrower than pocketsphinx's defaults (1e-48, 7e-29,
        # 1e-48): a few times faster, the same transcripts on the bench; the trigram search
        # with NGRAM_CONFIG. The general model keeps the defaults (narrower beams ruin its
        # transcripts).
        config = BEAMS if search == "fsg" else NGRAM_CONFIG
        self._grammar_decoder: Any = Decoder(loglevel="FATAL", lm=None, **config)
        self._wide_decoder: Any = None  # the grammar at default beams, built on first need
        self._general_decoder: Any = None  # built on first need (it loads a 30 MB model)
        missing = sorted(w for w in grammar_words(self.grammar) if not self._known(w))
        if missing:
            raise InvalidValue(
                "the grammar uses words the pronunciation dictionary lacks: " + ", ".join(missing)
            )
        _add_variants(self._grammar_decoder)
        if search == "fsg":
            self._grammar_decoder.add_jsgf_string("domain", self.grammar)
        else:
            with tempfile.TemporaryDirectory(prefix="accord-lm-") as folder:
                path = os.path.join(folder, "domain.arpa")
                with open(path, "w", encoding="utf-8") as f:
                    f.write(arpa_model(sample_sentences(self.grammar, LM_SENTENCES)))
                self._grammar_decoder.add_lm_file("domain", path)
            self._ngram = self._grammar_decoder
        self._grammar_decoder.activate_search("domain")

    def _known(self, word: str) -> bool:
        return self._grammar_decoder.lookup_word(word) is not None

    def transcribe(self, wav: bytes, *, mode: Mode = "auto") -> Transcript:
        """Transcribe a 16-bit PCM WAV (mono or not, any sample rate)."""
        if not isinstance(wav, bytes | bytearray | memoryview):
            raise InvalidAudio(f"expected WAV bytes, got {type(wav).__name__}")
        samples, rate = read_pcm16(bytes(wav))
        return self.transcribe_pcm(samples, rate, mode=mode)

    def transcribe_pcm(
        self, samples: np.ndarray, sample_rate: int, *, mode: Mode = "auto", score: bool = False
    ) -> Transcript:
        """Transcribe mono samples: float in [-1, 1] (e.g. float32 from a browser) or int16.
        ``score``: also the take's :func:`confidence` (a second search of the take when
        the first found a sentence of the grammar: about as long again)."""
        if mode not in ("auto", "grammar", "general"):
            raise InvalidValue(f"mode must be 'auto', 'grammar' or 'general', got {mode!r}")
        array = np.asarray(samples)
        if array.ndim != 1 or not (
            np.issubdtype(array.dtype, np.floating) or array.dtype == np.int16
        ):
            raise InvalidAudio(
                f"expected a 1-D float or int16 array of samples, got {array.dtype} {array.shape}"
            )
        if not isinstance(sample_rate, int) or not 1000 <= sample_rate <= 384000:
            raise InvalidAudio(
                f"sample rate must be an int in 1000..384000 Hz, got {sample_rate!r}"
            )
        audio_seconds = array.size / sample_rate
        if audio_seconds > MAX_AUDIO_SECONDS:
            raise InvalidAudio(
                f"audio is {audio_seconds:.1f} s long; at most {MAX_AUDIO_SECONDS:.0f} s per call"
            )
        if array.dtype == np.int16:
            array = array.astype(np.float32) / 32768.0
        speech = resample(np.nan_to_num(array), sample_rate, SAMPLE_RATE)
        pcm = to_int16(speech).tobytes()
        padded = to_int16(np.concatenate([_PAD, speech, _PAD])).tobytes()
        start = time.perf_counter()
        with self._lock:
            source: Literal["grammar", "general"] = "general" if mode == "general" else "grammar"
            decoder = self._grammar_decoder if source == "grammar" else self._general()
            text = self._decode(decoder, padded if decoder is self._ngram else pcm)
            first, second = text, None
            if decoder is self._ngram and text and not self._matcher.fullmatch(text + " "):
                # Not a sentence of the grammar: let the grammar's search have its say.
                second = self._decode(self._fsg(), pcm)
                text = second or self._decode(self._wide(), pcm) or text
            elif not text and source == "grammar" and self.search == "fsg":
                text = self._decode(self._wide(), pcm)
            if not text and mode == "auto":
                source, text = "general", self._decode(self._general(), pcm)
            sure: float | None = None
            if score:
                if decoder is self._ngram and source == "grammar":
                    if second is None and first:
                        second = self._decode(self._fsg(), pcm)
                    sure = round(confidence(first, second or ""), 3)
                elif source == "grammar":  # the grammar's search alone: nothing to compare
                    sure = 1.0 if text else 0.0
                else:
                    sure = 0.0
        return Transcript(
            text=self._display(text),
            source=source,
            seconds=time.perf_counter() - start,
            audio_seconds=audio_seconds,
            confidence=sure,
        )

    def _fsg(self) -> Any:
        if self._fsg_decoder is None:
            from pocketsphinx import Decoder

            self._fsg_decoder = Decoder(loglevel="FATAL", lm=None, **BEAMS)
            _add_variants(self._fsg_decoder)
            self._fsg_decoder.add_jsgf_string("domain", self.grammar)
            self._fsg_decoder.activate_search("domain")
        return self._fsg_decoder

    def _wide(self) -> Any:
        if self._wide_decoder is None:
            from pocketsphinx import Decoder

            self._wide_decoder = Decoder(loglevel="FATAL", lm=None)
            _add_variants(self._wide_decoder)
            self._wide_decoder.add_jsgf_string("domain", self.grammar)
            self._wide_decoder.activate_search("domain")
        return self._wide_decoder

    def _general(self) -> Any:
        if self._general_decoder is None:
            from pocketsphinx import Decoder

            self._general_decoder = Decoder(loglevel="FATAL")
        return self._general_decoder

    @staticmethod
    def _decode(decoder: Any, pcm: bytes) -> str:
        decoder.start_utt()
        decoder.process_raw(pcm, full_utt=True)
        decoder.end_utt()
        hyp = decoder.hyp()
        return "" if hyp is None else str(hyp.hypstr).strip()

    def _display(self, text: str) -> str:
        return " ".join(self._names.get(w, w) for w in text.split())


_PAD = np.random.default_rng(0).normal(0.0, 1e-4, int(PAD_SECONDS * SAMPLE_RATE)).astype(np.float32)


def _add_variants(decoder: Any) -> None:
    for word, phones in VARIANTS.items():
        n = 2
        while decoder.lookup_word(f"{word}({n})") is not None:
            n += 1
        if decoder.lookup_word(word) is not None:
            decoder.add_word(f"{word}({n})", phones, False)
