"""The GENIUS partial-offer protocol as a :class:`~accord.core.protocols.rules.Rules` machine.

The state is a :class:`~accord.leagues.genius.protocol.GeniusSession` whose clock is the
time the driver passes in. Two schedules:

- **asks** (agent runs, ``asks_per_turn`` set, 3 by default): the parties are asked in
  alternation, the first ask of a turn going to ``turn % 2``; an answer is a batch of
  actions (possibly empty). A turn ends after ``2 * asks_per_turn`` asks or two quiet
  asks in a row, and the session's time moves to the next turn; time passed in is not
  used (a virtual clock of turns, as agent runs have always had). An invalid action in
  a batch, a wrong answer or an agent's failure is recorded against its sender (an
  invalid action), and the session goes on.
- **live** (``asks_per_turn=None``, people): both parties may act at any time with one
  action each; the driver's ``now`` is the session's time; an invalid action is refused
  (:class:`~accord.core.protocols.rules.IllegalAction`) and changes nothing. An agent
  at a live table (the KBAgent against a person) answers with a batch (a tuple, possibly
  empty) as in the asks schedule: its actions are submitted in turn, and an invalid one
  is recorded against it (an agent's failure is an outcome; a person's mistake is
  refused). On the wire (the web driver's log) such an answer is one ``batch`` of the
  league's JSON actions (:meth:`GeniusRules.action_to_json`); ``legal()`` never offers
  it, so no page sends one.

    >>> from accord.leagues.genius.loading import load_domain
    >>> from accord.leagues.genius.protocol import Action
    >>> rules = GeniusRules()
    >>> s = rules.initial(GeniusSetup(load_domain("job_candidate"), (0, 0)), seed=0)
    >>> rules.to_act(s)
    (0,)
    >>> s, events = rules.apply(s, 0, (Action.make_offer({"Salary": "12,000 NIS"}),), 0.0)
    >>> [e.kind for e in events], rules.to_act(s)
    (['offer'], (1,))
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from accord.core import protocols
from accord.core.capabilities import OptsOut, ProposesPartial
from accord.core.errors import InvalidScenario, ProtocolViolation
from accord.core.protocols.result import Action as CoreAction
from accord.leagues.genius.domain import Domain
from accord.leagues.genius.protocol import (
    COMMENTS,
    THREATS,
    Action,
    EndReason,
    GeniusResult,
    GeniusSession,
    Kind,
    Offer,
    Phase,
    VirtualClock,
)
from accord.leagues.genius.protocol import Event as GEvent
from accord.leagues.genius.protocol import Rules as Settings

__all__ = ["GENIUS_PARTIAL", "MAX_ACTIONS", "GeniusRules", "GeniusSetup", "GeniusState"]

GENIUS_PARTIAL = protocols.ProtocolInfo(
    "genius-partial-v1",
    "GENIUS partial offers with opt-out",
    protocols.TurnStyle.SEQUENTIAL,
    frozenset({CoreAction.OFFER, CoreAction.ACCEPT, CoreAction.REJECT, CoreAction.END}),
    min_parties=2,
    max_parties=2,
    needs=(ProposesPartial, OptsOut),
    description="partial offers build a running agreement; opt-out; the deadline "
    "implements the partial agreement (the KBAgent paper's protocol)",
)


MAX_ACTIONS = 20
"""Most actions one ask may return; more is an invalid action."""

Batch = tuple[Action, ...]


@dataclass(frozen=True)
class GeniusSetup:
    """A session's domain and the two sides' types."""

    domain: Domain
    types: tuple[int, int] = (0, 0)


@dataclass
class GeniusState:
    """The session, its clock and (asks schedule) where the turn's asks stand."""

    session: GeniusSession
    clock: VirtualClock
    asks: int = 0
    quiet: int = 0
    ended_seen: bool = False
    failure: protocols.Failure | None = None


