"""A fresh sandbox for every participant's agent: no state carried over, nothing else seen.

The 2017 rules forbid an agent to carry anything from one participant to the next.
A new instance per participant (:class:`~accord.leagues.han.play.Fresh`) does not
stop state kept on the class or in a module; a new process does. :class:`IsolatedAgent`
stands in for the agent in the game: the real agent is built *by name* in an
:mod:`accord.sandbox` process started for this one participant (``os`` mode by default:
bubblewrap, only its own code visible, hard limits), by :class:`HanHost`. Each event
goes to it with the view's news (the offer on the table, the time, the events heard
since the last call); it answers with the agent's events as JSON, which are read with
:func:`~accord.leagues.han.events.event_from_json` (a malformed one is refused) and
then checked by the game as usual.

Failures are the agent's, never the game's: an exception in ``on_event`` is recorded
and the game goes on (as in-process); a process that dies, cannot be started, breaks
the channel or does not answer within ``timeout`` seconds (it is then killed) raises
:class:`AgentGone`, which the match records and answers by ending the game with both
BATNAs (outcome ``left``).

    >>> agent = IsolatedAgent("fair", mode="process")
    >>> agent.name, agent.alive
    ('fair', True)
    >>> agent.close(); agent.alive
    False
"""

from __future__ import annotations

import contextlib
import threading
from dataclasses import replace
from typing import Any

from accord.core.errors import ConfigError, UsageError
from accord.core.imports import is_import_path
from accord.drivers.seats import Interface, start_entrant
from accord.leagues.han.api import AgentError, AgentGone, GameView, HanAgent
from accord.leagues.han.events import Event, InvalidEvent, SubClass, event_from_json
from accord.sandbox import (
    AgentFailure,
    AgentRaised,
    Host,
    HostContext,
    Limits,
    Sandbox,
    SandboxMode,
    agent_code,
)

__all__ = [
    "AgentError",
    "AgentGone",
    "HanHost",
    "IsolatedAgent",
    "check_starts",
    "decode_event",
    "decode_events",
    "encode_event",
    "isolated_factory",
]

TIMEOUT = 5.0
"""Seconds one ``on_event`` call may take before the agent's process is killed."""
STARTUP = 30.0
"""Seconds for the process to start, import the agent and build it."""
HOST = "accord.leagues.han.isolation:HanHost"
_MAX_EVENTS = 1000  # events one call may return
_MAX_TEXT = 100_000  # characters of one message (the game decides what it accepts)


class IsolatedAgent(HanAgent):
    """The agent named ``agent`` (an example's name or ``pkg.module:Class``) in a sandbox
    of its own, started when this object is made, for one participant."""

    def __init__(
        self,
        agent: str,
        timeout: float = TIMEOUT,
        mode: SandboxMode | str = SandboxMode.OS,
        limits: Limits | None = None,
    ) -> None:
        super().__init__()
        self.name = agent
        self.timeout = timeout
        self._box: Sandbox = start_entrant(
            INTERFACE,
            agent,
            limits=limits or Limits(call_timeout=timeout, startup_timeout=STARTUP),
            mode=mode,
            fork=True,  # fresh: forked from a zygote that never ran an agent's code
        )
        self._sent = 0  # events of view.heard already sent
        self._dead: str | None = None
        self._first = True
        self._lock = threading.Lock()  # one call at a time on the channel (server threads)
        # wait until it is built, so that its start-up never eats into the game's clock
        with contextlib.suppress(AgentGone, AgentError):
            self._call("ping", None)

    @property
    def alive(self) -> bool:
        return self._dead is None and self._box.alive

    def bind(self, view: GameView) -> None:
        super().bind(view)
        self._sent = len(view.heard)
        state = {
            "view": GameView(
                view.role, view.name, view.issues, view.quantities, view.values, view.batna,
                view.total_time, view.game_index, view.offer, view.elapsed, list(view.heard),
            )
        }  # fmt: skip
        with contextlib.suppress(AgentGone, AgentError):  # on_event will say it is gone
            self._call("bind", state)

    def reseed(self, seed: int) -> None:
        with contextlib.suppress(AgentGone, AgentError):
            self._call("reseed", {"seed": seed})

    def on_event(self, event: Event) -> list[Event]:
        v = self.view
        news = list(v.heard[self._sent :])
        self._sent = len(v.heard)
        out = self._call(
            "event", {"event": event, "offer": v.offer, "elapsed": v.elapsed, "news": news}
        )
        try:
            events: list[Event] = INTERFACE.check("event", out)
        except InvalidEvent as exc:
            raise AgentError(f"{self.name} sent an invalid event: {exc}") from None
        return events

    def close(self) -> None:
        """Stop the sandbox (idempotent)."""
        self._box.close()
        if self._dead is None:
            self._dead = "the agent's process was closed"

    def _call(self, op: str, payload: Any) -> Any:
        with self._lock:
            if self._dead is not None:
                raise AgentGone(self._dead)
            wait = max(self.timeout, STARTUP) if self._first else self.timeout
            self._first = False
            try:
                return self._box.call(op, payload, wait, trusted_pickle=True)
            except AgentRaised as exc:
                raise AgentError(exc.reason) from None
            except AgentFailure as exc:
                self._dead = _gone(self.name, exc.reason, wait)
                raise AgentGone(self._dead) from None


