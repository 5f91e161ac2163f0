"""A session with people on a wall clock: agent opponents, saved after every change, resumable.

:class:`LiveSession` is one play of :class:`~accord.leagues.genius.rules.GeniusRules` in
its live schedule (both sides may act at any time) on the web driver
(:class:`~accord.web.driver.RulesGame`): a side played by an agent sits in its seat
(:class:`LiveSeat`), and the driver is the only code that asks it (outside the play's
lock); a person's actions come in through :meth:`LiveSession.submit` (already parsed, or
as JSON through :meth:`LiveSession.submit_json`) and go to the driver as wire actions,
checked against ``legal()`` before they touch the play. The agents are asked after every
change and on :meth:`LiveSession.poll` (call it every second or so: it also ends the
session at the deadline). Every change is in the play's stream of an event log (the
study's file, or one beside the store), and the whole session is written to the
:class:`GeniusStore` after every change (the exports and the KBAgent's database read it).
:meth:`LiveSession.resume` rebuilds a running session after a restart by replaying its
stream, the time the server was down counting (the session's clock is the wall clock);
each agent then rebuilds what it keeps from the replayed history
(:meth:`GeniusAgent.on_resume`: the KBAgent's belief and the turn of its last offer),
takes back what the store kept of it (:meth:`GeniusAgent.recall`, its random state) and
acts again on the next poll. A session stored before the web driver held sessions is
replayed from the store's events once and moved onto its stream.
:meth:`LiveSession.state` is what one side's page shows.

**Mistakes are refused, not punished.** A person's invalid action (a value the issue does
not have, an offer already answered, malformed JSON, anything after the end) is refused
with its reason and changes nothing: it is not stored with the session's events and not
counted against the person (``invalid0``/``invalid1`` count agents' invalid actions
only). This is where the port departs from the original GENIUS, which recorded a
person's invalid action against them; the spec says nothing on it and the study rule
(issue 23) is that participants' mistakes are refused. An agent's invalid action or
error is still recorded against it (a failure is an outcome) and the session goes on.
Sessions stored before the change keep their recorded invalid actions and replay as stored.

Two agents at one live table are not what this is for (the study server never pairs
two; :class:`~accord.leagues.genius.match.Match` runs agent sessions): the driver asks
the first side that has a seat (both are always asked in the live schedule), so the
second agent would never be asked.

    >>> import tempfile, pathlib
    >>> from accord.leagues.genius.protocol import Action, Rules, VirtualClock
    >>> clock = VirtualClock(1000.0)
    >>> tmp = tempfile.TemporaryDirectory()
    >>> store = GeniusStore(pathlib.Path(tmp.name) / "g.sqlite")
    >>> live = LiveSession.create(store, "s1", "job_candidate", (0, 1), Rules(turn_seconds=60),
    ...                           ("person:ann", "agent:kbagent"), clock=clock)
    >>> live.session.offers    # the KBAgent takes a person's time to answer
    []
    >>> clock.advance(15.0); live.poll()    # at most a quarter of the 60 s turn
    >>> live.session.offers[0].party    # its first offer
    1
    >>> live.submit(0, Action.accept(7)).error    # a person's mistake: refused, not stored
    'no offer 7 to answer; open offers of the other side: 0'
    >>> again = LiveSession.resume(store, "s1", clock=clock)
    >>> [o.values == p.values for o, p in zip(again.session.offers, live.session.offers)]
    [True]
    >>> store.close(); tmp.cleanup()
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import Awaitable
from typing import Any, TypeVar

from accord.core.errors import ConfigError, InvalidScenario, ProtocolViolation
from accord.core.protocols.rules import IllegalAction
from accord.leagues.genius.agent import GeniusAgent, PartyView
from accord.leagues.genius.domain import Domain
from accord.leagues.genius.loading import load_domain
from accord.leagues.genius.match import MAX_ACTIONS, GeniusSeat
from accord.leagues.genius.protocol import (
    COMMENTS,
    THREATS,
    Action,
    Clock,
    Event,
    GeniusSession,
    Kind,
    Phase,
    Rules,
    VirtualClock,
)
from accord.leagues.genius.rules import GeniusRules, GeniusSetup, GeniusState
from accord.leagues.genius.store import GeniusStore
from accord.tournament.sqlite import SqliteFile
from accord.web.driver import RulesGame
from accord.web.store import EventLog

__all__ = [
    "AGENT_PREFIX",
    "LiveSeat",
    "LiveSession",
    "play_log",
    "plays_log",
    "stream_of",
]

AGENT_PREFIX = "agent:"
"""A party named ``agent:<name>`` is played by that agent; any other name is a person."""

_ASKS = 3
"""After a change the agents are asked up to this many times, while they act."""

T = TypeVar("T")


def stream_of(sid: str) -> str:
    """The stream of the event log that holds session ``sid``'s play."""
    return f"genius.{sid}"


