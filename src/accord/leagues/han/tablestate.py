"""The running game's state (:class:`Table`, see :mod:`accord.leagues.han.table`), its
actions (:class:`Move`), and the state as JSON and back.

Every field of every queued event is kept (its delay, its face's duration), so a
restored table runs on exactly as the one serialized; ``-inf`` (a side never busy) is
written as None.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from accord.leagues.han.domain import GameSpec, Offer, Role
from accord.leagues.han.engine import Game
from accord.leagues.han.events import Event, EventKind, Preference, Relation, SubClass
from accord.leagues.han.queues import SPACING, InboxFlush, Outbox, Side

if TYPE_CHECKING:
    from accord.leagues.han.rules import HanRules

__all__ = ["Move", "Table", "ViewData", "event_of", "event_to", "restore_table", "serialize_table"]

TICK = 5.0
"""Seconds between two TIME events."""


@dataclass(frozen=True)
class Move:
    """One action: the events of an agent's answer (any number, checked by the rules)
    or the one event of a person. ``events`` is what the side returned, as it was."""

    events: Any = ()
    leave: bool = False
    """A person leaves for good (``events`` is then empty): the game ends now with both
    BATNAs (outcome ``left``)."""


@dataclass
class ViewData:
    """What one side has learnt: the events it heard (not the ticks), the offer it knows
    of, the game time it last heard at (an agent's :class:`~accord.leagues.han.api.GameView`
    follows it)."""

    heard: list[Event] = field(default_factory=list)
    offer: Offer | None = None
    elapsed: float = 0.0


@dataclass
class Table:
    """The state: the game and its running (the sides' queues, the feed both saw)."""

    game: Game
    people: tuple[bool, bool]
    spacing: float = SPACING
    flush: InboxFlush = "flushable"
    started: bool = False
    now: float = 0.0
    next_tick: float = TICK
    sides: dict[Role, Side] = field(default_factory=dict)
    boxes: dict[Role, Outbox] = field(default_factory=dict)
    views: dict[Role, ViewData] = field(default_factory=dict)
    feed: list[tuple[float, Event]] = field(default_factory=list)
    expression: dict[Role, tuple[str, float]] = field(default_factory=dict)
    cursor: tuple[float, int, int] | None = None
    """While a side is asked mid-step: (step time, stage, outbox overflow at its start)."""
    plan: Any = field(default=None, repr=False, compare=False)
    """The stages of a step (see :mod:`accord.leagues.han.table`; made on first use)."""
    advanced: float = float("-inf")
    """Everything due up to this time is done (a tick to it changes nothing); not kept
    when serialized (a restored table works it out again)."""

    @property
    def spec(self) -> GameSpec:
        return self.game.spec

    def elapsed(self) -> float:
        return self.now


def event_to(e: Event) -> dict[str, Any]:
    """Every field of ``e`` as JSON (:func:`event_of` reads it back)."""
    p = e.preference
    return {
        "kind": e.kind.value, "owner": e.owner, "text": e.text, "subclass": e.subclass.value,
        "code": e.code, "value": e.value,
        "preference": None if p is None else [p.issue1, p.relation.value, p.issue2, p.query],
        "offer": None if e.offer is None else e.offer.to_list(), "emotion": e.emotion,
        "delay": e.delay, "duration": e.duration, "elapsed": e.elapsed,
    }  # fmt: skip


def event_of(d: Mapping[str, Any]) -> Event:
    """The event :func:`event_to` wrote."""
    p = d["preference"]
    pref = None if p is None else Preference(int(p[0]), Relation(p[1]), int(p[2]), bool(p[3]))
    return Event(
        EventKind(d["kind"]), d["owner"], d["text"], SubClass(d["subclass"]), int(d["code"]),
        int(d["value"]), pref, None if d["offer"] is None else Offer.of(d["offer"]),
        d["emotion"], float(d["delay"]), float(d["duration"]), float(d["elapsed"]),
    )  # fmt: skip


def _t(x: float) -> float | None:
    return None if x == float("-inf") else x


def _t_of(x: Any) -> float:
    return float("-inf") if x is None else float(x)


def _current(c: tuple[Event, float] | None) -> list[Any] | None:
    return None if c is None else [event_to(c[0]), c[1]]


def _current_of(c: Any) -> tuple[Event, float] | None:
    return None if c is None else (event_of(c[0]), float(c[1]))


def serialize_table(rules: HanRules, t: Table) -> dict[str, Any]:
    """The running table as JSON-ready data (:func:`restore_table` reads it back)."""
    sides = {
        role: {
            "inbox": [event_to(e) for e in s.inbox.queue],
            "dropped": [[at, event_to(e)] for at, e in s.inbox.dropped],
            "out": [event_to(e) for e in s.out],
            "current": _current(s.current),
            "free_at": _t(s.free_at),
            "flushed": s.flushed,
            "overflow": s.overflow,
            "asking": None if s.asking is None else event_to(s.asking),
        }  # fmt: skip
        for role, s in t.sides.items()
    }
    boxes = {
        role: {
            "queue": [event_to(e) for e in b.queue],
            "current": _current(b.current),
            "free_at": _t(b.free_at),
            "flushed": b.flushed,
            "dropped": b.dropped,
        }  # fmt: skip
        for role, b in t.boxes.items()
    }
    views = {
        role: {
            "heard": [event_to(e) for e in v.heard],
            "elapsed": v.elapsed,
            "offer": None if v.offer is None else v.offer.to_list(),
        }  # fmt: skip
        for role, v in t.views.items()
    }
    return {
        "game": rules.serialize(t.game), "people": list(t.people), "spacing": t.spacing,
        "flush": t.flush, "started": t.started, "now": t.now, "next_tick": t.next_tick,
        "sides": sides, "boxes": boxes, "views": views,
        "feed": [[at, event_to(e)] for at, e in t.feed],
        "expression": {r: list(x) for r, x in t.expression.items()},
        "cursor": None if t.cursor is None else list(t.cursor),
    }  # fmt: skip


def restore_table(rules: HanRules, d: Mapping[str, Any]) -> Table:
    """The table that :func:`serialize_table` wrote, as it was."""
    p = d["people"]
    t = Table(rules.restore(d["game"]), (bool(p[0]), bool(p[1])), float(d["spacing"]), d["flush"])
    t.started, t.now, t.next_tick = bool(d["started"]), float(d["now"]), float(d["next_tick"])
    for role, s in d["sides"].items():
        side = Side(t.spacing, flush=t.flush)
        side.inbox.queue = deque(event_of(e) for e in s["inbox"])
        side.inbox.dropped = [(float(at), event_of(e)) for at, e in s["dropped"]]
        side.out = deque(event_of(e) for e in s["out"])
        side.current = _current_of(s["current"])
        side.free_at = _t_of(s["free_at"])
        side.flushed, side.overflow = int(s["flushed"]), int(s["overflow"])
        side.asking = None if s["asking"] is None else event_of(s["asking"])
        t.sides[role] = side
    for role, b in d["boxes"].items():
        box = Outbox(0.0)
        box.queue = deque(event_of(e) for e in b["queue"])
        box.current = _current_of(b["current"])
        box.free_at = _t_of(b["free_at"])
        box.flushed, box.dropped = int(b["flushed"]), int(b["dropped"])
        t.boxes[role] = box
    for role, v in d["views"].items():
        offer = None if v["offer"] is None else Offer.of(v["offer"])
        t.views[role] = ViewData([event_of(e) for e in v["heard"]], offer, float(v["elapsed"]))
    t.feed = [(float(at), event_of(e)) for at, e in d["feed"]]
    t.expression = {r: (str(x[0]), float(x[1])) for r, x in d["expression"].items()}
    c = d["cursor"]
    t.cursor = None if c is None else (float(c[0]), int(c[1]), int(c[2]))
    return t
