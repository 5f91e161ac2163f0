"""The game as IAGO runs it, as a pure :class:`~accord.core.protocols.rules.Rules` machine.

:class:`TableRules` adds to the game's rules (:mod:`accord.leagues.han.engine`) the
rules of its running: each agent's inbox and spaced outbox (flood protection,
:mod:`accord.leagues.han.queues`), a TIME event every 5 s, the one-minute warning and
the time limit. It reads no clock and calls no agent: a driver passes the time in
(:meth:`TableRules.tick`), asks the agent the rules name (:meth:`TableRules.to_act`:
the side that must answer an event now) and applies its answer
(:meth:`TableRules.apply`). A person's side (``people``) is not asked: it may act at
any time with one event, which goes out at once, and it hears every event the moment
it is sent. :meth:`TableRules.due` says when the play next changes by itself, so the
agent driver waits (a virtual clock jumps) until then.

An action is a :class:`Move`: the events of one answer (an agent's, possibly none) or
the one event of a person. Answers are checked here, the way IAGO's platform checks
them: garbage, faces outside the allowed set and floods are recorded against the side
and cut; the rest goes out spaced.

    >>> from accord.leagues.han.domain import EXAMPLE_2
    >>> from accord.leagues.han.events import Event, EventKind
    >>> rules = TableRules(people=(1,))
    >>> t = rules.initial(EXAMPLE_2, seed=0)
    >>> t, _ = rules.tick(t, 0.0)
    >>> rules.to_act(t), rules.asked(t, 0).kind.name  # the agent answers GAME_START
    ((0, 1), 'GAME_START')
    >>> hi = Event(EventKind.SEND_EXPRESSION, emotion="happy")
    >>> t, _ = rules.apply(t, 0, Move((hi, hi)), 0.0)
    >>> [(round(s, 1), e.kind.name) for s, e in t.feed], rules.due(t)
    ([(0.0, 'SEND_EXPRESSION')], 1.1)
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from accord.core.protocols.result import Failure, FailureKind
from accord.core.protocols.rules import Event, IllegalAction, Legal, Rules, Visibility
from accord.leagues.han.domain import GameSpec, Role
from accord.leagues.han.engine import GameResult
from accord.leagues.han.events import EMOTIONS, InvalidEvent, event_from_json
from accord.leagues.han.events import Event as HanEvent
from accord.leagues.han.events import EventKind as K
from accord.leagues.han.protocol import HAN_TABLE
from accord.leagues.han.queues import SPACING, InboxFlush, Outbox, Side
from accord.leagues.han.rules import SIDES, HanRules
from accord.leagues.han.tablestate import (
    TICK,
    Move,
    Table,
    ViewData,
    restore_table,
    serialize_table,
)

__all__ = ["MAX_EVENTS_PER_CALL", "SIDES", "TICK", "Move", "Table", "TableRules", "ViewData"]

MAX_EVENTS_PER_CALL = 20
"""Events one answer may hold; more is flooding (recorded, cut)."""
_OTHER: dict[str, Role] = {"agent": "person", "person": "agent"}
_ROLES: tuple[Role, Role, Role, Role] = ("agent", "agent", "person", "person")
PERSON_KINDS = ("event", "leave")
"""The wire actions of a person's side beyond the typed ones: ``event`` (one event, every
the page's JSON: :func:`person_event`) and ``leave``."""


def person_event(raw: Mapping[str, Any]) -> dict[str, Any]:
    """A person's event on the wire: the page's JSON (``kind``, ``delay``, ``emotion``,
    ``offer``, ``preset``, ``preference``, ``batna``, ``text``, ``subclass``; no other key)."""
    return {"kind": "event", "args": {"event": {k: raw[k] for k in _PAGE_KEYS if k in raw}}}


_PAGE_KEYS = ("kind", "delay", "emotion", "offer", "preset", "preference", "batna", "text",
              "subclass")  # fmt: skip