class _WallClock:
    """The league's clock (epoch seconds, a callable) as the web driver's clock."""

    def __init__(self, clock: Clock) -> None:
        self.clock = clock

    def now(self) -> float:
        return float(self.clock())

    def __call__(self) -> float:
        return float(self.clock())

    def wall(self) -> float:
        return float(self.clock())

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds)

    async def wait_for(self, awaitable: Awaitable[T], timeout: float) -> T:
        return await asyncio.wait_for(awaitable, timeout)


def play_log(file: SqliteFile, clock: Clock = time.time) -> EventLog:
    """An event log in ``file`` for sessions' plays, timed by the league's ``clock`` (a
    play's start is stamped with its wall time: the time a server was down counts)."""
    return EventLog(file, _WallClock(clock))


def plays_log(store: GeniusStore, clock: Clock = time.time) -> EventLog:
    """The event log beside ``store`` (``<store>.plays``) that holds its sessions' plays
    when no other log is given (a study gives its own file's: :func:`play_log`)."""
    path = str(store.path)
    return play_log(SqliteFile(":memory:" if path == ":memory:" else f"{path}.plays"), clock)


class LiveSeat(GeniusSeat):
    """An agent at a live table: its answer goes to the rules as one batch (a tuple).

    Anything but a list of at most ``MAX_ACTIONS`` actions (None too) is passed on as a
    one-item batch, which the rules record against the agent as an invalid action. An
    error of the agent's start (``failed``) is its first answer's (recorded by the
    driver)."""

    def __init__(self, agent: GeniusAgent, side: int, view: PartyView) -> None:
        super().__init__(agent, side, view.seed)
        self.view = view
        self.failed: Exception | None = None

    def start(self, state: GeniusState) -> None:
        """Nothing: the session starts its agents itself (a restored one is not restarted)."""

    def act(self, state: GeniusState, party: int) -> tuple[Any, ...]:
        assert self.view is not None
        failed, self.failed = self.failed, None
        if failed is not None:
            raise failed
        out = self.agent.act(self.view)
        if isinstance(out, list | tuple) and len(out) <= MAX_ACTIONS:
            return tuple(out)
        return (out,)


