"""Skip the engine tests with one clear reason when espeak-ng or pocketsphinx is missing."""

from __future__ import annotations

import pytest

from accord.leagues.humaine.speech import Transcriber, speech_available, transcription_available


@pytest.fixture(scope="session")
def espeak() -> None:
    """espeak-ng is installed (else the test is skipped with the install hint)."""
    reason = speech_available()
    if reason is not None:
        pytest.skip(reason)


@pytest.fixture(scope="session")
def pocketsphinx() -> None:
    """pocketsphinx is installed (else the test is skipped with the install hint)."""
    reason = transcription_available()
    if reason is not None:
        pytest.skip(reason)


@pytest.fixture(scope="session")
def transcriber(pocketsphinx: None) -> Transcriber:
    """One default :class:`Transcriber` for the session (building one loads its decoder:
    about 4 s of CPU); the tests only call it."""
    return Transcriber()
