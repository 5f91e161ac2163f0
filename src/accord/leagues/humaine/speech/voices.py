"""The voices of the immersive mode: the sellers Celia (female) and Watson (male), per the
spec's names, and a few buyer voices for tests and the accuracy bench.

A voice is an espeak-ng voice id (language plus variant, ``en-us+f3``), a pitch (0-99,
espeak-ng's scale, 50 is its default) and a speaking rate in words per minute.

>>> VOICES["Celia"].espeak_id, VOICES["Watson"].espeak_id
('en-us+f3', 'en-us+m3')
>>> sorted(BUYER_VOICES)
['buyer-f2', 'buyer-klatt', 'buyer-m1', 'buyer-m2']
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from accord.core.errors import InvalidValue

__all__ = ["BUYER_VOICES", "VOICES", "Voice"]

_VOICE_ID = re.compile(r"^[a-z]{2,3}(-[a-z0-9]{1,8})*(\+[a-zA-Z0-9_]{1,16})?$")


@dataclass(frozen=True)
class Voice:
    """One speaking voice.

    >>> Voice("x", "en-us+f3", pitch=120, wpm=170)
    Traceback (most recent call last):
    ...
    accord.core.errors.InvalidValue: voice 'x': pitch must be in 0..99, got 120
    """

    name: str
    espeak_id: str
    pitch: int = 50
    wpm: int = 165

    def __post_init__(self) -> None:
        if not _VOICE_ID.match(self.espeak_id):
            raise InvalidValue(
                f"voice {self.name!r}: espeak voice id must look like 'en-us+f3', "
                f"got {self.espeak_id!r}"
            )
        if not 0 <= self.pitch <= 99:
            raise InvalidValue(f"voice {self.name!r}: pitch must be in 0..99, got {self.pitch}")
        if not 80 <= self.wpm <= 450:
            raise InvalidValue(f"voice {self.name!r}: wpm must be in 80..450, got {self.wpm}")


VOICES: Mapping[str, Voice] = MappingProxyType(
    {
        "Celia": Voice("Celia", "en-us+f3", pitch=62, wpm=165),
        "Watson": Voice("Watson", "en-us+m3", pitch=38, wpm=160),
    }
)
"""The sellers' voices, by the names the spec gives them (Celia female, Watson male)."""

BUYER_VOICES: Mapping[str, Voice] = MappingProxyType(
    {
        "buyer-m1": Voice("buyer-m1", "en-us+m1", pitch=45, wpm=160),
        "buyer-f2": Voice("buyer-f2", "en-us+f2", pitch=58, wpm=165),
        "buyer-m2": Voice("buyer-m2", "en-us+m2", pitch=50, wpm=170),
        "buyer-klatt": Voice("buyer-klatt", "en-us+klatt", pitch=52, wpm=155),
    }
)
"""Buyer voices (male, female, and espeak-ng's Klatt synthesiser) for synthesised test
utterances; distinct from the sellers' voices."""