class LiveSession:
    """One stored session with people (and possibly one or two agents)."""

    def __init__(
        self,
        store: GeniusStore,
        sid: str,
        names: tuple[str, str],
        settings: Rules,
        setup: GeniusSetup,
        log: EventLog,
        seed: int = 0,
        study: str | None = None,
        clock: Clock = time.time,
    ) -> None:
        self.store = store
        self.sid = sid
        self.names = names
        self.seed = seed
        self.study = study
        self.status = "running"
        self.clock = clock
        self.log = log
        self.agents: dict[int, GeniusAgent] = {}
        self.views: dict[int, PartyView] = {}
        self.seats: dict[int, LiveSeat] = {}
        domain = setup.domain

        def seats(state: GeniusState) -> dict[int, LiveSeat]:
            out = {}
            for side, name in enumerate(names):
                if name.startswith(AGENT_PREFIX):
                    if side not in self.agents:
                        self.agents[side] = _agent(name[len(AGENT_PREFIX) :], store, domain)
                    view = self.views[side] = PartyView(state.session, side, seed * 2 + side)
                    out[side] = LiveSeat(self.agents[side], side, view)
            self.seats = out
            return out

        self.rules = GeniusRules(settings, asks_per_turn=None)
        people = [k for k, n in enumerate(names) if not n.startswith(AGENT_PREFIX)]
        self.game = RulesGame(
            self.rules, setup, people, seats, log, seed=seed, clock=_WallClock(clock),
            names=names, stream=stream_of(sid), wall_time=True,
        )  # fmt: skip
        self.wall_start = log.read(stream_of(sid))[0].at  # the session's start, wall time

    @property
    def session(self) -> GeniusSession:
        """The GENIUS session (the play's state), read at the clock's now."""
        state: GeniusState = self.game.state
        now = self.game.now()
        if now > state.clock.now:
            state.clock.now = now
        return state.session

    # -- creation ----------------------------------------------------------------------
    @classmethod
    def create(
        cls,
        store: GeniusStore,
        sid: str,
        domain: str | Domain,
        types: tuple[int, int],
        rules: Rules,
        names: tuple[str, str],
        clock: Clock = time.time,
        seed: int = 0,
        study: str | None = None,
        react: bool = True,
        log: EventLog | None = None,
    ) -> LiveSession:
        """Start a new session now and store it (``react``: and let the agents move)."""
        log = log if log is not None else plays_log(store, clock)
        if store.session(sid) is not None or log.read(stream_of(sid)):
            raise ConfigError(f"session {sid!r} already exists in {store.path}")
        d = domain if isinstance(domain, Domain) else load_domain(domain)
        setup = GeniusSetup(d, types)
        live = cls(store, sid, names, rules, setup, log, seed, study, clock)
        for side, seat in live.seats.items():  # its agents start now
            try:
                live.agents[side].on_start(live.views[side])
            except Exception as exc:  # noqa: BLE001 - the agent's failure, at its first ask
                seat.failed = exc
        if react:
            live._react()
        live.save()
        return live

    @classmethod
    def resume(
        cls, store: GeniusStore, sid: str, clock: Clock = time.time, log: EventLog | None = None
    ) -> LiveSession:
        """Rebuild a stored session by replaying its play, then continue on ``clock``."""
        row = store.session(sid)
        if row is None:
            raise ConfigError(f"no session {sid!r} in {store.path}")
        log = log if log is not None else plays_log(store, clock)
        meta = row["meta"]
        d = load_domain(meta.get("domain_source", row["domain"]))
        settings = Rules(**meta["rules"])
        types = (int(row["type0"]), int(row["type1"]))
        if not log.read(stream_of(sid)):  # stored before the web driver held sessions
            _move_onto_a_play(store, sid, row, settings, d, log)
        names = (row["party0"], row["party1"])
        setup = GeniusSetup(d, types)
        seed = int(meta["seed"])
        live = cls(store, sid, names, settings, setup, log, seed, row["study"], clock)
        live.status = row["status"]
        for side, agent in live.agents.items():
            view = live.views[side]
            with contextlib.suppress(Exception):  # a failure: recorded when it happened
                agent.on_start(view)
            agent.on_resume(view)
            kept = meta.get("memory", {}).get(str(side))
            if kept is not None:  # what the replay cannot tell: exactly as saved
                if kept.get("agent") is not None:
                    agent.recall(kept["agent"])
                view.rng.bit_generator.state = kept["rng"]
        return live

    def close(self) -> None:
        """Stop the agents that run in a sandbox (idempotent); the play takes no late answer."""
        self.game.close()
        for agent in self.agents.values():
            close = getattr(agent, "close", None)
            if callable(close):
                close()

    # -- driving -------------------------------------------------------------------------
    def submit(self, side: int, action: Any) -> Event:
        """A person's action: applied through the rules, or refused with the reason and
        nothing changed (the returned event has ``ok`` False and is not stored); after a
        valid one the agents react."""
        if side in self.agents:
            raise ProtocolViolation(f"side {side} is played by {self.names[side]}, not a person")
        if self.status != "running" and self.session.phase is Phase.RUNNING:
            raise ProtocolViolation(f"the session is {self.status}; no action accepted")
        self.game.tick()
        s = self.session
        if not isinstance(action, Action):
            what = f"{type(action).__name__}: {action!r}"
            event = self._refused(side, "invalid", f"expected an Action, got {what}")
        elif s.result is not None:
            why = f"the session has ended; no {action.kind.value} accepted"
            event = self._refused(side, action.kind.value, why)
        elif problem := s.problem(side, action):  # in the session's words
            event = self._refused(side, action.kind.value, problem)
        else:
            n = len(s.events)
            try:
                self.game.act(side, self.rules.action_to_json(self.game.state, action))
            except IllegalAction as exc:
                event = self._refused(side, action.kind.value, exc.reason)
            else:
                event = s.events[n]
                if s.result is None:
                    self._react()
        self.save()
        return event

    def submit_json(self, side: int, data: Any) -> Event:
        """Parse a JSON action; a malformed one is refused like any invalid action."""
        try:
            action: Any = Action.from_json(data)
        except (ProtocolViolation, InvalidScenario) as exc:
            if side in self.agents:
                raise ProtocolViolation(
                    f"side {side} is played by {self.names[side]}, not a person"
                ) from None
            return self._refused(side, "invalid", str(exc))
        return self.submit(side, action)

    def poll(self) -> None:
        """End the session at the deadline and let the agents act; save on any change."""
        before = len(self.session.events)
        ended = self.session.phase is Phase.ENDED
        kept = self._memory()
        if self.status == "running":
            self._react()
        else:
            self.game.tick()
        changed = len(self.session.events) != before or (self.session.phase is Phase.ENDED) != ended
        if changed or self._memory() != kept:  # an agent's decision without an action too
            self.save()

    def leave(self, side: int) -> None:
        """A person left before the end: the session is stored as ``abandoned``."""
        if self.session.phase is Phase.RUNNING:
            self.status = "abandoned"
            self.save()

    def save(self) -> None:
        """Write the session and its events to the store."""
        session = self.session
        status = self.status if session.phase is not Phase.ENDED else "ended"
        if self.status == "abandoned":
            status = "abandoned"
        rules = session.rules
        meta = {
            "seed": self.seed,
            "rules": dict(rules.__dict__),
            "domain_source": session.domain.name,
            "memory": self._memory(),
            "wall_start": self.wall_start,
        }
        self.store.save(session, self.sid, self.names, "people", self.study, status, meta)

    def _memory(self) -> dict[str, Any]:
        """Per agent side: its :meth:`~GeniusAgent.memory` and its random state."""
        return {
            str(side): {"agent": agent.memory(), "rng": self.views[side].rng.bit_generator.state}
            for side, agent in self.agents.items()
        }

    def _refused(self, side: int, kind: str, why: str) -> Event:
        """A person's refused action: an event for the answer, not stored."""
        s = self.session
        return Event(len(s.events), s.turn, s.elapsed, side, kind, ok=False, error=why)

    def _react(self) -> None:
        """Let the agents act (the driver asks them while they act, at most :data:`_ASKS`
        times; an answer with no action ends the asking until the next change or poll)."""
        self.game.run_agents(limit=_ASKS)

    # -- what a page shows ---------------------------------------------------------------
    def state(self, side: int) -> dict[str, Any]:
        """One side's view: time, agreement, offers, messages, its own utilities, result."""
        s = self.session
        profile = s.profiles[side]
        rules = s.rules
        elapsed = s.elapsed
        r = s.result
        return {
            "session": self.sid,
            "status": "ended" if s.phase is Phase.ENDED else self.status,
            "side": side,
            "side_name": s.domain.sides[side],
            "opponent": s.domain.sides[1 - side],
            "type": profile.name,
            "turn": s.turn,
            "turns": rules.turns,
            "period": s.period,
            "seconds_left_in_turn": max(0.0, rules.turn_seconds - elapsed % rules.turn_seconds)
            if s.phase is Phase.RUNNING
            else 0.0,
            "issues": [
                {
                    "name": i.name,
                    "values": list(i.values),
                    "utilities": [float(x) for x in profile.table[k, : len(i.values)]],
                }
                for k, i in enumerate(s.domain.issues)
            ],
            "time_effect": profile.time_effect,
            "status_quo": profile.status_quo,
            "opt_out": profile.opt_out,
            "open_issue_values": [
                float(x) if rules.open_issues == "paper" else 0.0 for x in profile.open_paper
            ],
            "agreement": s.agreement,
            "agreement_utility": profile.score(s.agreement_row, rules.open_issues)
            + s.period * profile.time_effect,
            "offers": [
                {
                    "id": o.id,
                    "mine": o.party == side,
                    "values": o.values,
                    "turn": o.turn,
                    "answer": None if o.answer is None else o.answer.value,
                    "utility": profile.score(o.row, rules.open_issues)
                    + s.period * profile.time_effect,
                }
                for o in s.offers
            ],
            "messages": [
                {
                    "mine": e.party == side,
                    "kind": e.kind,
                    "text": (COMMENTS if e.kind == Kind.COMMENT else THREATS)[e.index or 0],
                    "turn": e.turn,
                }
                for e in s.events
                if e.ok and e.kind in (Kind.COMMENT, Kind.THREAT)
            ],
            "comments": list(COMMENTS),
            "threats": list(THREATS),
            "result": None if r is None else {**r.to_dict(), "utility": r.utilities[side]},
        }