class GeniusRules(protocols.Rules[GeniusSetup, GeniusState, "Action | Batch"]):
    """The protocol under ``settings`` (turns, turn length, deadline and open-issue rules)."""

    info = GENIUS_PARTIAL

    def __init__(
        self,
        settings: Settings | None = None,
        asks_per_turn: int | None = 3,
        failure_ends: bool = False,
    ) -> None:
        self.settings = settings if settings is not None else Settings(turn_seconds=1.0)
        self.asks_per_turn = asks_per_turn
        self.failure_ends = failure_ends

    @property
    def live(self) -> bool:
        """Both parties act at any time on the time passed in (people)."""
        return self.asks_per_turn is None

    def example(self) -> GeniusSetup:
        """The bundled job-candidate domain, first types (for checks and demos)."""
        from accord.leagues.genius.loading import load_domain

        return GeniusSetup(load_domain("job_candidate"), (0, 0))

    def initial(self, setup: GeniusSetup, seed: int) -> GeniusState:
        clock = VirtualClock()
        session = GeniusSession(setup.domain, setup.types, self.settings, clock)
        session.start()
        return GeniusState(session, clock)

    def to_act(self, state: GeniusState) -> tuple[int, ...]:
        s = state.session
        if s.result is not None:
            return ()
        if self.live:
            return (0, 1)
        return ((s.turn + state.asks) % 2,)

    def legal(self, state: GeniusState, party: int) -> protocols.Legal:
        if party not in self.to_act(state):
            return protocols.Legal(party, ())
        s = state.session
        d = s.domain
        open_ids = tuple(o.id for o in s.open_offers(party))
        values = tuple(
            protocols.ActionField(i.name, protocols.FieldKind.CHOICE, options=("", *i.values))
            for i in d.issues
        )
        specs = [
            protocols.ActionSpec("offer", values, "offer (leave an issue empty to keep it open)")
        ]
        if open_ids:
            pick = (protocols.ActionField("offer", protocols.FieldKind.CHOICE, options=open_ids),)
            specs += [protocols.ActionSpec("accept", pick), protocols.ActionSpec("reject", pick)]
        specs.append(protocols.ActionSpec("opt_out"))
        for kind, texts in (("comment", COMMENTS), ("threat", THREATS)):
            field = protocols.ActionField(
                "index", protocols.FieldKind.CHOICE, options=tuple(range(len(texts)))
            )
            specs.append(protocols.ActionSpec(kind, (field,)))
        if not self.live:
            specs.append(protocols.ActionSpec("wait", (), "nothing this ask"))
        return protocols.Legal(party, tuple(specs))

    def apply(
        self, state: GeniusState, party: int, action: Action | Batch, now: float
    ) -> tuple[GeniusState, Sequence[protocols.Event]]:
        s = state.session
        if party not in self.to_act(state):
            raise protocols.IllegalAction(party, action, f"party {party} is not asked now")
        if self.live:
            self._set_time(state, now)
            if isinstance(action, tuple):  # an agent's answer: each action in turn
                n = len(s.events)
                for a in action:
                    s.submit(party, a)
                return state, self._events(state, n)
            if not isinstance(action, Action):
                raise protocols.IllegalAction(party, action, "one action at a time")
            n = len(s.events)
            try:
                s.apply_checked(party, action)
            except (ProtocolViolation, InvalidScenario) as exc:
                raise protocols.IllegalAction(party, action, str(exc)) from None
            return state, self._events(state, n)
        if not isinstance(action, list | tuple) or len(action) > MAX_ACTIONS:
            raise protocols.IllegalAction(party, action, f"expected an Action, got {_what(action)}")
        n = len(s.events)
        state.asks += 1
        state.quiet = 0 if action else state.quiet + 1
        for a in action:
            s.submit(party, a)
            if s.result is not None:
                break
        self._roll(state)
        return state, self._events(state, n)

    def tick(self, state: GeniusState, now: float) -> tuple[GeniusState, Sequence[protocols.Event]]:
        if not self.live or state.session.result is not None:
            return state, ()
        n = len(state.session.events)
        self._set_time(state, now)
        state.session.tick()
        return state, self._events(state, n)

    def fail(
        self, state: GeniusState, party: int, failure: protocols.Failure, now: float
    ) -> tuple[GeniusState, Sequence[protocols.Event]]:
        """Recorded against ``party`` as an invalid action (with the asks schedule it is
        that party's ask, a quiet one); the session goes on. With ``failure_ends`` (core
        negotiators in a tournament) the session ends on the failure instead."""
        s = state.session
        n = len(s.events)
        if self.live:
            self._set_time(state, now)
            s.tick()
        if self.failure_ends and s.result is None:
            state.failure = failure
            s.end_failed(party)
            return state, self._events(state, n)
        if failure.kind is protocols.FailureKind.EXCEPTION:
            s.submit(party, f"agent raised {failure.message}")
        else:
            s.record_invalid(party, "invalid", failure.message)
        if not self.live and s.result is None:
            state.asks += 1
            state.quiet += 1
            self._roll(state)
        return state, self._events(state, n)

    def observe(self, state: GeniusState, party: int | None) -> dict[str, Any]:
        """A side sees its own type (not the other's), the offers, the running agreement
        and the valid actions; a spectator sees both types and every event."""
        s = state.session
        out: dict[str, Any] = {
            "domain": s.domain.name,
            "side": party,
            "turn": s.turn,
            "turns": s.rules.turns,
            "period": s.period,
            "elapsed": s.elapsed,
            "agreement": s.agreement,
            "offers": [_offer_json(o) for o in s.offers],
            "events": [e.to_dict() for e in s.events if party is None or e.ok or e.party == party],
        }
        if party is None:
            out["types"] = list(s.types)
        else:
            out["type"] = s.types[party]
        if s.result is not None:
            out["result"] = s.result.to_dict()
        return out

    def result(self, state: GeniusState) -> GeniusResult | None:
        return state.session.result

    def serialize(self, state: GeniusState) -> dict[str, Any]:
        s = state.session
        return {
            "domain": s.domain.to_dict(),
            "types": list(s.types),
            "clock": state.clock.now,
            "started": s.started,
            "asks": state.asks,
            "quiet": state.quiet,
            "offers": [_offer_json(o) for o in s.offers],
            "events": [e.to_dict() for e in s.events],
            "agreement": s.agreement_row.tolist(),
            "invalid": list(s.invalid),
            "phase": s.phase.value,
            "result": None if s.result is None else s.result.to_dict(),
            **({} if state.failure is None else {"failure": _failure_json(state.failure)}),
        }

    def restore(self, data: Mapping[str, Any]) -> GeniusState:
        clock = VirtualClock(float(data["clock"]))
        domain = Domain.from_dict(data["domain"], str(data["domain"].get("name", "domain")))
        types = (int(data["types"][0]), int(data["types"][1]))
        s = GeniusSession(domain, types, self.settings, clock)
        s.phase = Phase(data["phase"])
        s._started = float(data["started"])
        s.offers = [_offer_of(o, domain) for o in data["offers"]]
        s.events = [GEvent(**e) for e in data["events"]]
        s.agreement_row = np.array(data["agreement"], dtype=np.int64)
        s.invalid = [int(x) for x in data["invalid"]]
        r = data["result"]
        if r is not None:
            s.result = GeniusResult(
                reason=EndReason(r["reason"]), agreement=tuple(r["agreement"]),
                full=bool(r["full"]), turn=int(r["turn"]), ended_by=r["ended_by"],
                utilities=(float(r["utilities"][0]), float(r["utilities"][1])),
                types=types, invalid=(int(r["invalid"][0]), int(r["invalid"][1])),
                events=tuple(s.events),
            )  # fmt: skip
        f = data.get("failure")
        failure = None if f is None else protocols.Failure(f["party"], f["name"], protocols.FailureKind(f["kind"]),
                                                 f["message"])  # fmt: skip
        return GeniusState(
            s, clock, int(data["asks"]), int(data["quiet"]), s.result is not None, failure
        )

    def action_to_json(self, state: GeniusState, action: Action | Batch) -> dict[str, Any]:
        if self.live and not isinstance(action, Action):  # an agent's answer, as logged
            return {"kind": "batch", "args": {"actions": [_item_json(a) for a in action]}}
        if not isinstance(action, Action):
            if not action:
                return {"kind": "wait", "args": {}}
            action = action[0]
        k = action.kind
        if k is Kind.OFFER:
            values = dict(action.values or {})
            names = state.session.domain.issue_names
            return {"kind": "offer", "args": {n: values.get(n, "") for n in names}}
        if k in (Kind.ACCEPT, Kind.REJECT):
            return {"kind": k.value, "args": {"offer": action.offer}}
        if k in (Kind.COMMENT, Kind.THREAT):
            return {"kind": k.value, "args": {"index": action.index}}
        return {"kind": k.value, "args": {}}

    def action_from_json(self, state: GeniusState, party: int, data: Any) -> Action | Batch:
        if self.live and isinstance(data, Mapping) and data.get("kind") == "batch":
            return _batch_of(party, data)
        self.legal(state, party).require(party, data)
        kind, args = data["kind"], data["args"]
        if kind == "wait":
            return ()
        if kind == "offer":
            values = {k: v for k, v in args.items() if v != ""}
            if not values:
                raise protocols.IllegalAction(
                    party, data, "an offer gives a value to at least one issue"
                )
            action = Action.make_offer(values)
        elif kind in ("accept", "reject"):
            action = Action(Kind(kind), offer=int(args["offer"]))
        elif kind in ("comment", "threat"):
            action = Action(Kind(kind), index=int(args["index"]))
        else:
            action = Action.opt_out()
        return action if self.live else (action,)

    # -- internals ------------------------------------------------------------------------
    def _set_time(self, state: GeniusState, now: float) -> None:
        if math.isfinite(now) and now > state.clock.now:
            state.clock.now = float(now)

    def _roll(self, state: GeniusState) -> None:
        """After an ask: the turn ends after its asks or two quiet ones (time moves on)."""
        s = state.session
        if s.result is not None or self.asks_per_turn is None:
            return
        if state.asks >= 2 * self.asks_per_turn or state.quiet >= 2:
            step = s.rules.turn_seconds
            state.clock.advance(step - state.clock.now % step)
            state.asks = state.quiet = 0
            s.tick()

    def _events(self, state: GeniusState, since: int) -> tuple[protocols.Event, ...]:
        """The session's events from ``since`` on, and ``end`` once it is over (the
        deadline ends it without an action of its own)."""
        s = state.session
        out = [protocols.Event(e.kind, e.party, e.to_dict()) for e in s.events[since:]]
        if s.result is not None and (state.ended_seen is False):
            state.ended_seen = True
            out.append(protocols.Event("end", None, s.result.to_dict()))
        return tuple(out)