def encode_event(e: Event) -> dict[str, Any]:
    """An agent's event as JSON, every field it sets (:func:`decode_event` reads it)."""
    d = e.to_json()
    d.pop("owner", None)
    d["delay"], d["duration"] = e.delay, e.duration
    return d


def decode_event(raw: Any) -> Event:
    """An event sent from a sandbox: read with
    :func:`~accord.leagues.han.events.event_from_json` (kind, emotion, offer,
    preference, BATNA claim), then its other fields, each checked.

    >>> from accord.leagues.han.api import message
    >>> e = message("hello")
    >>> decode_event(encode_event(e)) == e
    True
    >>> decode_event({"kind": "GAME_END"})
    Traceback (most recent call last):
    ...
    accord.leagues.han.events.InvalidEvent: GAME_END is sent by the platform, not by a player
    """
    if not isinstance(raw, dict):
        raise InvalidEvent(f"an event is a JSON object; got {type(raw).__name__}")
    core = {k: raw[k] for k in ("kind", "emotion", "offer", "delay", "preference") if k in raw}
    sub = raw.get("subclass", "NONE")
    if raw.get("kind") == "SEND_MESSAGE" and "preference" not in raw:
        if sub == "BATNA_INFO" and "value" in raw:
            core["batna"] = raw["value"]
        else:  # the text itself is checked below (the game, not the channel, limits it)
            core["text"] = "x" if isinstance(raw.get("text"), str) else raw.get("text")
            core["subclass"] = sub
    e = event_from_json(core, "agent")
    extra: dict[str, Any] = {}
    if "text" in raw:
        if not isinstance(raw["text"], str) or len(raw["text"]) > _MAX_TEXT:
            raise InvalidEvent(
                f"text must be at most {_MAX_TEXT} characters; got {raw['text']!r:.80}"
            )
        extra["text"] = raw["text"]
    for key, low, high in (("code", -1, 11), ("value", -1, 10_000)):
        if key in raw:
            v = raw[key]
            if isinstance(v, bool) or not isinstance(v, int) or not low <= v <= high:
                raise InvalidEvent(f"{key} must be a whole number in [{low}, {high}]; got {v!r}")
            extra[key] = v
    if "subclass" in raw:
        try:
            extra["subclass"] = SubClass(raw["subclass"])
        except ValueError:
            raise InvalidEvent(f"unknown subclass {raw['subclass']!r}") from None
    if "duration" in raw:
        v = raw["duration"]
        if isinstance(v, bool) or not isinstance(v, int | float) or not 0 <= v <= 3600:
            raise InvalidEvent(f"duration is a number of seconds in [0, 3600]; got {v!r}")
        extra["duration"] = float(v)
    return replace(e, **extra) if extra else e