def _agent(name: str, store: GeniusStore, domain: Domain) -> GeniusAgent:
    """An agent by name; the KBAgent's database is the store's finished sessions of the domain.

    With people the KBAgent answers after the original's human-like delay
    (:data:`~accord.leagues.genius.kbagent.HUMAN_DELAY`), scheduled on the session clock;
    ``kbagent-instant`` answers at once. An agent named ``pkg.module:Class`` runs in
    :mod:`accord.sandbox` (its own process, a per-call deadline), never in the server.
    """
    from accord.leagues.genius.pdas import make_agent
    from accord.leagues.genius.sandboxed import genius_sandbox, sandboxed

    mode = genius_sandbox(name)
    if mode is not None:
        return sandboxed(name, mode)

    if name in ("kbagent", "kbagent-instant"):
        from accord.leagues.genius.kbagent import HUMAN_DELAY, KBAgent

        delay = HUMAN_DELAY if name == "kbagent" else None
        return KBAgent(store.logs(domain.name, domain_obj=domain), response_delay=delay)
    return make_agent(name)


def _move_onto_a_play(
    store: GeniusStore,
    sid: str,
    row: dict[str, Any],
    settings: Rules,
    domain: Domain,
    log: EventLog,
) -> None:
    """A session stored before the web driver held sessions: its stored events replayed
    at their recorded times (as they were then), written as the start of its play (the
    session's time from 0, the start's wall time its own)."""
    started = float(row["started"])  # on the session's clock (events: seconds after it)
    at = VirtualClock(started)
    session = GeniusSession(domain, (int(row["type0"]), int(row["type1"])), settings, at)
    session.start(at=started)
    state = GeniusState(session, at)
    for e in store.events(sid):  # the stored events, exactly (old sessions' too)
        at.now = started + float(e["elapsed"])
        session.submit(int(e["party"]), _action_of(e))
    state.ended_seen = session.result is not None
    data = GeniusRules(settings, asks_per_turn=None).serialize(state)
    data["clock"], data["started"] = at.now - started, 0.0
    wall = float(row["meta"].get("wall_start", started))  # before: the session's clock was
    log.append(stream_of(sid), "start", {"state": data, "seed": 0}, at=wall)  # the wall's


def _action_of(e: dict[str, Any]) -> Any:
    """The action a stored event recorded (invalid ones come back as their error text)."""
    kind = e["kind"]
    payload = json.loads(e["payload"]) if e["payload"] is not None else None
    if not e["ok"] and kind not in {k.value for k in Kind}:
        return f"replayed invalid action: {e['error']}"
    try:
        k = Kind(kind)
    except ValueError:
        return f"replayed invalid action: {e['error']}"
    if k is Kind.OFFER:
        return Action(k, values=payload if isinstance(payload, dict) else {})
    if k in (Kind.ACCEPT, Kind.REJECT):
        return Action(k, offer=e["offer"])
    if k in (Kind.COMMENT, Kind.THREAT):
        return Action(k, index=payload if isinstance(payload, int) else None)
    return Action(k)