class TableRules(Rules[GameSpec, Table, Move]):
    """The running game (see the module). ``people``: the parties a person plays (0 the
    agent's side, 1 the person's); ``spacing``: seconds between an agent's dispatches;
    ``inbox_flush``: see :data:`~accord.leagues.han.queues.InboxFlush`;
    ``person_menu_only``/``agent_is_person``: as in :class:`~accord.leagues.han.engine.Game`."""

    info = HAN_TABLE

    def __init__(
        self,
        people: Sequence[int] = (),
        *,
        spacing: float = SPACING,
        inbox_flush: InboxFlush = "flushable",
        person_menu_only: bool = True,
        agent_is_person: bool = False,
    ) -> None:
        self.people = (0 in people, 1 in people)
        self._people = tuple(k for k in (0, 1) if self.people[k])
        self.spacing = spacing
        self.inbox_flush = inbox_flush
        self.game_rules = HanRules(person_menu_only, agent_is_person)

    def example(self) -> GameSpec:
        """The 2017 example game 1, 20 ms long (random checks play about 20 actions)."""
        from accord.leagues.han.domain import EXAMPLE_1

        return EXAMPLE_1.with_time(0.02, 0.005)

    def initial(self, setup: GameSpec, seed: int) -> Table:
        g = self.game_rules.initial(setup, seed)
        t = Table(g, self.people, self.spacing, self.inbox_flush)
        for k, role in enumerate(SIDES):
            t.views[role] = ViewData()
            if self.people[k]:
                t.boxes[role] = Outbox(0.0)
            else:
                t.sides[role] = Side(self.spacing, flush=self.inbox_flush)
        return t

    # -- who acts ---------------------------------------------------------------------------
    def to_act(self, state: Table) -> tuple[int, ...]:
        """The agent that must answer now, then the people; () once the game is over."""
        if state.game.ended:
            return ()
        people = self._people if state.people == self.people else _parties(state.people)
        c = state.cursor  # a side is asked only where a step stopped (the cursor's stage)
        if c is not None and state.sides[_ROLES[c[1]]].asking is not None:
            return (c[1] >> 1, *people)
        return people

    def is_over(self, state: Table) -> bool:
        return state.game.ended

    def asked(self, state: Table, party: int) -> HanEvent | None:
        """The event ``party``'s agent must answer now (None: it is not asked)."""
        side = state.sides.get(SIDES[party])
        return None if side is None or state.game.ended else side.asking

    def due(self, state: Table) -> float | None:
        """When the play next changes by itself (seconds since the start); None once over."""
        if state.game.ended:
            return None
        if not state.started:
            return 0.0
        if any(s.asking is not None for s in state.sides.values()):
            return state.now
        return self._next_elapsed(state)

    def legal(self, state: Table, party: int) -> Legal:
        if party not in self.to_act(state):
            return Legal(party, ())
        return self.game_rules.legal(state.game, party)

    # -- time -------------------------------------------------------------------------------
    def tick(self, state: Table, now: float) -> tuple[Table, Sequence[Event]]:
        """Do everything due up to ``now`` in time order, stopping where an agent must
        answer first."""
        cursor = state.cursor
        if cursor is None:
            if now <= state.advanced or state.game.ended:
                return state, ()  # everything up to now is done
        elif state.sides[SIDES[cursor[1] // 2]].asking is not None:
            return state, ()  # nothing moves until the side asked answers
        if state.game.ended:
            return state, ()
        n = len(state.feed)
        self._advance(state, now)
        return state, self._news(state, n)

    def _advance(self, state: Table, now: float) -> None:
        g = state.game
        if not state.started:
            state.started = True
            for role in SIDES:
                self._deliver(state, role, HanEvent(K.GAME_START, "system"), 0.0)
        if state.cursor is not None and not self._resume(state):
            return
        while not g.ended:
            t = self._next_elapsed(state)
            if t > now:
                break
            if not self._step(state, t, 0, None):
                return
        if not g.ended:
            g.tick(now)
            if g.ended:
                self._finish(state, now)
            elif now > state.advanced:
                state.advanced = now

    def _next_elapsed(self, state: Table) -> float:
        t = min(state.next_tick, state.game.spec.total_time)
        for b in state.boxes.values():
            c = b.current  # (its next_due, inlined: a hot path)
            if c is not None and c[1] < t:
                t = c[1]
        now = state.now
        for side in state.sides.values():
            c = side.current
            if c is not None:
                d = c[1]
            elif side.out or side.inbox.queue:
                d = side.free_at
            else:
                continue
            if d < now:
                d = now
            if d < t:
                t = d
        return t

    def _resume(self, state: Table) -> bool:
        assert state.cursor is not None
        t, stage, mark = state.cursor
        return self._step(state, t, stage, mark)

    def _step(self, state: Table, t: float, stage: int, mark: int | None) -> bool:
        """Everything due at ``t`` from ``stage`` on (0/1: the agent's side's outbox and
        loop, 2/3: the person's, 4: the tick); False if it stopped to ask a side."""
        g = state.game
        if t > state.now:
            state.now = t
        state.cursor = None
        if stage == 0:
            g.tick(t)
            if g.ended:
                self._finish(state, t)
                return True
        for s, role, box, side in _plan(state):
            if s < stage:
                continue
            if box is not None:
                ev = box.pop_due(t)
                if ev is not None:
                    self._dispatch(state, ev, t)
                    if g.ended:
                        return True
                continue
            assert side is not None
            before = side.overflow if mark is None or s != stage else mark
            mark = None
            asks = side.current is None and t >= side.free_at and side.work(t)
            if asks and not g.ended:
                state.cursor = (t, s, before)
                return False
            ev = side.pop_due(t)
            if side.overflow > before:
                g.refuse(role, t, f"flooding: {side.overflow - before} events dropped")
            if ev is not None:
                self._dispatch(state, ev, t)
            if g.ended:
                return True
        if t >= state.next_tick:
            state.next_tick += TICK
            tick = HanEvent(K.TIME, "system", elapsed=t)
            for role in SIDES:
                self._deliver(state, role, tick, t)
        return True

    # -- actions ----------------------------------------------------------------------------
    def apply(
        self, state: Table, party: int, action: Move, now: float
    ) -> tuple[Table, Sequence[Event]]:
        if party not in (0, 1):
            raise IllegalAction(party, action, "party 0 is the agent's side, 1 the person's")
        if not isinstance(action, Move):
            raise IllegalAction(party, action, "an action is a Move of the game")
        role = SIDES[party]
        if state.game.ended:
            raise IllegalAction(party, action, "the game is over")
        if not state.people[party]:  # (to_act, for one party: a hot path)
            side = state.sides.get(role)
            if side is None or side.asking is None:
                raise IllegalAction(party, action, "this side is not asked now")
        n = len(state.feed)
        if action.leave and state.people[party]:
            self.leave(state, party, now)
        elif state.people[party]:
            self._submit(state, party, action, now)
        else:
            good = self._checked(state, role, action.events)
            t = state.cursor[0] if state.cursor is not None else state.now
            self._answered(state, role, good)
            self._advance(state, max(now, state.now))
            return state, _News(state.feed, n, (party, t, len(good)))
        return state, self._news(state, n)

    def _submit(self, state: Table, party: int, action: Move, now: float) -> None:
        """A person's event: queued at ``now`` (after everything due before it)."""
        role = SIDES[party]
        events = action.events
        if not (isinstance(events, tuple | list) and len(events) == 1):
            raise IllegalAction(party, action, "a person's move is one event")
        ev = events[0]
        if not isinstance(ev, HanEvent):
            raise IllegalAction(party, action, "a person's move is one Event of the game")
        self._advance(state, now)
        if not state.game.ended:
            state.boxes[role].push([ev.owned_by(role)], now)
            self._advance(state, now)

    def _answered(self, state: Table, role: Role, events: list[HanEvent]) -> None:
        side = state.sides[role]
        asked = side.asking
        t = state.cursor[0] if state.cursor is not None else state.now
        if asked is not None:
            self._heard(state, role, asked, t)
        side.answered(events, t)

    def _checked(self, state: Table, role: Role, out: Any) -> list[HanEvent]:
        if out is None or (type(out) is list and not out):
            return []  # nothing to say (most answers: a tick)
        g, t = state.game, state.cursor[0] if state.cursor is not None else state.now
        if not isinstance(out, list | tuple):
            g.refuse(role, t, f"on_event returns a list of Event; got {type(out).__name__}")
            return []
        good = [e.owned_by(role) for e in out if isinstance(e, HanEvent)]
        if len(good) != len(out):
            g.refuse(role, t, f"on_event returned {len(out) - len(good)} non-Event items")
        for e in [e for e in good if e.kind is K.SEND_EXPRESSION]:
            if e.emotion not in EMOTIONS:  # shown to people: only the allowed faces
                g.refuse(
                    role, t, f"emotion must be one of {', '.join(EMOTIONS)}; got {e.emotion!r}"
                )
                good.remove(e)
        if len(good) > MAX_EVENTS_PER_CALL:
            g.refuse(
                role,
                t,
                f"flooding: {len(good)} events in one answer (at most {MAX_EVENTS_PER_CALL})",
            )
            good = good[:MAX_EVENTS_PER_CALL]
        return good

    def fail(
        self, state: Table, party: int, failure: Failure, now: float
    ) -> tuple[Table, Sequence[Event]]:
        """An agent's failure: its question is answered with nothing and the failure
        recorded; a timeout (late, or its process gone) ends the game with both BATNAs."""
        role = SIDES[party]
        n = len(state.feed)
        if state.game.ended:
            return state, ()
        t = state.cursor[0] if state.cursor is not None else state.now
        state.game.refuse(role, t, failure.message)
        side = state.sides.get(role)
        if failure.kind is FailureKind.TIMEOUT:
            state.game.leave(role, t)
            self._finish(state, t)
        elif side is not None and side.asking is not None:
            self._answered(state, role, [])
            self._advance(state, max(now, state.now))
        return state, self._news(state, n)

    def refuse(self, state: Table, party: int, reason: str, now: float) -> None:
        """Record an event of ``party`` that could not even be read (the game goes on)."""
        state.game.refuse(SIDES[party], now, reason)

    def leave(self, state: Table, party: int, now: float) -> None:
        """``party`` left for good: the game ends now with both BATNAs (outcome ``left``)."""
        self._advance(state, now)
        if not state.game.ended:
            state.cursor = None
            state.game.leave(SIDES[party], now)
            self._finish(state, now)

    # -- the running ------------------------------------------------------------------------
    def _dispatch(self, state: Table, ev: HanEvent, t: float) -> None:
        g = state.game
        n = len(g.history)
        g.apply(ev, t)
        if len(g.history) == n and not g.ended:
            return  # refused: recorded against the sender
        state.feed.append((t, ev))
        owner: Role = ev.owner  # type: ignore[assignment]
        if ev.kind is K.SEND_EXPRESSION:
            state.expression[owner] = (ev.emotion, t + ev.duration)
        if ev.kind is K.SEND_OFFER:
            state.views[owner].offer = ev.offer
        if g.ended:
            self._finish(state, t)
            return
        self._deliver(state, _OTHER[owner], ev, t)

    def _deliver(self, state: Table, role: Role, ev: HanEvent, t: float) -> None:
        side = state.sides.get(role)
        if side is not None:
            side.inbox.put(ev, t)
        else:
            self._heard(state, role, ev, t)

    def _heard(self, state: Table, role: Role, ev: HanEvent, t: float) -> None:
        view = state.views[role]
        view.elapsed = t
        if ev.kind is not K.TIME:
            view.heard.append(ev)
        if ev.kind is K.SEND_OFFER:
            view.offer = ev.offer

    def _finish(self, state: Table, t: float) -> None:
        state.cursor = None
        for box in state.boxes.values():
            box.clear()
        for side in state.sides.values():
            side.clear()
        state.feed.append((t, HanEvent(K.GAME_END, "system", elapsed=t)))
        for role in SIDES:
            state.views[role].elapsed = t

    def _news(self, state: Table, since: int) -> Sequence[Event]:
        return _News(state.feed, since) if len(state.feed) > since else ()

    # -- what a side sees, the result, the wire -------------------------------------------
    def observe(self, state: Table, party: int | None) -> dict[str, Any]:
        out = self.game_rules.observe(state.game, party)
        out["feed"] = [[t, e.to_json()] for t, e in state.feed]
        out["now"] = state.now
        if party is not None:
            view = state.views[SIDES[party]]
            out["known_offer"] = None if view.offer is None else view.offer.to_list()
            asked = self.asked(state, party)
            out["asked"] = None if asked is None else asked.to_json()
        return out

    def result(self, state: Table) -> GameResult | None:
        return state.game.result if state.game.ended else None

    def serialize(self, state: Table) -> dict[str, Any]:
        return serialize_table(self.game_rules, state)

    def restore(self, data: Mapping[str, Any]) -> Table:
        return restore_table(self.game_rules, data)

    def action_to_json(self, state: Table, action: Move) -> dict[str, Any]:
        if action.leave:
            return {"kind": "leave", "args": {}}
        events = list(action.events) if isinstance(action.events, list | tuple) else []
        if len(events) == 1 and isinstance(events[0], HanEvent):
            return self.game_rules.action_to_json(state.game, events[0])
        return {"kind": "answer", "args": {"events": [_wire(e) for e in events]}}

    def action_from_json(self, state: Table, party: int, data: Any) -> Move:
        if isinstance(data, Mapping) and data.get("kind") == "answer" and not state.people[party]:
            # an agent's answer of several events (or none): each read as the game reads one
            if party not in self.to_act(state):
                raise IllegalAction(party, data, "this side is not asked now")
            raw = (
                data.get("args", {}).get("events")
                if isinstance(data.get("args"), Mapping)
                else None
            )
            if not isinstance(raw, list) or len(raw) > 1000:
                raise IllegalAction(party, data, "an answer is a list of events")
            from accord.leagues.han.isolation import decode_event

            try:
                return Move(tuple(decode_event(e).owned_by(SIDES[party]) for e in raw))
            except InvalidEvent as exc:
                raise IllegalAction(party, data, str(exc)) from None
        if isinstance(data, Mapping) and data.get("kind") in PERSON_KINDS and state.people[party]:
            return self._person_move(state, party, data)
        self.legal(state, party).require(party, data)
        return Move((self.game_rules.action_from_json(state.game, party, data),))

    def _person_move(self, state: Table, party: int, data: Mapping[str, Any]) -> Move:
        """A person's ``event`` (the page's JSON, read by
        :func:`~accord.leagues.han.events.event_from_json`; the game checks it when it goes
        out, as IAGO does, and records a refusal against the side) or ``leave``."""
        if party not in self.to_act(state):
            raise IllegalAction(party, data, "the game is over")
        if data["kind"] == "leave":
            return Move((), leave=True)
        args = data.get("args")
        try:
            event = event_from_json(args.get("event") if isinstance(args, Mapping) else None,
                                    SIDES[party])  # fmt: skip
        except InvalidEvent as exc:
            raise IllegalAction(party, data, str(exc)) from None
        return Move((event,))


_Stage = tuple[int, Role, Outbox | None, Side | None]


def _plan(state: Table) -> tuple[_Stage, ...]:
    """The stages of a step this table has (an outbox or a side's loop, each role's), in
    order: made once (the table's outboxes and sides are fixed when it is made)."""
    plan: tuple[_Stage, ...] | None = state.plan
    if plan is None:
        stages: list[_Stage] = []
        for s, role in enumerate(_ROLES):
            box = state.boxes.get(role) if not s & 1 else None
            side = state.sides.get(role) if s & 1 else None
            if box is not None or side is not None:
                stages.append((s, role, box, side))
        plan = state.plan = tuple(stages)
    return plan


class _News(Sequence[Event]):
    """The events of a call: what went out on ``feed`` from ``since`` (and, for an
    agent's answer, an organiser-only ``answered`` event: the answer always changes the
    play, even with nothing sent, so a driver keeps it), made only when read (the agent
    driver never reads them)."""

    def __init__(
        self, feed: list[tuple[float, HanEvent]], since: int,
        answer: tuple[int, float, int] | None = None,
    ) -> None:  # fmt: skip
        self._feed, self._span, self._answer = feed, (since, len(feed)), answer
        self._made: list[Event] | None = None

    def _events(self) -> list[Event]:
        if self._made is None:
            lo, hi = self._span
            made = [
                Event(e.kind.value, SIDES.index(e.owner) if e.owner in SIDES else None,
                      {"t": t, **e.to_json()})
                for t, e in self._feed[lo:hi]
            ]  # fmt: skip
            if self._answer is not None:
                party, t, n = self._answer
                said = {"t": t, "events": n}
                made.append(Event("answered", party, said, Visibility.OPERATOR))
            self._made = made
        return self._made

    def __len__(self) -> int:
        return self._span[1] - self._span[0] + (self._answer is not None)

    def __getitem__(self, k: Any) -> Any:
        return self._events()[k]

    def __iter__(self) -> Iterator[Event]:
        return iter(self._events())


def _parties(people: tuple[bool, bool]) -> tuple[int, ...]:
    return tuple(k for k in (0, 1) if people[k])


def _wire(e: Any) -> Any:
    from accord.leagues.han.isolation import encode_event

    return encode_event(e) if isinstance(e, HanEvent) else repr(e)[:200]
