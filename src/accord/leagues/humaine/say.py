"""The body of a message the person sends from a page, typed or spoken.

>>> Say(text="Celia, two eggs please", addressee="Celia").addressee
'Celia'
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["MAX_SAY_CHARS", "Say"]

MAX_SAY_CHARS = 1000
"""The longest message a person may send."""


class Say(BaseModel):
    model_config = ConfigDict(extra="forbid")
    roundId: str | None = None
    text: str = Field(min_length=1, max_length=MAX_SAY_CHARS)
    addressee: str | None = None
