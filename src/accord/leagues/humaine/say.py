"""The body of a message the person sends from a page, typed or spoken.

>>> Say(text="Celia, two eggs please", addressee="Celia").addressee
'Celia'
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["MAX_SAY_CHARS", "Say", "TakeAnswer"]

MAX_SAY_CHARS = 1000
"""The longest message a person may send."""


class Say(BaseModel):
    model_config = ConfigDict(extra="forbid")
    roundId: str | None = None
    text: str = Field(min_length=1, max_length=MAX_SAY_CHARS)
    addressee: str | None = None


class TakeAnswer(BaseModel):
    """The buyer's answer to a spoken take shown on the page: send it (as heard, or with
    ``text`` and ``addressee`` edited) or take it back.

    >>> TakeAnswer(take="a1b2", text="Celia, two eggs").text
    'Celia, two eggs'
    """

    model_config = ConfigDict(extra="forbid")
    roundId: str | None = None
    take: str = Field(min_length=1, max_length=64)
    text: str | None = Field(default=None, min_length=1, max_length=MAX_SAY_CHARS)
    addressee: str | None = Field(default=None, max_length=64)
