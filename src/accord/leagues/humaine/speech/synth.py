"""Speech out: text with the SSML subset spoken by espeak-ng, offline, as a WAV.

espeak-ng (Debian's ``espeak-ng`` package, GPL) is a separate program run as a
subprocess: the sanitised SSML goes to its stdin (never through a shell), the WAV comes
back on its stdout. Nothing is linked.

>>> speech_available() in (None, "espeak-ng not found: apt-get install espeak-ng")
True
"""

from __future__ import annotations

import math
import shutil
import subprocess
from dataclasses import dataclass

import numpy as np

from accord.core.errors import InvalidValue

from .errors import SpeechUnavailable
from .ssml import sanitise
from .voices import Voice
from .wav import read_pcm16, wav_seconds, write_wav

__all__ = ["MAX_TEXT_CHARS", "Utterance", "speak", "speech_available"]

MAX_TEXT_CHARS = 4000
"""Longest text (with its markup) :func:`speak` accepts; an agent's message is a sentence or two."""

_TIMEOUT_S = 30.0


@dataclass(frozen=True)
class Utterance:
    """A spoken text: the WAV (16-bit PCM mono), its duration and the plain text spoken."""

    wav: bytes
    seconds: float
    text: str


def speech_available() -> str | None:
    """None when :func:`speak` can work here, else a one-line reason with the install hint."""
    if shutil.which("espeak-ng") is None:
        return "espeak-ng not found: apt-get install espeak-ng"
    return None


def speak(text: str, voice: Voice, *, rate: float = 1.0) -> Utterance:
    """``text`` (plain or with the SSML subset of :mod:`.ssml`) spoken with ``voice``.

    ``rate`` multiplies the voice's words per minute (clamped to espeak-ng's 80-450).
    Markup outside the subset is removed and the text spoken; it never raises for markup.

    >>> if speech_available() is None:
    ...     u = speak("Hello <emphasis>there</emphasis><unknown/>", Voice("t", "en-us+f3"))
    ...     assert u.text == "Hello there" and 0.3 < u.seconds < 3
    """
    if not isinstance(text, str):
        raise InvalidValue(f"speak() expects the text as str, got {type(text).__name__}")
    if len(text) > MAX_TEXT_CHARS:
        raise InvalidValue(f"text to speak is {len(text)} characters; at most {MAX_TEXT_CHARS}")
    if not (isinstance(rate, int | float) and math.isfinite(rate) and 0.25 <= rate <= 4.0):
        raise InvalidValue(f"rate must be a number in 0.25..4, got {rate!r}")
    clean = sanitise(text)
    reason = speech_available()
    if reason is not None:
        raise SpeechUnavailable(reason)
    wpm = min(450, max(80, round(voice.wpm * rate)))
    command = ["espeak-ng", "-v", voice.espeak_id, "-p", str(voice.pitch), "-s", str(wpm)]
    command += ["-m", "-b", "1", "--stdout", "--stdin"]
    try:
        done = subprocess.run(
            command,
            input=clean.ssml.encode("utf-8"),
            capture_output=True,
            timeout=_TIMEOUT_S,
            check=False,
        )
    except subprocess.TimeoutExpired as exc:
        raise SpeechUnavailable(f"espeak-ng took longer than {_TIMEOUT_S:.0f} s") from exc
    if done.returncode != 0 or not done.stdout:
        detail = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise SpeechUnavailable(
            f"espeak-ng failed (exit {done.returncode}) for voice {voice.espeak_id!r}: "
            + (detail[-1] if detail else "no output")
        )
    if len(done.stdout) <= 44:  # only a header: nothing to say
        samples, sample_rate = np.zeros(0, dtype=np.int16), 22050
    else:
        samples, sample_rate = read_pcm16(done.stdout)
    wav = write_wav(samples, sample_rate)
    return Utterance(wav=wav, seconds=wav_seconds(wav), text=clean.text)
