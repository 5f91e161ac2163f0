"""The errors of the speech package.

>>> issubclass(SpeechUnavailable, AccordError), issubclass(InvalidAudio, ValueError)
(True, True)
"""

from __future__ import annotations

from accord.core.errors import AccordError, InvalidValue, StateError

__all__ = ["AccordError", "InvalidAudio", "SpeechUnavailable"]


class SpeechUnavailable(StateError):
    """A speech engine (espeak-ng or pocketsphinx) is missing; the message says how to install it."""


class InvalidAudio(InvalidValue):
    """Audio that cannot be read: not a RIFF/WAVE file, not 16-bit PCM, or an empty array."""
