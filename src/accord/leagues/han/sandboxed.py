"""A HAN agent in the OS sandbox (:mod:`accord.sandbox`): its game's hidden values stay hidden.

A fresh process (:mod:`accord.leagues.han.isolation`) stops state passing between games,
but an agent running as the organiser's user can still read the organiser's files (an
organiser's game file holds both sides' values) and the memory of the organiser's
processes (``/proc/<pid>/mem``). :class:`SandboxedAgent` runs the agent in a bubblewrap
sandbox instead (its own user, PID and mount namespaces; only the runtime, Accord and its
own code visible), talking JSON frames: the agent gets its :class:`GameView` (its own
values and BATNA, never the other side's) and the events; it answers with events, which
the organiser parses as data and the game checks as usual.

Failures are the agent's: an exception in ``on_event`` is recorded and the game goes on;
a process that dies, cannot start or does not answer in time raises :class:`AgentGone`
(the game ends with both BATNAs).

    >>> sandboxed_factory("nobody")
    Traceback (most recent call last):
    ...
    accord.core.errors.ConfigError: unknown HAN agent 'nobody'; known: fair, tough, ledger, liar or pkg.module:Class
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Mapping
from typing import Any

from accord.core.errors import AccordError
from accord.leagues.han.api import AgentGone, GameView, HanAgent
from accord.leagues.han.domain import Offer
from accord.leagues.han.events import Event, EventKind, Preference, Relation, SubClass
from accord.sandbox import AgentFailure, AgentRaised, Host, HostContext, Limits, start_sandbox
from accord.sandbox.locate import agent_code

__all__ = ["HanHost", "SandboxedAgent", "event_from_data", "event_to_data", "sandboxed_factory"]

TIMEOUT = 5.0
"""Seconds one ``on_event`` call may take."""


def event_to_data(e: Event) -> dict[str, Any]:
    """Every field of an event as JSON values (both directions of the sandbox channel)."""
    d = e.to_json()
    d.update(delay=e.delay, duration=e.duration, elapsed=e.elapsed, code=e.code, value=e.value)
    return d


def event_from_data(d: Any, owner: str) -> Event:
    """An event back from :func:`event_to_data` (``ValueError``/``TypeError`` if malformed).

    >>> e = Event(EventKind.SEND_OFFER, "agent", offer=Offer.of([(1, 0, 2)]), delay=1.5)
    >>> event_from_data(event_to_data(e), "agent") == e
    True
    """
    if not isinstance(d, Mapping):
        raise TypeError(f"an event is a JSON object; got {type(d).__name__}")
    pref = d.get("preference")
    preference = None
    if pref is not None:
        preference = Preference(
            int(pref["issue1"]), Relation(pref["relation"]), int(pref["issue2"]),
            bool(pref["query"]),
        )  # fmt: skip
    offer = d.get("offer")

    def num(key: str, default: float) -> float:
        v = d.get(key, default)
        if isinstance(v, bool) or not isinstance(v, int | float):
            raise TypeError(f"{key} must be a number; got {v!r}")
        return float(v)

    return Event(
        EventKind(d["kind"]),
        owner,  # type: ignore[arg-type]
        text=str(d.get("text", "")),
        subclass=SubClass(d.get("subclass", SubClass.NONE.value)),
        code=int(num("code", -1)),
        value=int(num("value", -1)),
        preference=preference,
        offer=None if offer is None else Offer.of(offer),
        emotion=str(d.get("emotion", "")),
        delay=num("delay", 0.0),
        duration=num("duration", 2.0),
        elapsed=num("elapsed", 0.0),
    )


def _view_data(v: GameView) -> dict[str, Any]:
    return {
        "role": v.role, "name": v.name, "issues": list(v.issues),
        "quantities": list(v.quantities), "values": list(v.values), "batna": v.batna,
        "total_time": v.total_time, "game_index": v.game_index,
    }  # fmt: skip


class HanHost(Host):
    """Runs inside the sandbox: builds the agent by name and answers ``bind``, ``reseed``
    and ``event`` calls (JSON in, JSON out)."""

    def __init__(self, agent: str, context: HostContext) -> None:
        super().__init__(agent, context)
        from accord.leagues.han.naming import agent_class

        self.agent: HanAgent = agent_class(agent)()
        self.view: GameView | None = None

    def handle(self, op: str, payload: Any) -> Any:
        if op == "bind":
            p = payload
            self.view = GameView(
                p["role"], p["name"], tuple(p["issues"]), tuple(p["quantities"]),
                tuple(p["values"]), int(p["batna"]), float(p["total_time"]), int(p["game_index"]),
            )  # fmt: skip
            self.agent.bind(self.view)
            return None
        if op == "reseed":
            reseed = getattr(self.agent, "reseed", None)
            if callable(reseed):
                reseed(int(payload))
            return None
        if op == "event":
            view = self.view
            if view is None:
                raise ValueError("event before bind")
            offer = payload["offer"]
            view.offer = None if offer is None else Offer.of(offer)
            view.elapsed = float(payload["elapsed"])
            view.heard.extend(event_from_data(e, e["owner"]) for e in payload["news"])
            event = payload["event"]
            out = self.agent.on_event(event_from_data(event, event["owner"]))
            if out is None:
                return None
            if not isinstance(out, list | tuple):
                return {"not_a_list": type(out).__name__}
            return [event_to_data(e) if isinstance(e, Event) else None for e in out]
        raise ValueError(f"unknown op {op!r}")


class SandboxedAgent(HanAgent):
    """The agent named ``agent`` run in an OS sandbox of its own, for one participant."""

    def __init__(self, agent: str, timeout: float = TIMEOUT, limits: Limits | None = None) -> None:
        super().__init__()
        self.name = agent
        self.timeout = timeout
        code = agent_code(agent)
        self._box = start_sandbox(
            "accord.leagues.han.sandboxed:HanHost",
            agent,
            code_paths=code.paths,
            code_mounts=code.mounts,
            limits=limits or Limits(call_timeout=timeout, startup_timeout=60.0),
        )
        self._sent = 0
        self._dead: str | None = None

    @property
    def alive(self) -> bool:
        return self._dead is None and self._box.alive

    def bind(self, view: GameView) -> None:
        super().bind(view)
        self._sent = len(view.heard)
        with contextlib.suppress(AgentGone, _AgentError):
            self._call("bind", _view_data(view))

    def reseed(self, seed: int) -> None:
        with contextlib.suppress(AgentGone, _AgentError):
            self._call("reseed", int(seed))

    def on_event(self, event: Event) -> list[Event]:
        v = self.view
        news = [event_to_data(e) for e in v.heard[self._sent :]]
        self._sent = len(v.heard)
        payload = {
            "event": event_to_data(event),
            "offer": None if v.offer is None else v.offer.to_list(),
            "elapsed": v.elapsed,
            "news": news,
        }
        out = self._call("event", payload)
        if out is None:
            return []
        if isinstance(out, dict):
            raise _AgentError(f"on_event returns a list of Event; got {out.get('not_a_list')}")
        if not isinstance(out, list):
            raise _AgentError(f"the agent sent {type(out).__name__}, not a list of events")
        events: list[Event] = []
        for d in out:
            if d is None:
                continue  # not an Event: the match counts the shortfall as a violation
            try:
                events.append(event_from_data(d, "agent"))
            except (KeyError, TypeError, ValueError, AccordError) as exc:
                raise _AgentError(f"the agent sent a malformed event: {exc}") from None
        return events

    def close(self) -> None:
        """Stop the sandbox (idempotent)."""
        self._box.close()
        if self._dead is None:
            self._dead = "the agent's sandbox was closed"

    def _call(self, op: str, payload: Any) -> Any:
        if self._dead is not None:
            raise AgentGone(self._dead)
        try:
            return self._box.call(op, payload, timeout=self.timeout)
        except AgentRaised as exc:
            raise _AgentError(f"{self.name}.{op} raised: {exc.reason}") from None
        except AgentFailure as exc:
            self._dead = f"{self.name}: {exc.reason}"
            raise AgentGone(self._dead) from None


class _AgentError(AccordError):
    """The sandboxed agent raised or sent something malformed; the game goes on."""


def sandboxed_factory(agent: str, timeout: float = TIMEOUT) -> Callable[[], SandboxedAgent]:
    """A factory of :class:`SandboxedAgent` for ``agent`` (the name checked here)."""
    from accord.leagues.han.naming import agent_class

    cls = agent_class(agent)

    def make() -> SandboxedAgent:
        return SandboxedAgent(agent, timeout)

    make.__name__ = cls.__name__
    return make