def decode_events(out: Any) -> list[Event]:
    """The answer to ``event``: a list of at most 1,000 events, each read with
    :func:`decode_event` (:class:`AgentError` if it is no list, :class:`InvalidEvent`
    for the first bad event).

    >>> decode_events([])
    []
    >>> decode_events("hi")
    Traceback (most recent call last):
    ...
    accord.leagues.han.api.AgentError: on_event must return a list of events, got 'hi'
    """
    if not isinstance(out, list) or len(out) > _MAX_EVENTS:
        raise AgentError(f"on_event must return a list of events, got {out!r:.80}")
    return [decode_event(raw) for raw in out]


INTERFACE = Interface(HOST, {"ping": None, "bind": None, "reseed": None, "event": decode_events})
"""A HAN player's calls: only ``event`` answers something the game uses."""


def _gone(name: str, reason: str, wait: float) -> str:
    if reason.startswith("could not start the agent"):
        return f"could not build agent {name!r}: {reason.split(': ', 1)[1]}"
    if "did not answer within" in reason or "did not start within" in reason:
        return f"{name} did not answer within {wait:g} s; its process was killed"
    return f"{name}'s process: {reason}"


def isolated_factory(
    agent: str, timeout: float = TIMEOUT, mode: SandboxMode | str = SandboxMode.OS
) -> Any:
    """A factory of :class:`IsolatedAgent` for ``agent``, checked here without importing
    a submitted agent's code (that happens only in its sandbox).

    >>> isolated_factory("nobody")
    Traceback (most recent call last):
    ...
    accord.core.errors.ConfigError: unknown HAN agent 'nobody'; known: fair, tough, ledger, liar or pkg.module:Class
    """
    from accord.leagues.han.agents import EXAMPLE_AGENTS
    from accord.leagues.han.naming import agent_class

    if is_import_path(agent) and agent_code(agent).mounts:
        label = agent.rpartition(":")[2] or agent.rpartition(".")[2]
    elif agent in EXAMPLE_AGENTS or is_import_path(agent):
        label = agent_class(agent).__name__
    else:
        raise ConfigError(
            f"unknown HAN agent {agent!r}; known: {', '.join(EXAMPLE_AGENTS)} or pkg.module:Class"
        )

    def make() -> IsolatedAgent:
        return IsolatedAgent(agent, timeout, mode)

    make.__name__ = label
    return make


def check_starts(agent: str, mode: SandboxMode | str = SandboxMode.OS) -> None:
    """Start ``agent`` once in its sandbox and stop it: a path that builds no HAN agent
    (a missing class, another kind of agent, a failing constructor) is one
    :class:`ConfigError` before any game, instead of games its agent never played."""
    try:
        probe = IsolatedAgent(agent, mode=mode)
    except AgentFailure as exc:
        raise ConfigError(_gone(agent, exc.reason, STARTUP)) from None
    try:
        if not probe.alive:
            raise ConfigError(probe._dead or f"agent {agent!r} did not start")
    finally:
        probe.close()


class HanHost(Host):
    """Runs in the sandbox: builds the agent by name and answers the game's calls."""

    def __init__(self, agent: str, context: HostContext) -> None:
        super().__init__(agent, context)
        from accord.leagues.han.naming import agent_class

        self.agent: HanAgent = agent_class(agent)()
        self.view: GameView | None = None

    def handle(self, op: str, payload: Any) -> Any:
        if op == "ping":
            return None
        if op == "bind":
            self.view = payload["view"]
            self.agent.bind(payload["view"])
            return None
        if op == "reseed":
            reseed = getattr(self.agent, "reseed", None)
            if callable(reseed):
                reseed(payload["seed"])
            return None
        if op == "event":
            view = self.view
            assert view is not None, "bind first"
            view.offer, view.elapsed = payload["offer"], payload["elapsed"]
            view.heard.extend(payload["news"])
            try:
                out = self.agent.on_event(payload["event"])
            except Exception as exc:  # noqa: BLE001 - the message the match records
                raise AgentError(f"{type(self.agent).__name__}.on_event raised {exc!r}") from exc
            return [encode_event(e) for e in out]
        raise UsageError(f"unknown op {op!r}")
