"""The :class:`Rules` contract: a protocol as a pure rule machine that drivers run.

A :class:`Rules` object is the game (OpenSpiel's ``Game``); the state it makes is the
play (OpenSpiel's ``State``). The rules never read a clock, never call an agent and do
no I/O: a *driver* asks them who acts (:meth:`Rules.to_act`), what that party may do
(:meth:`Rules.legal`), hands them the action with the time (:meth:`Rules.apply`),
tells them that time passed (:meth:`Rules.tick`) or that an agent failed
(:meth:`Rules.fail`), and reads what a party may see (:meth:`Rules.observe`) and the
result (:meth:`Rules.result`). Three drivers are written once on top: the agent
driver (agents, time limits, the sandbox), the replay driver (golden playthroughs and
:func:`accord.drivers.replay.check_rules`, the conformance check) and the web driver
(a person in a browser).

Time is what the driver passes as ``now``: seconds since the play started, from a real
or a virtual clock. Every event is an :class:`Event` (kind, party, JSON data,
visibility). What a party may do now is a :class:`Legal` description, data a web page
turns into a form and a JSON Schema, and :meth:`Legal.check` validates a wire action
against. An action the rules refuse raises :class:`IllegalAction` with the reason,
leaving the state as it was.

A whole protocol fits in one short file. Here is "race to five": two parties take
turns adding 1 or 2 to a running total; whoever reaches 5 wins.

    >>> from dataclasses import dataclass
    >>> @dataclass
    ... class Race:
    ...     total: int = 0
    ...     turn: int = 0
    ...     winner: int | None = None
    >>> class RaceRules(Rules[None, Race, int]):
    ...     info = ProtocolInfo("race-v1", "race to five", TurnStyle.SEQUENTIAL,
    ...                         frozenset(), min_parties=2, max_parties=2)
    ...     def initial(self, setup, seed): return Race()
    ...     def to_act(self, s): return () if s.winner is not None else (s.turn,)
    ...     def legal(self, s, party):
    ...         if party not in self.to_act(s): return Legal(party, ())
    ...         step = ActionField("step", FieldKind.CHOICE, options=(1, 2))
    ...         return Legal(party, (ActionSpec("add", (step,)),))
    ...     def apply(self, s, party, action, now):
    ...         if party not in self.to_act(s) or action not in (1, 2):
    ...             raise IllegalAction(party, action, "add 1 or 2, in turn")
    ...         s.total += action
    ...         s.turn = 1 - party
    ...         if s.total >= 5: s.winner = party
    ...         return s, (Event("add", party, {"step": action, "total": s.total}),)
    ...     def fail(self, s, party, failure, now):
    ...         s.winner = 1 - party
    ...         return s, (Event("failure", party, {"kind": failure.kind.value}),)
    ...     def observe(self, s, party): return {"total": s.total, "turn": s.turn}
    ...     def result(self, s): return None if s.winner is None else {"winner": s.winner}
    ...     def serialize(self, s): return {"total": s.total, "turn": s.turn, "winner": s.winner}
    ...     def restore(self, data): return Race(**data)
    ...     def action_to_json(self, s, action): return {"kind": "add", "args": {"step": action}}
    ...     def action_from_json(self, s, party, data):
    ...         self.legal(s, party).require(party, data)
    ...         return int(data["args"]["step"])
    >>> rules = RaceRules()
    >>> s = rules.initial(None, seed=0)
    >>> for party, step in [(0, 2), (1, 2), (0, 1)]:
    ...     s, events = rules.apply(s, party, step, now=0.0)
    >>> rules.result(s), events[0].data
    ({'winner': 0}, {'step': 1, 'total': 5})
    >>> rules.apply(s, 1, 1, now=0.0)
    Traceback (most recent call last):
    ...
    accord.core.protocols.rules.IllegalAction: party 1 may not play 1: add 1 or 2, in turn
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Generic, TypeVar

from accord.core.errors import ProtocolViolation
from accord.core.protocols.base import ProtocolInfo, TurnStyle
from accord.core.protocols.result import Failure

__all__ = [
    "ActionField",
    "ActionSpec",
    "Event",
    "FieldKind",
    "IllegalAction",
    "Legal",
    "Rules",
    "Visibility",
]

SetupT = TypeVar("SetupT")
StateT = TypeVar("StateT")
ActionT = TypeVar("ActionT")


class IllegalAction(ProtocolViolation):
    """An action the rules refuse; ``reason`` says why (the state is unchanged)."""

    def __init__(self, party: int, action: Any, reason: str) -> None:
        self.party = party
        self.action = action
        self.reason = reason
        super().__init__(f"party {party} may not play {_short(action)}: {reason}")


def _short(action: Any, limit: int = 200) -> str:
    text = repr(action)
    return text if len(text) <= limit else text[: limit - 3] + "..."


class Visibility(StrEnum):
    """Who may see an event."""

    PUBLIC = "public"
    """Every party (and a spectator)."""
    PARTY = "party"
    """Only the event's own party."""
    OPERATOR = "operator"
    """No party: the organiser's log only."""


