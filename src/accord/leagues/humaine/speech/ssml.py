"""The SSML subset the agents may use, checked before anything reaches the synthesiser.

Agents' texts may carry SSML (section 3 of the spec points to Watson Text to Speech's
SSML). The immersive mode honours this subset and nothing else:

====================  ==========================================================
``<speak>``           optional wrapper (ignored: the text is always wrapped)
``<break/>``          ``time="500ms"`` / ``"1.5s"`` (capped at 5 s) or
                      ``strength="none|x-weak|weak|medium|strong|x-strong"``
``<emphasis>``        optional ``level="strong|moderate|reduced|none"``
``<prosody>``         ``rate="x-slow|slow|medium|fast|x-fast|default|N%|+N%|-N%"``,
                      ``pitch="x-low|low|medium|high|x-high|default|N%|+N%|-N%"``
====================  ==========================================================

Anything else never reaches espeak-ng and never raises: unknown tags (``<audio>``,
``<voice>``, ``<say-as>``, ...) are removed with their text kept, attributes outside the
table are dropped, a closing tag with no opener is dropped, unclosed tags are closed at the
end, and a ``<`` that does not open a tag is spoken as text (escaped).

>>> c = sanitise('<speak>Hi <emphasis level="strong">there</emphasis><break time="300ms"/>!</speak>')
>>> c.ssml
'<speak>Hi <emphasis level="strong">there</emphasis><break time="300ms"/>!</speak>'
>>> c.text
'Hi there!'
>>> sanitise('<audio src="x.wav"/>Buy <prosody rate="fast" volume="9">2 eggs</b> <3').ssml
'<speak>Buy <prosody rate="fast">2 eggs &lt;3</prosody></speak>'
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass

__all__ = ["MAX_BREAK_MS", "CleanSSML", "sanitise"]

MAX_BREAK_MS = 5000
"""The longest pause a ``<break time=..>`` may ask for; longer ones are capped."""

_TAGLIKE = re.compile(r"<[^<>]*>")
_TAG = re.compile(r"^<\s*(/?)\s*([A-Za-z][\w:.-]*)(.*?)(/?)\s*>$", re.DOTALL)
_ATTR = re.compile(r"([A-Za-z][\w:.-]*)\s*=\s*(?:\"([^\"]*)\"|'([^']*)')")
_TIME = re.compile(r"^(\d{1,6}(?:\.\d{1,3})?)(ms|s)$")
_PERCENT = re.compile(r"^[+-]?\d{1,3}(?:\.\d{1,2})?%$")
_NAMED_RATE = frozenset({"x-slow", "slow", "medium", "fast", "x-fast", "default"})
_NAMED_PITCH = frozenset({"x-low", "low", "medium", "high", "x-high", "default"})
_STRENGTH = frozenset({"none", "x-weak", "weak", "medium", "strong", "x-strong"})
_LEVEL = frozenset({"strong", "moderate", "reduced", "none"})
_SPACES = re.compile(r"\s+")
_BEFORE_PUNCT = re.compile(r"\s+([,.!?;:])")


@dataclass(frozen=True)
class CleanSSML:
    """Sanitised SSML (safe for ``espeak-ng -m``) and the plain text it speaks."""

    ssml: str
    text: str


def _break_attrs(attrs: dict[str, str]) -> str:
    time = _TIME.match(attrs.get("time", "").strip())
    if time:
        ms = float(time.group(1)) * (1.0 if time.group(2) == "ms" else 1000.0)
        return f' time="{min(round(ms), MAX_BREAK_MS)}ms"'
    strength = attrs.get("strength", "").strip().lower()
    return f' strength="{strength}"' if strength in _STRENGTH else ""


def _prosody_attrs(attrs: dict[str, str]) -> str:
    out = ""
    for key, named in (("rate", _NAMED_RATE), ("pitch", _NAMED_PITCH)):
        value = attrs.get(key, "").strip().lower()
        if value in named or _PERCENT.match(value):
            out += f' {key}="{value}"'
    return out


def _emphasis_attrs(attrs: dict[str, str]) -> str:
    level = attrs.get("level", "").strip().lower()
    return f' level="{level}"' if level in _LEVEL else ""


def _attributes(raw: str) -> dict[str, str]:
    return {
        m.group(1).lower(): m.group(2) if m.group(2) is not None else m.group(3)
        for m in _ATTR.finditer(raw)
    }


def sanitise(text: str) -> CleanSSML:
    """The SSML subset of ``text`` (see the module doc) and its plain text.

    >>> sanitise("Deal <break strength='strong'>").ssml
    '<speak>Deal <break strength="strong"/></speak>'
    >>> sanitise("<emphasis>no</prosody> way").text
    'no way'
    """
    out: list[str] = []
    plain: list[str] = []
    stack: list[str] = []
    pos = 0
    for match in _TAGLIKE.finditer(text):
        chunk = text[pos : match.start()]
        pos = match.end()
        tag = _TAG.match(match.group(0))
        if tag is None:  # "< 3 >", "<!-- -->", "<?xml ?>": text or noise, never markup
            chunk += "" if match.group(0)[1:2] in ("!", "?") else match.group(0)
        _text(chunk, out, plain)
        if tag is None:
            continue
        closing, name, raw, _self_closing = tag.groups()
        name = name.lower()
        if name == "break":
            if not closing:
                out.append(f"<break{_break_attrs(_attributes(raw))}/>")
                plain.append(" ")
        elif name in ("emphasis", "prosody"):
            if closing:
                if name in stack:
                    while stack:
                        top = stack.pop()
                        out.append(f"</{top}>")
                        if top == name:
                            break
            elif not _self_closing:
                attrs = _attributes(raw)
                extra = _emphasis_attrs(attrs) if name == "emphasis" else _prosody_attrs(attrs)
                out.append(f"<{name}{extra}>")
                stack.append(name)
        # <speak> and every unknown tag: removed, their content stays
    _text(text[pos:], out, plain)
    out.extend(f"</{name}>" for name in reversed(stack))
    spoken = _BEFORE_PUNCT.sub(r"\1", _SPACES.sub(" ", "".join(plain))).strip()
    return CleanSSML("<speak>" + "".join(out) + "</speak>", spoken)


def _text(chunk: str, out: list[str], plain: list[str]) -> None:
    if chunk:
        raw = html.unescape(chunk)
        out.append(html.escape(raw, quote=False))
        plain.append(raw)
