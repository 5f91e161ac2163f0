"""What an avatar does besides speaking: the gesture set, SSML for display, the addressee.

The specification lets a seller send "text plus an optional specification of avatar
behavior, such as 'smile' or 'wave'", the text possibly holding SSML tags. On the wire
that is an optional ``behavior`` field of ``/relayMessage`` (``"smile"``, a list such as
``["wave", "smile"]``, or ``{"gesture": "nod"}``; ``behaviour`` is read too). Agents
written for the original send none and are spoken without a gesture. Unknown gestures
are dropped (and reported), never an error: the avatar just does not perform them.

Example:
    >>> gestures_of({"behavior": ["Wave", "shake head", "dance"]})
    (['wave', 'shake_head'], ['dance'])
    >>> display_text('<speak>Two eggs <break time="300ms"/>for <emphasis>$3</emphasis></speak>')
    'Two eggs for $3'
    >>> choose_addressee("Watson, I accept", ["Celia", "Watson"], focus="Celia", focus_by="click")
    ('Watson', 'name in utterance')
    >>> choose_addressee("I accept", ["Celia", "Watson"], focus="Celia", focus_by="click")
    ('Celia', 'last avatar clicked')
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from typing import Any

__all__ = [
    "ADDRESSEE_RULES",
    "GESTURES",
    "choose_addressee",
    "display_text",
    "gestures_of",
]

GESTURES = ("smile", "wave", "nod", "shake_head", "shrug", "thinking")
"""The gestures an avatar performs (the page animates each one)."""

_ALIASES = {
    "shakehead": "shake_head",
    "headshake": "shake_head",
    "shake": "shake_head",
    "no": "shake_head",
    "yes": "nod",
    "think": "thinking",
    "ponder": "thinking",
    "smiling": "smile",
    "waving": "wave",
    "nodding": "nod",
    "shrugging": "shrug",
}

ADDRESSEE_RULES = {
    "name": "name in utterance",
    "click": "last avatar clicked",
    "head pose": "head pose (camera)",
    "none": "nobody named or chosen: both sellers hear it",
}
"""How the addressee of a spoken utterance was found (shown on the page and logged)."""

MAX_GESTURES = 4


def _norm(word: str) -> str:
    key = re.sub(r"[\s_\-]+", "", word.strip().lower())
    if key in _ALIASES:
        return _ALIASES[key]
    for g in GESTURES:
        if key == g.replace("_", ""):
            return g
    return ""


def gestures_of(body: dict[str, Any]) -> tuple[list[str], list[str]]:
    """The known gestures a message asks for (in order, at most 4) and the unknown ones."""
    raw = body.get("behavior", body.get("behaviour"))
    if isinstance(raw, dict):
        raw = raw.get("gesture", raw.get("gestures", raw.get("name")))
    if isinstance(raw, str):
        items: list[Any] = re.split(r"[,;]", raw)
    elif isinstance(raw, list):
        items = raw
    else:
        return [], []
    known: list[str] = []
    unknown: list[str] = []
    for item in items[:16]:
        if not isinstance(item, str) or not item.strip():
            continue
        g = _norm(item)
        if g and g not in known and len(known) < MAX_GESTURES:
            known.append(g)
        elif not g:
            unknown.append(item.strip()[:40])
    return known, unknown


_TAG = re.compile(r"<[^<>]{0,400}>")


def display_text(text: str) -> str:
    """The text without SSML tags (what the buyer reads), spaces tidied."""
    plain = html.unescape(_TAG.sub(" ", text))
    plain = re.sub(r"\s+", " ", plain).strip()
    return re.sub(r"\s+([,.;:!?])", r"\1", plain)


def name_in(text: str, names: Sequence[str]) -> str:
    """The seller named first in ``text``, or ``""``."""
    found = []
    for n in names:
        m = re.search(rf"\b{re.escape(n)}\b", text, re.I)
        if m:
            found.append((m.start(), n))
    return min(found)[1] if found else ""


def choose_addressee(
    text: str, names: Sequence[str], *, focus: str = "", focus_by: str = "click"
) -> tuple[str, str]:
    """``(addressee, rule)`` of a spoken utterance: the name said first, else the avatar
    the person last clicked or looked at (``focus``, found by ``focus_by``: "click" or
    "head pose"), else nobody (both sellers hear it; Celia answers first by custom)."""
    named = name_in(text, names)
    if named:
        return named, ADDRESSEE_RULES["name"]
    if focus in names:
        how = focus_by if focus_by in ("click", "head pose") else "click"
        return focus, ADDRESSEE_RULES[how]
    return "", ADDRESSEE_RULES["none"]
