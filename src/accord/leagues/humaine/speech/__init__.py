"""Offline speech for HUMAINE's immersive mode: agents speak, the buyer is heard.

- :func:`speak` turns an agent's text (with the SSML subset of :mod:`.ssml`) into a WAV
  with the seller's :class:`Voice` (espeak-ng, a Debian package, run as a subprocess);
- :class:`Transcriber` turns the buyer's audio into text (pocketsphinx, the ``speech``
  extra) with the domain grammar of :func:`domain_grammar` and a general-model fallback;
- :func:`word_error_rate` measures transcripts against what was said.

:func:`speech_available` and :func:`transcription_available` return None when the engine
is usable here, else a one-line reason with the install hint.
"""

from __future__ import annotations

from .errors import InvalidAudio, SpeechUnavailable
from .grammar import domain_grammar, grammar_words
from .ssml import CleanSSML, sanitise
from .synth import Utterance, speak, speech_available
from .transcribe import Transcriber, Transcript, transcription_available
from .voices import BUYER_VOICES, VOICES, Voice
from .wav import read_wav, wav_seconds, write_wav
from .wer import word_error_rate, words

__all__ = [
    "BUYER_VOICES",
    "VOICES",
    "CleanSSML",
    "InvalidAudio",
    "SpeechUnavailable",
    "Transcriber",
    "Transcript",
    "Utterance",
    "Voice",
    "domain_grammar",
    "grammar_words",
    "read_wav",
    "sanitise",
    "speak",
    "speech_available",
    "transcription_available",
    "wav_seconds",
    "word_error_rate",
    "words",
    "write_wav",
]
