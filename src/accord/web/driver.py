"""The web driver: any :class:`~accord.core.protocols.rules.Rules` played by people in a
browser, beside agents, on :mod:`accord.web`.

A :class:`RulesGame` is a service for :func:`~accord.web.app.create_app` (so it gets the
safety baseline: CSP, request bounds, idempotent actions, the one error body). Each
person's seat has a party index and a secret token (its link: ``/?party=0&token=...``);
the routes are

- ``GET /api/state``: what the party may see (``rules.observe``), what it may do now
  (``rules.legal``: the typed actions a page builds its form from, and their JSON
  Schema), the events it may see, and the play's ``version`` (how many changes it has
  had: a page drops an answer older than the one it shows, as answers may overtake
  each other);
- ``POST /api/act``: one action on the wire (``{"kind": ..., "args": {...}}``), checked
  by ``rules.action_from_json`` before it touches the play (a refusal is a 422 saying
  why; the play is unchanged);
- ``GET /api/live``: server-sent events: the party's ``GET /api/state`` as a ``state``
  event, sent again after every committed change, when the rules say the play next
  changes by itself and every heartbeat, until the play is over
  (:meth:`~accord.web.live.Live.follow`; :mod:`accord.web.playroutes` writes the three
  routes, for the leagues' pages too).

Agents sit in the other seats (any :class:`~accord.core.protocols.driver.Seat`, built
by ``seats(state)``); they act in a worker thread after each change, never inside a
person's request nor under the play's lock, one question at a time, and a failing
agent is recorded through ``rules.fail``. Where the rules let people act at any time,
a person may act while an agent thinks: the agent's answer is still played. Rules
that change by themselves (:meth:`Rules.due`: events spaced in time) are woken when
due. A seat may have ``prepare(state, party)`` (read the state under the lock, return
the call to make outside it) and ``recall(state, party, action)`` (on a resume, a
fresh agent hears again each question it was asked, so its memory is rebuilt). Every call
of the rules is appended to the :class:`~accord.web.store.EventLog` (``start`` with the
serialized first state, then ``act``/``tick``), so :meth:`RulesGame.resume` rebuilds
the play after a restart by replaying the log (``wall_time``: the time the server was
down counts). ``static/play`` is a page that plays any
rules from these routes alone: its panels are those the rules name (``Rules.panels``:
the offers and the offer on the table for offer protocols, the state and the events
otherwise).
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import secrets
import threading
from collections.abc import AsyncIterator, Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from fastapi import APIRouter, Depends, Query

from accord.core.protocols.driver import Seat, SlowCall, failure_of
from accord.core.protocols.result import Failure, FailureKind
from accord.core.protocols.rules import Event, IllegalAction, Rules
from accord.web.clock import Clock, RealClock
from accord.web.errors import WebError
from accord.web.live import Live
from accord.web.playroutes import WireAction, play_routes
from accord.web.store import EventLog

__all__ = ["PLAY_PAGE", "RulesGame", "WireAction"]

PLAY_PAGE = Path(__file__).resolve().parent / "static" / "play"
"""The page that plays any rules through a :class:`RulesGame` (panels: ``Rules.panels``)."""

SeatFactory = Callable[[Any], Mapping[int, Seat]]


class RulesGame:
    """One play of ``rules`` served to people (see the module).

    Args:
        rules: the protocol's rules.
        setup: what the play is set up from.
        people: the party indices people play (each gets a token).
        seats: ``seats(state) -> {party: Seat}`` for the other parties (agents).
        log: the event log (its stream ``stream`` holds this play).
        seed: the rules' seed.
        clock: the server's clock (real, or virtual in tests).
        names: the parties' names (for failures); default ``party k``.
        tokens: the people's tokens by party (default: fresh random ones).
        on_change: called after every change, under the play's lock (keep it short) and
            in the same transaction of the log's file as the change's record (a study
            keeps its own records in step: pages told, what an agent keeps, a round
            completed); if it raises, the record is rolled back (rebuild the play from
            the log).
        agent_seconds: an agent's call slower than this is its failure (a timeout,
            recorded through ``rules.fail``); None: no limit here (a sandboxed seat has
            its own per-call deadline).
        wall_time: the play's time is the wall time since its start, so the time a
            server was down counts on a resume (a deadline that passed meanwhile has
            passed; the log's wall times are the start's, so give the log this clock);
            by default the clock stops while no server runs.
        recall: on a resume, the seats are built from the first state and each hears
            again every question it was asked (``seat.recall(state, party, action)``,
            its answer as recorded), so a fresh agent rebuilds its memory; by default
            they are built from the replayed state.
        loop: the event loop that wakes the play when the rules say it changes by
            itself (:meth:`Rules.due`); set by :meth:`open`, or given for a play made
            after start-up. Without one, time moves only on requests.
    """

    def __init__(
        self,
        rules: Rules[Any, Any, Any],
        setup: Any,
        people: Sequence[int],
        seats: SeatFactory,
        log: EventLog,
        *,
        seed: int = 0,
        clock: Clock | None = None,
        names: Sequence[str] = (),
        tokens: Mapping[int, str] | None = None,
        stream: str = "play",
        live: Live | None = None,
        on_change: Callable[[], None] | None = None,
        agent_seconds: float | None = None,
        wall_time: bool = False,
        recall: bool = False,
        loop: asyncio.AbstractEventLoop | None = None,
    ) -> None:
        self.rules = rules
        self.people = tuple(people)
        self.log = log
        self.stream = stream
        self.clock: Clock = clock or RealClock()
        self.live = live or Live()
        self.tokens = dict(tokens) if tokens else {p: secrets.token_urlsafe(16) for p in people}
        self.loop = loop
        self._names = tuple(names)
        self._lock = threading.RLock()
        self._idle = threading.Condition(self._lock)
        self._on_change = on_change
        self.agent_seconds = agent_seconds
        self._driving = False  # a thread is letting the agents act
        self._again = False  # a change came while it did: it looks once more
        self._closed = False  # closed: its agents' answers are dropped
        self._ended = False  # the seats heard the end
        self._timer: float | None = None  # when the play is woken next (see _schedule)
        self._offset = 0.0
        self._ticked = 0.0
        self._version = 0
        self._epoch = 0  # changes not made by a person (an agent's answer outlives the others)
        earlier = log.read(stream)
        self.recall = recall
        if earlier:
            self.state = rules.restore(earlier[0].data["state"])
            self.seats = dict(seats(self.state)) if recall else {}
            self._replay(earlier)
            if not recall:
                self.seats = dict(seats(self.state))
            if wall_time:  # the play started at the start record's wall time
                self._offset = max(self._offset, self.clock.wall() - earlier[0].at)
        else:
            self.state = rules.initial(setup, seed)
            self.seats = dict(seats(self.state))
            log.append(stream, "start", {"state": rules.serialize(self.state), "seed": seed})
        self._t0 = self.clock.now() - self._offset
        if earlier and recall and not rules.to_act(self.state):
            self._end_seats()  # a rebuilt agent hears the end it heard before

    @classmethod
    def resume(
        cls, rules: Rules[Any, Any, Any], log: EventLog, people: Sequence[int], **kw: Any
    ) -> RulesGame:
        """The play the log's stream holds, rebuilt by replaying it."""
        if not log.read(kw.get("stream", "play")):
            raise WebError(404, "there is no play in this log to resume")
        return cls(rules, None, people, kw.pop("seats"), log, **kw)

    def _replay(self, events: Sequence[Any]) -> None:
        """Fold the log into the state; an agent's seat that can (``recall``) hears
        each question it was asked again, so a fresh agent rebuilds its memory."""
        rules = self.rules
        self._version = len(events) - 1  # one per change recorded after the start
        for e in events[1:]:
            now = float(e.data["now"])
            self._offset = max(self._offset, now)
            if e.kind == "tick":
                self.state, _ = rules.tick(self.state, now)
            elif e.kind == "act":
                self.state, _ = rules.tick(self.state, float(e.data["tick"]))
                party = int(e.data["party"])
                action = rules.action_from_json(self.state, party, e.data["action"])
                self._recall(party, action)
                self.state, _ = rules.apply(self.state, party, action, now)
            elif e.kind == "fail":
                f = e.data["failure"]
                failure = Failure(
                    party=f["party"],
                    name=f["name"],
                    kind=FailureKind(f["kind"]),
                    message=f["message"],
                )
                if failure.kind is not FailureKind.TIMEOUT and f.get("asked", True):
                    self._recall(failure.party, None)  # asked, and failed (not: hung)
                self.state, _ = rules.fail(self.state, failure.party, failure, now)

    def _recall(self, party: int, action: Any) -> None:
        recall = getattr(self.seats.get(party), "recall", None)
        if callable(recall):
            with contextlib.suppress(Exception):  # its memory, not the play: never fails it
                recall(self.state, party, action)

    # -- the play ------------------------------------------------------------------------
    def now(self) -> float:
        """Seconds since the play started (continuing across a resume)."""
        return self.clock.now() - self._t0

    @property
    def t0(self) -> float:
        """The clock's reading at the play's time 0 (:meth:`now` is ``clock.now() - t0``)."""
        return self._t0

    def _name(self, party: int) -> str:
        return self._names[party] if party < len(self._names) else f"party {party}"

    @property
    def version(self) -> int:
        """How many changes the play has had (its ``version`` in :meth:`view`)."""
        return self._version

    @property
    def lock(self) -> threading.RLock:
        """The play's lock (held while the play changes; never over an agent's call)."""
        return self._lock

    def _record(
        self, kind: str, data: dict[str, Any], events: Sequence[Event], person: bool = False
    ) -> None:
        shown = [e.to_json() for e in events]
        self._version += 1
        if not person:
            self._epoch += 1
        with _one_transaction(self.log):
            self.log.append(self.stream, kind, {**data, "events": shown})
            if self._on_change is not None:
                self._on_change()
            # the pages hear of it once it is in the file (the transaction may be a
            # caller's, around more than this change; a rollback tells no one)
            self.log.file.after_commit(self._woken)

    def _woken(self) -> None:
        self.live.wake(self.stream)

    def _tick(self) -> None:
        now = self._ticked = self.now()
        self.state, events = self.rules.tick(self.state, now)
        events = list(events)
        if events:
            self._record("tick", {"now": now}, events)

    def tick(self) -> None:
        """Tell the rules the time now (a deadline may end the play)."""
        with self._lock:
            self._tick()

    def act(self, party: int, data: Any) -> None:
        """A person's wire action (:class:`IllegalAction` if it is not allowed now).

        It may come while an agent thinks (rules where people act at any time): the
        agent's answer is still played when it comes (see :meth:`run_agents`).
        """
        with self._lock:
            self._tick()
            action = self.rules.action_from_json(self.state, party, data)
            now = self.now()
            self.state, events = self.rules.apply(self.state, party, action, now)
            record = {"party": party, "action": data, "now": now, "tick": self._ticked}
            self._record("act", record, list(events), person=True)

    def fail(self, party: int, kind: FailureKind, message: str) -> None:
        """Record a failure of ``party`` now through ``rules.fail`` (kept in the log and
        replayed): for rules that count a person's unreadable requests against them."""
        with self._lock:
            self._tick()
            failure = Failure(party, self._name(party), kind, message)
            self._fail(failure, self.now(), asked=False)

    def run_agents(self, limit: int = 10_000, *, wait: bool = False) -> None:
        """Let the agents act while the rules ask one of them.

        An agent thinks outside the lock, so pages are answered meanwhile, and people
        may act if the rules let them. Its answer is played if it is still asked when it
        answers and nothing but people's actions changed the play meanwhile; if the play
        moved on otherwise (a deadline passed), its answer is dropped. One caller at a
        time runs the agents (each agent is asked one question at a time); another
        caller meanwhile makes it look again, and with ``wait`` waits until it is done
        (a page that wants the agents' answers before it shows the play).
        """
        with self._idle:
            if self._driving:
                self._again = True
                while wait and self._driving:
                    self._idle.wait()
                return
            self._driving = True
        try:
            while True:
                self._run(limit)
                with self._idle:
                    if not self._again:
                        self._driving = False
                        self._idle.notify_all()
                        break
                    self._again = False
        except BaseException:
            with self._idle:
                self._driving = self._again = False
                self._idle.notify_all()
            raise
        self._end_seats()
        self._schedule()

    def kick(self) -> None:
        """Bring the play to now and let the agents act in a worker thread, if one is
        asked (nothing waits for them); else make sure the play is woken when due."""
        with self._lock:
            self._tick()
            asked = any(p in self.seats for p in self.rules.to_act(self.state))
            if asked and self._driving:
                self._again = True
                return
        if asked:
            threading.Thread(target=self.run_agents, daemon=True).start()
        else:
            self._schedule()

    def _run(self, limit: int) -> None:
        rules = self.rules
        for _ in range(limit):
            with self._lock:
                self._tick()
                k = next((p for p in rules.to_act(self.state) if p in self.seats), None)
                if k is None:
                    return
                epoch = self._epoch
                call = self._question(k)
            started = self.now()
            error: Exception | None = None
            try:
                action = call()
            except Exception as exc:  # noqa: BLE001 - an agent's failure, recorded below
                action, error = None, exc
            took = self.now() - started
            if error is None and self.agent_seconds is not None and took > self.agent_seconds:
                limit_s = self.agent_seconds
                action, error = None, SlowCall(f"took {took:.1f} s; the limit is {limit_s:g} s")
            with self._lock:
                if self._closed:
                    return
                if self._epoch != epoch or k not in rules.to_act(self.state):
                    continue  # the play moved on while it thought: its answer is dropped
                if error is None:
                    now = self.now()
                    try:
                        data = rules.action_to_json(self.state, action)
                        self.state, events = rules.apply(self.state, k, action, now)
                    except IllegalAction as exc:
                        error = exc
                    else:
                        if not events:  # it let the moment pass: nothing to keep; asked
                            return  # again at the next change or call (rules where
                            # people act at any time ask an agent all the while)
                        record = {"party": k, "action": data, "now": now, "tick": self._ticked}
                        self._record("act", record, list(events))
                        continue
                if isinstance(error, IllegalAction):
                    failure = Failure(k, self._name(k), FailureKind.INVALID, error.reason)
                else:
                    failure = failure_of(k, self._name(k), error)
                self._fail(failure, started)

    def _question(self, k: int) -> Callable[[], Any]:
        """The call that asks party ``k``'s seat (made under the lock: a seat with
        ``prepare`` reads the state now, and the call reads nothing the play changes)."""
        seat, state = self.seats[k], self.state
        prepare = getattr(seat, "prepare", None)
        if callable(prepare):
            call: Callable[[], Any] = prepare(state, k)
            return call
        return lambda: seat.act(state, k)

    def _end_seats(self) -> None:
        """Once the play is over, every seat hears the result (outside the lock)."""
        with self._lock:
            if self._ended or self.rules.to_act(self.state):
                return
            self._ended = True
            result = self.rules.result(self.state)
        for seat in self.seats.values():
            with contextlib.suppress(Exception):  # a failing end hook changes nothing
                seat.end(result)

    def _schedule(self) -> None:
        """Wake the play when the rules say it next changes by itself."""
        loop = self.loop
        if loop is None or loop.is_closed() or self._closed:
            return
        with self._lock:
            due = self.rules.due(self.state) if self.rules.to_act(self.state) else None
            if due is None or (self._timer is not None and self._timer <= due):
                return
            self._timer = due
            delay = max(0.0, due - self.now())
        asyncio.run_coroutine_threadsafe(self._wake(due, delay), loop)

    async def _wake(self, due: float, delay: float) -> None:
        await self.clock.sleep(delay)
        with self._lock:
            if self._timer == due:
                self._timer = None
        await asyncio.to_thread(self.run_agents)

    def _fail(self, failure: Failure, now: float, asked: bool = True) -> None:
        self.state, events = self.rules.fail(self.state, failure.party, failure, now)
        f = {
            "party": failure.party,
            "name": failure.name,
            "kind": failure.kind.value,
            "message": failure.message,
            "asked": asked,
        }
        self._record("fail", {"failure": f, "now": now}, list(events), person=not asked)

    def view(self, party: int) -> dict[str, Any]:
        """What ``party`` sees now: observation, allowed actions, visible events."""
        with self._lock:
            self._tick()
            legal = self.rules.legal(self.state, party)
            events = [
                ev
                for e in self.log.read(self.stream, kinds=("act", "tick", "fail"))
                for ev in e.data.get("events", [])
                if Event.from_json(ev).visible_to(party)
            ]
            info = self.rules.info
            to_act = self.rules.to_act(self.state)
            return {
                "protocol": info.id,
                "info": {"id": info.id, "name": info.name, "turns": info.turns.value},
                "panels": list(self.rules.panels),
                "names": [
                    self._name(k) for k in range(max(len(self._names), info.min_parties, party + 1))
                ],
                "to_act": list(to_act),
                "party": party,
                "observation": self.rules.observe(self.state, party),
                "legal": legal.to_json(),
                "schema": legal.schema(),
                "events": events,
                "over": not to_act,
                "result": None if to_act else _shown(self.rules.result(self.state)),
                "version": self._version,
            }

    # -- HTTP ----------------------------------------------------------------------------
    def _check(self, party: int, token: str) -> None:
        want = self.tokens.get(party)
        if want is None or not hmac.compare_digest(want.encode(), token.encode()):
            raise WebError(403, f"no seat for party {party} with this token")

    def follow(self, party: int) -> AsyncIterator[str]:
        """``party``'s :meth:`view` as server-sent ``state`` events: read again after
        every committed change, when the rules say the play next changes by itself and
        every heartbeat of :attr:`live`, until the play is over (read in a worker thread,
        under the play's lock only: never while an agent is asked)."""
        return self.live.follow(
            self.stream,
            lambda: self.view(party),
            clock=self.clock,
            due_in=self._due_in,
            done=lambda view: bool(view["over"]),
        )

    def _due_in(self) -> float:
        """Seconds until the rules say the play next changes by itself (inf: never)."""
        with self._lock:
            due = self.rules.due(self.state) if self.rules.to_act(self.state) else None
            return float("inf") if due is None else due - self.now()

    def router(self) -> APIRouter:
        """The routes (see the module): :func:`~accord.web.playroutes.play_routes` with
        a party's seat found from its ``party`` and ``token``."""

        def seat(party: int = Query(ge=0, le=64), token: str = Query(max_length=64)) -> int:
            self._check(party, token)
            return party

        r = APIRouter(prefix="/api", tags=["play"])
        return play_routes(r, Depends(seat), _Page(self), after=lambda _: self.run_agents())

    async def open(self) -> None:
        """At start-up: the play wakes itself when due, and agents that open it act."""
        self.loop = asyncio.get_running_loop()
        threading.Thread(target=self.run_agents, daemon=True).start()

    def close(self) -> None:
        """At shut-down: end the live streams; an answer an agent is still thinking about
        is dropped (the play takes no more of its agents' actions)."""
        with self._lock:
            self._closed = True
        self.live.close()


class _Page:
    """A :class:`RulesGame` as the play routes see it (``who``: a party index)."""

    def __init__(self, game: RulesGame) -> None:
        self.game = game

    def state(self, party: int) -> dict[str, Any]:
        return self.game.view(party)

    def act(self, party: int, body: WireAction) -> dict[str, Any]:
        self.game.act(party, body.model_dump())  # the agents answer after (router's after)
        return self.game.view(party)

    def follow(self, party: int) -> AsyncIterator[str]:
        return self.game.follow(party)


@contextlib.contextmanager
def _one_transaction(log: EventLog) -> Iterator[None]:
    """One transaction of the log's file, unless this thread has one open already."""
    file = log.file
    with file.lock:
        if file.conn.in_transaction:  # ours: the file's lock is held through a transaction
            yield
            return
        with file.transaction(immediate=True):
            yield


def _shown(result: Any) -> Any:
    """A result as JSON-ready data (``to_dict()`` where it has one)."""
    to_dict = getattr(result, "to_dict", None)
    return to_dict() if callable(to_dict) else result