@dataclass(frozen=True, slots=True)
class Event:
    """Something that happened: its ``kind``, the ``party`` it concerns (None: the
    protocol itself), JSON-able ``data`` and who may see it.

        >>> e = Event("offer", 1, {"outcome": ["a"]}, Visibility.PARTY)
        >>> e.visible_to(1), e.visible_to(0), Event.from_json(e.to_json()) == e
        (True, False, True)
    """

    kind: str
    party: int | None = None
    data: Mapping[str, Any] = field(default_factory=dict)
    visibility: Visibility = Visibility.PUBLIC

    def visible_to(self, party: int | None) -> bool:
        """True if ``party`` (None: a spectator) may see this event."""
        vis = self.visibility
        if vis is Visibility.PUBLIC:
            return True
        return vis is Visibility.PARTY and party is not None and party == self.party

    def to_json(self) -> dict[str, Any]:
        """The event as JSON-ready data."""
        return {
            "kind": self.kind,
            "party": self.party,
            "data": dict(self.data),
            "visibility": self.visibility.value,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Event:
        """The event :meth:`to_json` wrote."""
        return cls(data["kind"], data["party"], data["data"], Visibility(data["visibility"]))


class FieldKind(StrEnum):
    """The type of one argument of an action."""

    CHOICE = "choice"
    """One of ``options`` (JSON scalars)."""
    INTEGER = "integer"
    """A whole number in ``[low, high]``."""
    NUMBER = "number"
    """A finite number in ``[low, high]``."""
    TEXT = "text"
    """A string of at most ``max_length`` characters."""


@dataclass(frozen=True)
class ActionField:
    """One argument of an action: its name, type and bounds.

    >>> f = ActionField("Drink", FieldKind.CHOICE, options=("Beer", "Tea"))
    >>> f.problem("Tea"), f.problem("Gin")
    (None, "Drink must be one of ['Beer', 'Tea']; got 'Gin'")
    >>> ActionField("price", FieldKind.NUMBER, low=0, high=10).schema()
    {'title': 'price', 'type': 'number', 'minimum': 0, 'maximum': 10}
    """

    name: str
    kind: FieldKind
    options: tuple[Any, ...] = ()
    low: float | None = None
    high: float | None = None
    max_length: int | None = None
    label: str = ""

    def schema(self) -> dict[str, Any]:
        """The JSON Schema of the argument."""
        out: dict[str, Any] = {"title": self.label or self.name}
        kind = self.kind
        if kind is FieldKind.CHOICE:
            out["enum"] = list(self.options)
            return out
        out["type"] = "string" if kind is FieldKind.TEXT else kind.value
        if self.low is not None:
            out["minimum"] = self.low
        if self.high is not None:
            out["maximum"] = self.high
        if self.max_length is not None:
            out["maxLength"] = self.max_length
        return out

    def problem(self, value: Any) -> str | None:
        """Why ``value`` is not a valid argument, or None if it is."""
        kind, name = self.kind, self.name
        if kind is FieldKind.CHOICE:
            # bool is an int in Python; JSON keeps them apart, and so do we.
            if any(type(value) is type(o) and value == o for o in self.options):
                return None
            return f"{name} must be one of {list(self.options)}; got {_short(value, 80)}"
        if kind is FieldKind.TEXT:
            if not isinstance(value, str):
                return f"{name} must be text; got {_short(value, 80)}"
            if self.max_length is not None and len(value) > self.max_length:
                return f"{name} must be at most {self.max_length} characters; got {len(value)}"
            return None
        ok = type(value) is int or (kind is FieldKind.NUMBER and type(value) is float)
        if not ok or (type(value) is float and not math.isfinite(value)):
            return f"{name} must be a finite {kind.value}; got {_short(value, 80)}"
        if (self.low is not None and value < self.low) or (
            self.high is not None and value > self.high
        ):
            return f"{name} must be in [{self.low}, {self.high}]; got {value}"
        return None

    def to_json(self) -> dict[str, Any]:
        """The argument's description as JSON-ready data."""
        return {
            "name": self.name,
            "kind": self.kind.value,
            "options": list(self.options),
            "low": self.low,
            "high": self.high,
            "max_length": self.max_length,
            "label": self.label or self.name,
        }


@dataclass(frozen=True)
class ActionSpec:
    """One kind of action a party may take now, with its arguments.

    On the wire an action is ``{"kind": kind, "args": {field name: value}}``.
    """

    kind: str
    fields: tuple[ActionField, ...] = ()
    label: str = ""

    def schema(self) -> dict[str, Any]:
        """The JSON Schema of this action on the wire."""
        return {
            "title": self.label or self.kind,
            "type": "object",
            "properties": {
                "kind": {"const": self.kind},
                "args": {
                    "type": "object",
                    "properties": {f.name: f.schema() for f in self.fields},
                    "required": [f.name for f in self.fields],
                    "additionalProperties": False,
                },
            },
            "required": ["kind", "args"],
            "additionalProperties": False,
        }

    def to_json(self) -> dict[str, Any]:
        """The description as JSON-ready data (what a web page builds its form from)."""
        return {
            "kind": self.kind,
            "label": self.label or self.kind,
            "fields": [f.to_json() for f in self.fields],
        }


@dataclass(frozen=True)
class Legal:
    """What ``party`` may do now: one :class:`ActionSpec` per kind of action (none
    when it is not the party's turn or the play is over).

        >>> offer = ActionSpec("offer", (ActionField("x", FieldKind.CHOICE, options=("a", "b")),))
        >>> legal = Legal(0, (offer, ActionSpec("end")))
        >>> legal.kinds, legal.problem({"kind": "offer", "args": {"x": "c"}})
        (('offer', 'end'), "x must be one of ['a', 'b']; got 'c'")
        >>> legal.problem({"kind": "accept", "args": {}})
        "'accept' is not allowed now; allowed: offer, end"
    """

    party: int
    actions: tuple[ActionSpec, ...]

    @property
    def kinds(self) -> tuple[str, ...]:
        """The kinds of action allowed, in order."""
        return tuple(a.kind for a in self.actions)

    def spec(self, kind: str) -> ActionSpec | None:
        """The description of action ``kind``, or None if it is not allowed now."""
        for a in self.actions:
            if a.kind == kind:
                return a
        return None

    def schema(self) -> dict[str, Any]:
        """The JSON Schema every allowed wire action matches (``oneOf`` the kinds)."""
        return {"oneOf": [a.schema() for a in self.actions]}

    def problem(self, data: Any) -> str | None:
        """Why the wire action ``data`` is not allowed now, or None if it is."""
        if not isinstance(data, Mapping) or set(data) != {"kind", "args"}:
            return f'an action is {{"kind": ..., "args": {{...}}}}; got {_short(data, 120)}'
        kind, args = data["kind"], data["args"]
        spec = self.spec(kind) if isinstance(kind, str) else None
        if spec is None:
            allowed = ", ".join(self.kinds) or "nothing (not this party's turn)"
            return f"{_short(kind, 60)} is not allowed now; allowed: {allowed}"
        if not isinstance(args, Mapping):
            return f"args must be an object; got {_short(args, 80)}"
        names = [f.name for f in spec.fields]
        if set(args) != set(names):
            return f"{kind} takes arguments {names}; got {sorted(map(str, args))}"
        for f in spec.fields:
            problem = f.problem(args[f.name])
            if problem is not None:
                return problem
        return None

    def require(self, party: int, data: Any) -> None:
        """Raise :class:`IllegalAction` unless the wire action ``data`` is allowed."""
        problem = self.problem(data)
        if problem is not None:
            raise IllegalAction(party, data, problem)

    def to_json(self) -> dict[str, Any]:
        """The description as JSON-ready data."""
        return {"party": self.party, "actions": [a.to_json() for a in self.actions]}


class Rules(ABC, Generic[SetupT, StateT, ActionT]):
    """A protocol's rules: pure functions of an explicit state (see the module).

    ``SetupT`` is what a play is set up from (the outcome space, utilities and deadline
    of a negotiation), ``StateT`` the state, ``ActionT`` an action as the rules take it
    (what :meth:`action_from_json` makes of the wire form). States may be mutable
    objects that :meth:`apply` changes in place (that is fast), but only once the
    action is known to be legal: an :class:`IllegalAction` leaves the state as it was.
    """

    info: ProtocolInfo
    """What the protocol is and supports (its versioned id is stored with results)."""

    panels: tuple[str, ...] = ("state", "events")
    """What a page showing a play of these rules puts beside the action forms
    (the web driver's play page reads it): ``state`` (the observation as text) and
    ``events`` (the events the party saw) for any rules; offer protocols show ``clock``
    (round and time), ``standing`` (the offer on the table) and ``offers`` (every offer,
    with the party's own utility)."""

    @abstractmethod
    def initial(self, setup: SetupT, seed: int) -> StateT:
        """A new play; every random draw of the rules comes from ``seed``."""

    @abstractmethod
    def to_act(self, state: StateT) -> tuple[int, ...]:
        """The parties that must act now, in the order they are asked; () once over."""

    @abstractmethod
    def legal(self, state: StateT, party: int) -> Legal:
        """What ``party`` may do now (no actions when it is not asked to act)."""

    @abstractmethod
    def apply(
        self, state: StateT, party: int, action: ActionT, now: float
    ) -> tuple[StateT, Sequence[Event]]:
        """Play ``action`` of ``party`` at ``now`` seconds; the new state and events.

        Raises :class:`IllegalAction` (state unchanged) if the action is not allowed.
        """

    def due(self, state: StateT) -> float | None:
        """When the play next changes by itself (seconds since it started), for rules
        that may ask nobody for a while before the end (a game whose events are spaced
        in time): the agent driver waits until then. None (the default): only actions
        change the play."""
        return None

    def tick(self, state: StateT, now: float) -> tuple[StateT, Sequence[Event]]:
        """Tell the rules that ``now`` seconds have passed (a wall-clock deadline may end
        the play). The default: time changes nothing."""
        return state, ()

    @abstractmethod
    def fail(
        self, state: StateT, party: int, failure: Failure, now: float
    ) -> tuple[StateT, Sequence[Event]]:
        """What an agent's failure (exception, invalid action, timeout) does to the play."""

    @abstractmethod
    def observe(self, state: StateT, party: int | None) -> dict[str, Any]:
        """What ``party`` (None: a spectator) may see now, as JSON-ready data."""

    @abstractmethod
    def result(self, state: StateT) -> Any:
        """The result once the play is over, else None."""

    @abstractmethod
    def serialize(self, state: StateT) -> dict[str, Any]:
        """The state as JSON-ready data (:meth:`restore` reads it back)."""

    @abstractmethod
    def restore(self, data: Mapping[str, Any]) -> StateT:
        """The state :meth:`serialize` wrote."""

    @abstractmethod
    def action_to_json(self, state: StateT, action: ActionT) -> dict[str, Any]:
        """``action`` (legal in ``state``) on the wire: ``{"kind": ..., "args": {...}}``."""

    @abstractmethod
    def action_from_json(self, state: StateT, party: int, data: Any) -> ActionT:
        """The action a wire form stands for; :class:`IllegalAction` if it is not
        allowed now (check it with ``self.legal(state, party).require(party, data)``)."""

    def example(self) -> SetupT:
        """A small setup to check the rules on and to demonstrate them (the conformance
        check and the golden playthroughs use it). Rules that take no setup need not
        override it."""
        return None  # type: ignore[return-value]

    # -- conveniences every driver uses ---------------------------------------------------
    def is_over(self, state: StateT) -> bool:
        """True once nobody is asked to act (rules with :meth:`due` say it themselves)."""
        return not self.to_act(state)

    def turns(self) -> TurnStyle:
        """Who acts in one step (from :attr:`info`)."""
        return self.info.turns
