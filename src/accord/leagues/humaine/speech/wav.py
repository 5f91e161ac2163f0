"""WAV bytes in and out: 16-bit PCM, read leniently, written exactly.

espeak-ng writing to stdout cannot seek back, so its header claims a huge data size; the
reader trusts the bytes that are there instead of the sizes a streamed header claims.

>>> import numpy as np
>>> wav = write_wav(np.zeros(8000, dtype=np.int16), 16000)
>>> len(wav), wav_seconds(wav)
(16044, 0.5)
>>> samples, rate = read_wav(wav)
>>> samples.dtype, samples.shape, rate
(dtype('float32'), (8000,), 16000)
>>> read_wav(b"hello")
Traceback (most recent call last):
...
accord.leagues.humaine.speech.errors.InvalidAudio: expected a RIFF/WAVE file, got 5 bytes starting b'hello'
"""

from __future__ import annotations

import struct

import numpy as np

from .errors import InvalidAudio

__all__ = ["read_pcm16", "read_wav", "resample", "to_int16", "wav_seconds", "write_wav"]


def _chunks(data: bytes) -> tuple[tuple[int, int, int], bytes]:
    """``((format, channels, rate), pcm bytes)`` of a 16-bit PCM WAV."""
    if len(data) < 12 or data[:4] != b"RIFF" or data[8:12] != b"WAVE":
        raise InvalidAudio(
            f"expected a RIFF/WAVE file, got {len(data)} bytes starting {data[:8]!r}"
        )
    pos, fmt = 12, None
    while pos + 8 <= len(data):
        cid, size = data[pos : pos + 4], struct.unpack("<I", data[pos + 4 : pos + 8])[0]
        body = pos + 8
        if cid == b"fmt ":
            if size < 16 or body + 16 > len(data):
                raise InvalidAudio(f"WAV 'fmt ' chunk too short ({size} bytes)")
            code, channels, rate, _, _, bits = struct.unpack("<HHIIHH", data[body : body + 16])
            if code not in (1, 0xFFFE) or bits != 16:
                raise InvalidAudio(
                    f"expected 16-bit PCM WAV, got format code {code} with {bits} bits"
                )
            if channels < 1 or not 1000 <= rate <= 384000:
                raise InvalidAudio(f"WAV with {channels} channels at {rate} Hz is not audio")
            fmt = (code, channels, rate)
        elif cid == b"data":
            if fmt is None:
                raise InvalidAudio("WAV 'data' chunk before its 'fmt ' chunk")
            end = min(body + size, len(data))  # a streamed header over-states the size
            end -= (end - body) % (2 * fmt[1])
            return fmt, data[body:end]
        pos = body + size + (size & 1)
    raise InvalidAudio("WAV without a 'data' chunk" if fmt else "WAV without a 'fmt ' chunk")


def read_pcm16(data: bytes) -> tuple[np.ndarray, int]:
    """Mono int16 samples (channels averaged) and the sample rate of a 16-bit PCM WAV."""
    (_, channels, rate), pcm = _chunks(data)
    samples = np.frombuffer(pcm, dtype="<i2")
    if channels > 1:
        samples = samples.reshape(-1, channels).mean(axis=1).astype(np.int16)
    return samples.astype(np.int16, copy=False), rate


def read_wav(data: bytes) -> tuple[np.ndarray, int]:
    """Mono float32 samples in [-1, 1] (channels averaged) and the sample rate."""
    samples, rate = read_pcm16(data)
    return samples.astype(np.float32) / 32768.0, rate


def wav_seconds(data: bytes) -> float:
    """Duration of a 16-bit PCM WAV, from its header's rate and the data actually present."""
    (_, channels, rate), pcm = _chunks(data)
    return len(pcm) / (2 * channels * rate)


def to_int16(samples: np.ndarray) -> np.ndarray:
    """Float samples in [-1, 1] as int16 (clipped); int16 input is returned as is."""
    if samples.dtype == np.int16:
        return samples
    out: np.ndarray = np.round(np.clip(samples, -1.0, 1.0) * 32767.0).astype(np.int16)
    return out


def resample(samples: np.ndarray, rate: int, target: int = 16000) -> np.ndarray:
    """``samples`` at ``rate`` Hz resampled to ``target`` Hz (linear interpolation).

    >>> resample(np.arange(4, dtype=np.float32), 8000, 16000).tolist()
    [0.0, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 3.0]
    """
    if rate == target or samples.size == 0:
        return samples.astype(np.float32, copy=False)
    n = int(round(samples.size * target / rate))
    positions = np.arange(n, dtype=np.float64) * (rate / target)
    out: np.ndarray = np.interp(positions, np.arange(samples.size), samples).astype(np.float32)
    return out


def write_wav(samples: np.ndarray, rate: int) -> bytes:
    """A mono 16-bit PCM WAV of ``samples`` (int16, or float in [-1, 1]) with exact sizes."""
    pcm = to_int16(np.asarray(samples)).astype("<i2").tobytes()
    header = struct.pack(
        "<4sI4s4sIHHIIHH4sI",
        b"RIFF",
        36 + len(pcm),
        b"WAVE",
        b"fmt ",
        16,
        1,
        1,
        rate,
        rate * 2,
        2,
        16,
        b"data",
        len(pcm),
    )
    return header + pcm
