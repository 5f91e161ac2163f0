"""A session with people on a wall clock: agent opponents, saved after every change, resumable.

:class:`LiveSession` wraps one :class:`~accord.leagues.genius.protocol.GeniusSession` for a
server: people's actions come in through :meth:`LiveSession.submit` (already parsed, or as
JSON through :meth:`LiveSession.submit_json`), agent sides act after every change and on
:meth:`LiveSession.poll` (call it every second or so: it also ends the session at the
deadline), and the whole session is written to the :class:`GeniusStore` after every change.
:meth:`LiveSession.resume` rebuilds a running session from the store after a restart by
replaying its events at their recorded times; each agent then rebuilds what it keeps
from the replayed history (:meth:`GeniusAgent.on_resume`: the KBAgent's belief and the
turn of its last offer) and acts again on the next poll. :meth:`LiveSession.state` is what one side's
page shows.

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
    >>> again = LiveSession.resume(store, "s1", clock=clock)
    >>> [o.values == p.values for o, p in zip(again.session.offers, live.session.offers)]
    [True]
    >>> store.close(); tmp.cleanup()
"""

from __future__ import annotations

import time
from typing import Any

from accord.core.errors import ConfigError, ProtocolViolation
from accord.leagues.genius.agent import GeniusAgent, PartyView
from accord.leagues.genius.domain import Domain
from accord.leagues.genius.loading import load_domain
from accord.leagues.genius.match import MAX_ACTIONS
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
)
from accord.leagues.genius.store import GeniusStore

__all__ = [
    "AGENT_PREFIX",
    "LiveSession",
]

AGENT_PREFIX = "agent:"
"""A party named ``agent:<name>`` is played by that agent; any other name is a person."""

_ASKS = 3


class _Replay:
    """The clock used while replaying stored events."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class LiveSession:
    """One stored session with people (and possibly one or two agents)."""

    def __init__(
        self,
        store: GeniusStore,
        sid: str,
        session: GeniusSession,
        names: tuple[str, str],
        seed: int = 0,
        study: str | None = None,
    ) -> None:
        self.store = store
        self.sid = sid
        self.session = session
        self.names = names
        self.seed = seed
        self.study = study
        self.status = "running"
        self.agents: dict[int, GeniusAgent] = {}
        self.views: dict[int, PartyView] = {}
        for side, name in enumerate(names):
            if name.startswith(AGENT_PREFIX):
                self.agents[side] = _agent(name[len(AGENT_PREFIX) :], store, session.domain)
                self.views[side] = PartyView(session, side, seed * 2 + side)

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
    ) -> LiveSession:
        """Start a new session now and store it (``react``: and let the agents move)."""
        if store.session(sid) is not None:
            raise ConfigError(f"session {sid!r} already exists in {store.path}")
        d = domain if isinstance(domain, Domain) else load_domain(domain)
        live = cls(store, sid, GeniusSession(d, types, rules, clock), names, seed, study)
        live.session.start()
        live._start_agents()
        if react:
            live._react()
        live.save()
        return live

    @classmethod
    def resume(cls, store: GeniusStore, sid: str, clock: Clock = time.time) -> LiveSession:
        """Rebuild a stored session by replaying its events, then continue on ``clock``."""
        row = store.session(sid)
        if row is None:
            raise ConfigError(f"no session {sid!r} in {store.path}")
        meta = row["meta"]
        d = load_domain(meta.get("domain_source", row["domain"]))
        rules = Rules(**meta["rules"])
        replay = _Replay()
        session = GeniusSession(d, (int(row["type0"]), int(row["type1"])), rules, replay)
        live = cls(
            store, sid, session, (row["party0"], row["party1"]), int(meta["seed"]), row["study"]
        )
        live.status = row["status"]
        started = float(row["started"])
        replay.now = started
        session.start(at=started)
        live._start_agents(record=False)
        for e in store.events(sid):
            replay.now = started + float(e["elapsed"])
            session.submit(int(e["party"]), _action_of(e))
        for side, agent in live.agents.items():
            agent.on_resume(live.views[side])
            kept = meta.get("memory", {}).get(str(side))
            if kept is not None:  # what the replay cannot tell: exactly as saved
                if kept.get("agent") is not None:
                    agent.recall(kept["agent"])
                live.views[side].rng.bit_generator.state = kept["rng"]
        session.clock = clock
        return live

    def _start_agents(self, record: bool = True) -> None:
        """``on_start`` of each agent; a failure is its invalid action (not on a replay,
        whose stored events hold it already)."""
        for side, agent in self.agents.items():
            try:
                agent.on_start(self.views[side])
            except Exception as exc:  # noqa: BLE001 - an agent's error is its invalid action
                if record:
                    self.session.submit(side, f"agent raised {type(exc).__name__}: {exc}")

    def close(self) -> None:
        """Stop the agents that run in a sandbox (idempotent)."""
        for agent in self.agents.values():
            close = getattr(agent, "close", None)
            if callable(close):
                close()

    # -- driving -------------------------------------------------------------------------
    def submit(self, side: int, action: Any) -> Event:
        """A person's action (invalid ones are recorded against them); agents then react."""
        if side in self.agents:
            raise ProtocolViolation(f"side {side} is played by {self.names[side]}, not a person")
        if self.status != "running" and self.session.phase is Phase.RUNNING:
            raise ProtocolViolation(f"the session is {self.status}; no action accepted")
        event = self.session.submit(side, action)
        if event.ok:
            self._react()
        self.save()
        return event

    def submit_json(self, side: int, data: Any) -> Event:
        """Parse a JSON action; a malformed one is recorded as an invalid action."""
        try:
            action: Any = Action.from_json(data)
        except ProtocolViolation as exc:
            action = f"malformed action: {exc}"
            event = self.session.submit(side, action)
            event = Event(**{**event.__dict__, "error": str(exc)})
            self.session.events[-1] = event
            self.save()
            return event
        return self.submit(side, action)

    def poll(self) -> None:
        """End the session at the deadline and let the agents act; save on any change."""
        before = len(self.session.events)
        ended = self.session.phase is Phase.ENDED
        kept = self._memory()
        self.session.tick()
        if self.status == "running":
            self._react()
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
        status = self.status if self.session.phase is not Phase.ENDED else "ended"
        if self.status == "abandoned":
            status = "abandoned"
        rules = self.session.rules
        meta = {
            "seed": self.seed,
            "rules": dict(rules.__dict__),
            "domain_source": self.session.domain.name,
            "memory": self._memory(),
        }
        self.store.save(self.session, self.sid, self.names, "people", self.study, status, meta)

    def _memory(self) -> dict[str, Any]:
        """Per agent side: its :meth:`~GeniusAgent.memory` and its random state."""
        return {
            str(side): {"agent": agent.memory(), "rng": self.views[side].rng.bit_generator.state}
            for side, agent in self.agents.items()
        }

    def _react(self) -> None:
        s = self.session
        for _ in range(_ASKS):
            acted = False
            for side, agent in self.agents.items():
                if s.phase is not Phase.RUNNING:
                    return
                try:
                    out = agent.act(self.views[side])
                except Exception as exc:  # noqa: BLE001 - an agent's error is its invalid action
                    s.submit(side, f"agent raised {type(exc).__name__}: {exc}")
                    continue
                if not isinstance(out, list | tuple) or len(out) > MAX_ACTIONS:
                    s.submit(side, out)
                    continue
                for action in out:
                    acted = True
                    s.submit(side, action)
            if not acted:
                return

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


def _action_of(e: dict[str, Any]) -> Any:
    """The action a stored event recorded (invalid ones come back as their error text)."""
    import json

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