def _item_json(a: Any) -> dict[str, Any]:
    """One action of an agent's answer in the league's JSON form (anything else: its
    description, replayed as an invalid action)."""
    if isinstance(a, Action):
        out = {"kind": a.kind.value, "values": a.values, "offer": a.offer, "index": a.index}
        return {k: v for k, v in out.items() if v is not None}
    return {"kind": "invalid", "what": _what(a)[:500]}


def _batch_of(party: int, data: Mapping[str, Any]) -> Batch:
    """An agent's logged answer (:func:`_item_json` of each action) as the rules take it;
    an item that is no action comes back as text, which the session records as invalid."""
    items = data.get("args", {}).get("actions") if isinstance(data.get("args"), Mapping) else None
    if not isinstance(items, list) or len(items) > MAX_ACTIONS:
        why = f"a batch is at most {MAX_ACTIONS} actions; got {_what(items)[:200]}"
        raise protocols.IllegalAction(party, data, why)
    out: list[Any] = []
    for item in items:
        try:
            out.append(Action.from_json(item))
        except (ProtocolViolation, InvalidScenario):
            what = item.get("what") if isinstance(item, Mapping) else None
            out.append(f"replayed invalid action: {what or _what(item)[:200]}")
    return tuple(out)


def _what(out: Any) -> str:
    return f"{type(out).__name__}: {out!r}"


def _offer_json(o: Offer) -> dict[str, Any]:
    return {
        "id": o.id, "party": o.party, "values": dict(o.values), "turn": o.turn,
        "answer": None if o.answer is None else o.answer.value,
    }  # fmt: skip


def _offer_of(d: Mapping[str, Any], domain: Domain) -> Offer:
    answer = None if d["answer"] is None else Kind(d["answer"])
    return Offer(
        int(d["id"]), int(d["party"]), domain.row_of(d["values"]), dict(d["values"]),
        int(d["turn"]), answer,
    )  # fmt: skip


def _failure_json(f: protocols.Failure) -> dict[str, Any]:
    return {"party": f.party, "name": f.name, "kind": f.kind.value, "message": f.message}
