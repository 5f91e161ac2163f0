"""WAV reading and writing: exact sizes, streamed headers, errors that say what arrived."""

from __future__ import annotations

import struct

import numpy as np
import pytest

from accord.leagues.humaine.speech import InvalidAudio, read_wav, wav_seconds, write_wav
from accord.leagues.humaine.speech.wav import read_pcm16, resample


def test_round_trip_keeps_samples_and_rate() -> None:
    samples = (np.sin(np.arange(22050) / 10.0) * 20000).astype(np.int16)
    wav = write_wav(samples, 22050)
    back, rate = read_pcm16(wav)
    assert rate == 22050 and np.array_equal(back, samples)
    assert wav_seconds(wav) == 1.0


def test_a_streamed_header_that_overstates_its_size_is_read_from_the_bytes_present() -> None:
    wav = bytearray(write_wav(np.ones(1000, dtype=np.int16), 16000))
    wav[4:8] = struct.pack("<I", 0x7FFFFFFF)
    wav[40:44] = struct.pack("<I", 0x7FFFFFFF)
    assert wav_seconds(bytes(wav)) == 1000 / 16000


def test_stereo_is_averaged_to_mono() -> None:
    frames = np.array([[1000, 3000], [-2000, 0]], dtype="<i2").tobytes()
    header = struct.pack(
        "<4sI4s4sIHHIIHH", b"RIFF", 36 + 8, b"WAVE", b"fmt ", 16, 1, 2, 8000, 32000, 4, 16
    ) + struct.pack("<4sI", b"data", 8)
    samples, rate = read_wav(header + frames)
    assert rate == 8000
    assert samples.tolist() == [2000 / 32768, -1000 / 32768]


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"", "expected a RIFF/WAVE file, got 0 bytes"),
        (b"ID3\x03 not a wav at all", "expected a RIFF/WAVE file"),
        (
            struct.pack(
                "<4sI4s4sIHHIIHH", b"RIFF", 36, b"WAVE", b"fmt ", 16, 3, 1, 16000, 64000, 4, 32
            ),
            "expected 16-bit PCM WAV, got format code 3 with 32 bits",
        ),
        (b"RIFF\x04\x00\x00\x00WAVE", "WAV without a 'fmt ' chunk"),
    ],
)
def test_bad_audio_is_a_clear_error(data: bytes, message: str) -> None:
    with pytest.raises(InvalidAudio, match=message.replace("(", r"\(")):
        read_wav(data)


def test_resample_keeps_duration_and_a_tone_frequency() -> None:
    rate = 22050
    tone = np.sin(2 * np.pi * 440 * np.arange(rate) / rate).astype(np.float32)
    out = resample(tone, rate, 16000)
    assert out.size == 16000
    spectrum = np.abs(np.fft.rfft(out))
    assert int(np.argmax(spectrum)) == 440  # 1 s of audio: bin k is k Hz
