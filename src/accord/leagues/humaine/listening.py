"""Speech input in a process of its own, so decoding never stalls the servers.

pocketsphinx holds Python's GIL for the whole decode (measured: a 3.6 s utterance froze
every other thread of the process for the decode's length, up to 19 s on a loaded
2-core machine). ``accord humaine up`` runs the orchestrator, the agents and the UI
server in one process, where such a freeze would delay the sellers past R2's 2 s
window. :class:`Listener` therefore decodes in one worker process (spawned once, its
decoder loaded once) and awaits the result.

Example::

    listener = Listener(sellers=("Celia", "Watson"))
    heard = await listener.transcribe(wav_bytes)  # {"text", "source", "seconds", ...}
    listener.close()
"""

from __future__ import annotations

import asyncio
import multiprocessing
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import numpy as np

from accord.core.errors import InvalidValue

__all__ = ["MARGIN", "QUIET", "Listener", "UnusableAudio", "trim_silence"]

QUIET = 0.02
"""Samples below this (of full scale) are silence when the take is trimmed."""
MARGIN = 0.15
"""Seconds of silence kept on each side of the speech."""

_TRANSCRIBER: Any = None


class UnusableAudio(InvalidValue):
    """The audio could not be decoded (not a 16-bit PCM WAV, too long...)."""


def _load(sellers: tuple[str, ...]) -> None:
    global _TRANSCRIBER
    from accord.leagues.humaine.speech import Transcriber

    _TRANSCRIBER = Transcriber(sellers=sellers)


def trim_silence(samples: np.ndarray, rate: int) -> np.ndarray:
    """``samples`` without the quiet before and after the speech (``MARGIN`` s kept).

    A push-to-talk take starts and ends with silence (the click, then 0.9 s of quiet);
    the decoder is faster and surer without it. Quiet: below ``QUIET`` of full scale
    and below a twentieth of the take's peak.

    >>> x = np.zeros(16000, np.float32); x[8000:8100] = 0.5
    >>> len(trim_silence(x, 16000)) == 100 + 2 * int(MARGIN * 16000)
    True
    """
    if samples.size == 0:
        return samples
    level = max(QUIET, 0.05 * float(np.abs(samples).max()))
    loud = np.flatnonzero(np.abs(samples) > level)
    if loud.size == 0:
        return samples
    keep = int(MARGIN * rate)
    return samples[max(0, int(loud[0]) - keep) : int(loud[-1]) + 1 + keep]


def _work(wav: bytes, score: bool = False) -> dict[str, Any]:
    from accord.leagues.humaine.speech import InvalidAudio, read_wav

    try:
        samples, rate = read_wav(wav)
        speech = trim_silence(samples, rate)
        t = _TRANSCRIBER.transcribe_pcm(speech, rate, score=score)
    except InvalidAudio as e:
        return {"error": str(e)}
    matcher = getattr(_TRANSCRIBER, "_matcher", None)
    in_grammar = matcher is not None and any(
        matcher.fullmatch(s + " ") for s in (t.text, t.text.lower())
    )
    return {
        "text": t.text,
        "in_grammar": bool(in_grammar),
        "source": t.source,
        "seconds": t.seconds,
        "audio_seconds": samples.size / rate,
        "speech_seconds": speech.size / rate,
        "confidence": t.confidence,
    }


class Listener:
    """A worker process with one :class:`~.speech.Transcriber` (made on first use)."""

    def __init__(self, sellers: tuple[str, ...]) -> None:
        self.sellers = sellers
        self._pool: ProcessPoolExecutor | None = None

    def _executor(self) -> ProcessPoolExecutor:
        if self._pool is None:
            self._pool = ProcessPoolExecutor(
                max_workers=1,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=_load,
                initargs=(self.sellers,),
            )
        return self._pool

    async def transcribe(self, wav: bytes, score: bool = False) -> dict[str, Any]:
        """``{text, source, seconds, audio_seconds, confidence}`` of a WAV (``score``:
        with the take's graded confidence, else None); :class:`UnusableAudio`."""
        loop = asyncio.get_running_loop()
        out: dict[str, Any] = await loop.run_in_executor(self._executor(), _work, wav, score)
        if "error" in out:
            raise UnusableAudio(out["error"])
        return out

    def warm_up(self) -> None:
        """Start the worker now (it loads its decoder), not at the first utterance."""
        self._executor().submit(len, b"")

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None
