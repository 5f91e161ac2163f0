"""Events of the IAGO-style game: what the agent and the person send each other.

An :class:`Event` has a kind, an owner (the person, the agent or the system) and the
payload its kind needs. Messages are free text (agents only), one of the eleven 2017
preset utterances, a preference statement or a BATNA claim. :func:`event_from_json`
reads an event from a page or a remote agent and refuses a malformed one with the reason.

    >>> e = event_from_json({"kind": "SEND_EXPRESSION", "emotion": "happy"}, "agent")
    >>> e.kind.name, e.emotion, e.priority, e.flushable
    ('SEND_EXPRESSION', 'happy', False, True)
    >>> event_from_json({"kind": "SEND_EXPRESSION", "emotion": "smug"}, "agent")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    accord.leagues.han.events.InvalidEvent: SEND_EXPRESSION: emotion must be one of ...
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from enum import Enum
from typing import Any, Literal

from accord.core.errors import InvalidOffer, ProtocolViolation
from accord.leagues.han.domain import Offer

__all__ = [
    "EMOTIONS",
    "PRESET_UTTERANCES",
    "Event",
    "EventKind",
    "InvalidEvent",
    "Owner",
    "Preference",
    "Relation",
    "SubClass",
    "event_from_json",
    "page_json",
]

Owner = Literal["agent", "person", "system"]


class InvalidEvent(ProtocolViolation, ValueError):
    """An event that cannot be read or is not allowed to its sender."""


class EventKind(Enum):
    SEND_EXPRESSION = "SEND_EXPRESSION"
    OFFER_IN_PROGRESS = "OFFER_IN_PROGRESS"
    SEND_OFFER = "SEND_OFFER"
    SEND_MESSAGE = "SEND_MESSAGE"
    FORMAL_ACCEPT = "FORMAL_ACCEPT"
    FORMAL_QUIT = "FORMAL_QUIT"
    GAME_START = "GAME_START"
    GAME_END = "GAME_END"
    TIME = "TIME"


class SubClass(Enum):
    """What a message means (IAGO's SubClass)."""

    NONE = "NONE"
    GENERIC_POS = "GENERIC_POS"
    GENERIC_NEG = "GENERIC_NEG"
    OFFER_REQUEST_POS = "OFFER_REQUEST_POS"
    OFFER_REQUEST_NEG = "OFFER_REQUEST_NEG"
    OFFER_PROPOSE = "OFFER_PROPOSE"
    OFFER_ACCEPT = "OFFER_ACCEPT"
    OFFER_REJECT = "OFFER_REJECT"
    THREAT_POS = "THREAT_POS"
    THREAT_NEG = "THREAT_NEG"
    FAVOR_REQUEST = "FAVOR_REQUEST"
    FAVOR_ACCEPT = "FAVOR_ACCEPT"
    FAVOR_REJECT = "FAVOR_REJECT"
    FAVOR_RETURN = "FAVOR_RETURN"
    PREF_REQUEST = "PREF_REQUEST"
    PREF_INFO = "PREF_INFO"
    PREF_SPECIFIC_REQUEST = "PREF_SPECIFIC_REQUEST"
    PREF_WITHHOLD = "PREF_WITHHOLD"
    BATNA_REQUEST = "BATNA_REQUEST"
    BATNA_INFO = "BATNA_INFO"
    CONFUSION = "CONFUSION"
    TIMING = "TIMING"


class Relation(Enum):
    GREATER_THAN = "GREATER_THAN"
    LESS_THAN = "LESS_THAN"
    BEST = "BEST"
    WORST = "WORST"
    EQUAL = "EQUAL"


EMOTIONS = ("happy", "angry", "surprised", "sad", "neutral")

# The eleven 2017 utterances (ANAC page), numbered 1..11, with what each means.
PRESET_UTTERANCES: tuple[tuple[str, SubClass], ...] = (
    ("It is important that we both are happy with an agreement.", SubClass.GENERIC_POS),
    ("I gave a little here; you give a little next time.", SubClass.FAVOR_REQUEST),
    ("We should try to split things evenly.", SubClass.GENERIC_POS),
    ("We should each get our most valuable item.", SubClass.GENERIC_POS),
    ("Accept this or there will be consequences.", SubClass.THREAT_NEG),
    ("Your offer sucks.", SubClass.GENERIC_NEG),
    ("This is the last offer. Take it or leave it.", SubClass.THREAT_POS),
    ("This is the very best offer possible.", SubClass.OFFER_PROPOSE),
    ("I can't go any lower than this.", SubClass.OFFER_PROPOSE),
    ("We should try harder to find a deal that benefits us both.", SubClass.GENERIC_POS),
    ("There's hardly any time left to negotiate!", SubClass.TIMING),
)


@dataclass(frozen=True)
class Preference:
    """ "I like issue1 more than issue2" (or best/worst: issue1 only); a query when asked."""

    issue1: int
    relation: Relation
    issue2: int = -1
    query: bool = False

    def text(self, issues: tuple[str, ...]) -> str:
        a = issues[self.issue1]
        b = issues[self.issue2] if self.issue2 >= 0 else ""
        body = {
            Relation.GREATER_THAN: f"like {a} more than {b}",
            Relation.LESS_THAN: f"like {a} less than {b}",
            Relation.EQUAL: f"like {a} as much as {b}",
            Relation.BEST: f"like {a} best",
            Relation.WORST: f"like {a} least",
        }[self.relation]
        return f"Do you {body}?" if self.query else f"I {body}."

    def is_true(self, values: tuple[int, ...]) -> bool:
        """Whether the statement holds for these per-item values."""
        v1 = values[self.issue1]
        if self.relation is Relation.BEST:
            return v1 == max(values)
        if self.relation is Relation.WORST:
            return v1 == min(values)
        v2 = values[self.issue2]
        return {
            Relation.GREATER_THAN: v1 > v2,
            Relation.LESS_THAN: v1 < v2,
            Relation.EQUAL: v1 == v2,
        }[self.relation]


@dataclass(frozen=True)
class Event:
    """One event. ``delay`` (seconds) holds it back before dispatch, to chain events."""

    kind: EventKind
    owner: Owner = "agent"
    text: str = ""
    subclass: SubClass = SubClass.NONE
    code: int = -1
    value: int = -1
    preference: Preference | None = None
    offer: Offer | None = None
    emotion: str = ""
    delay: float = 0.0
    duration: float = 2.0
    elapsed: float = 0.0
    meta: Mapping[str, Any] = field(default_factory=dict, compare=False)

    @property
    def priority(self) -> bool:
        """Offers, accepts, quits, game start/end and preference-carrying messages."""
        k = self.kind
        return k in _PRIORITY or (k is EventKind.SEND_MESSAGE and self.preference is not None)

    @property
    def flushable(self) -> bool:
        """Whether a later priority event may drop this one while it waits."""
        if self.kind in _UNFLUSHABLE:
            return False
        return not (
            self.kind is EventKind.SEND_MESSAGE
            and (self.subclass is not SubClass.NONE or self.value >= 0)
        )

    def owned_by(self, owner: Owner) -> Event:
        """This event sent by ``owner`` (itself when it is already)."""
        if self.owner == owner:
            return self
        e = object.__new__(Event)  # a copy without replace()'s field checks (a hot path)
        e.__dict__.update(self.__dict__)
        object.__setattr__(e, "owner", owner)
        return e

    def describe(self, issues: tuple[str, ...] = ()) -> str:
        """One line for the history."""
        k = self.kind
        if k is EventKind.SEND_MESSAGE:
            if self.preference is not None and issues:
                return self.preference.text(issues)
            if self.subclass is SubClass.BATNA_INFO:
                return self.text or f"I have an alternative worth {self.value} points."
            return self.text
        if k is EventKind.SEND_EXPRESSION:
            return f"[{self.emotion}]"
        if k is EventKind.SEND_OFFER and self.offer is not None:
            return f"offer {self.offer.to_list()}"
        if k is EventKind.TIME:
            return f"time {self.elapsed:g}s"
        return k.name.lower().replace("_", " ")

    def to_json(self) -> dict[str, Any]:
        d: dict[str, Any] = {"kind": self.kind.value, "owner": self.owner}
        if self.text:
            d["text"] = self.text
        if self.subclass is not SubClass.NONE:
            d["subclass"] = self.subclass.value
        if self.code >= 0:
            d["code"] = self.code
        if self.value >= 0:
            d["value"] = self.value
        if self.preference is not None:
            p = self.preference
            d["preference"] = {
                "issue1": p.issue1, "issue2": p.issue2,
                "relation": p.relation.value, "query": p.query,
            }  # fmt: skip
        if self.offer is not None:
            d["offer"] = self.offer.to_list()
        if self.emotion:
            d["emotion"] = self.emotion
        if self.kind is EventKind.TIME:
            d["elapsed"] = self.elapsed
        return d


_PRIORITY = {
    EventKind.SEND_OFFER,
    EventKind.FORMAL_ACCEPT,
    EventKind.FORMAL_QUIT,
    EventKind.GAME_START,
    EventKind.GAME_END,
}
_UNFLUSHABLE = {
    EventKind.FORMAL_ACCEPT,
    EventKind.FORMAL_QUIT,
    EventKind.GAME_START,
    EventKind.GAME_END,
    EventKind.TIME,
}
_SENDABLE = {
    EventKind.SEND_EXPRESSION,
    EventKind.OFFER_IN_PROGRESS,
    EventKind.SEND_OFFER,
    EventKind.SEND_MESSAGE,
    EventKind.FORMAL_ACCEPT,
    EventKind.FORMAL_QUIT,
}


def preset(n: int, owner: Owner = "person") -> Event:
    """The ``n``-th (1..11) preset utterance as a message."""
    if not 1 <= n <= len(PRESET_UTTERANCES):
        raise InvalidEvent(f"preset utterances are numbered 1..{len(PRESET_UTTERANCES)}; got {n}")
    text, sc = PRESET_UTTERANCES[n - 1]
    return Event(EventKind.SEND_MESSAGE, owner, text=text, subclass=sc, code=n)


def page_json(e: Event) -> dict[str, Any]:
    """``e`` as a page sends it (what :func:`event_from_json` reads back).

    >>> e = replace(preset(3), delay=0.5)
    >>> page_json(e), event_from_json(page_json(e), "person") == e
    ({'kind': 'SEND_MESSAGE', 'delay': 0.5, 'preset': 3}, True)
    """
    d: dict[str, Any] = {"kind": e.kind.value, "delay": e.delay}
    if e.kind is EventKind.SEND_EXPRESSION:
        d["emotion"] = e.emotion
    elif e.kind is EventKind.SEND_OFFER and e.offer is not None:
        d["offer"] = e.offer.to_list()
    elif e.kind is EventKind.SEND_MESSAGE:
        n = e.code
        if 1 <= n <= len(PRESET_UTTERANCES) and PRESET_UTTERANCES[n - 1] == (e.text, e.subclass):
            d["preset"] = n
        elif e.preference is not None:
            p = e.preference
            d["preference"] = {"issue1": p.issue1, "relation": p.relation.value,
                               "issue2": p.issue2, "query": p.query}  # fmt: skip
        elif e.subclass is SubClass.BATNA_INFO:
            d["batna"] = e.value
        else:
            d["text"], d["subclass"] = e.text, e.subclass.value
    return d


def event_from_json(raw: Any, owner: Owner) -> Event:
    """An event sent by ``owner`` from its JSON form; :class:`InvalidEvent` says what is wrong."""
    if not isinstance(raw, Mapping):
        raise InvalidEvent(f"an event is a JSON object with a 'kind'; got {type(raw).__name__}")
    name = raw.get("kind")
    try:
        kind = EventKind(name)
    except ValueError:
        raise InvalidEvent(
            f"unknown event kind {name!r}; expected one of {', '.join(k.value for k in _SENDABLE)}"
        ) from None
    if kind not in _SENDABLE:
        raise InvalidEvent(f"{kind.value} is sent by the platform, not by a player")
    delay = _number(raw.get("delay", 0.0), "delay", kind)
    if kind is EventKind.SEND_EXPRESSION:
        emotion = raw.get("emotion")
        if emotion not in EMOTIONS:
            raise InvalidEvent(
                f"SEND_EXPRESSION: emotion must be one of {', '.join(EMOTIONS)}; got {emotion!r}"
            )
        return Event(kind, owner, emotion=str(emotion), delay=delay)
    if kind is EventKind.SEND_OFFER:
        try:
            offer = Offer.of(raw.get("offer"))  # type: ignore[arg-type]
        except (InvalidOffer, TypeError) as exc:
            raise InvalidEvent(f"SEND_OFFER: {exc}") from None
        return Event(kind, owner, offer=offer, delay=delay)
    if kind is EventKind.SEND_MESSAGE:
        return _message(raw, owner, delay)
    return Event(kind, owner, delay=delay)


def _number(v: Any, what: str, kind: EventKind) -> float:
    if isinstance(v, bool) or not isinstance(v, int | float) or not 0 <= v <= 3600:
        raise InvalidEvent(f"{kind.value}: {what} is a number of seconds in [0, 3600]; got {v!r}")
    return float(v)


def _message(raw: Mapping[str, Any], owner: Owner, delay: float) -> Event:
    k = EventKind.SEND_MESSAGE
    if "preset" in raw:
        n = raw["preset"]
        if not isinstance(n, int) or isinstance(n, bool):
            raise InvalidEvent(f"SEND_MESSAGE: preset is a number 1..11; got {n!r}")
        return replace(preset(n, owner), delay=delay)
    if "preference" in raw:
        p = raw["preference"]
        try:
            pref = Preference(
                int(p["issue1"]), Relation(p["relation"]), int(p.get("issue2", -1)),
                bool(p.get("query", False)),
            )  # fmt: skip
        except (KeyError, TypeError, ValueError, AttributeError):
            raise InvalidEvent(
                "SEND_MESSAGE: a preference is {issue1, relation (GREATER_THAN, LESS_THAN, "
                f"EQUAL, BEST, WORST), issue2, query}}; got {p!r}"
            ) from None
        sc = SubClass.PREF_REQUEST if pref.query else SubClass.PREF_INFO
        return Event(k, owner, subclass=sc, preference=pref, delay=delay)
    if "batna" in raw:
        v = raw["batna"]
        if not isinstance(v, int) or isinstance(v, bool) or not 0 <= v <= 10_000:
            raise InvalidEvent(
                f"SEND_MESSAGE: a BATNA claim is a whole number of points; got {v!r}"
            )
        return Event(k, owner, subclass=SubClass.BATNA_INFO, value=v, delay=delay)
    text = raw.get("text")
    if not isinstance(text, str) or not text.strip() or len(text) > 500:
        raise InvalidEvent(
            "SEND_MESSAGE needs 'preset' (1..11), 'preference', 'batna' or 'text' "
            f"(1..500 characters); got {dict(raw)!r}"
        )
    sc_name = raw.get("subclass", "NONE")
    try:
        sc = SubClass(sc_name)
    except ValueError:
        raise InvalidEvent(f"SEND_MESSAGE: unknown subclass {sc_name!r}") from None
    return Event(k, owner, text=text, subclass=sc, delay=delay)
