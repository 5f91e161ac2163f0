"""Submitted Colored Trails agents (named ``pkg.module:Class``) run in :mod:`accord.sandbox`.

:class:`TrailsHost` runs inside the sandbox, builds the agent and answers the calls of
:class:`RemoteAgent`, which stands in for the agent in the organiser's process: its
view goes in (the organiser trusts itself: a pickle), the answer comes back as JSON and
is checked here before the rules see it. The sandbox lives for one game. A call that
fails (an exception, a wrong answer, the per-call deadline, a dead process) is that
player's failure: recorded against it, and the phase's null action is played (the
league's rules); the game goes on.

    >>> agent_sandbox("purb"), agent_sandbox("mypkg.agents:Mine")
    (None, 'os')
    >>> agent_sandbox("mypkg.agents:Mine", "off")
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from accord.core.errors import AccordError, ProtocolViolation
from accord.drivers.seats import (
    SANDBOX_MODES,
    Interface,
    RemoteEntrant,
    launch_entrant,
    sandbox_mode,
)
from accord.leagues.trails.agent import Agent, View
from accord.leagues.trails.engine import Propose, TurnRecord
from accord.leagues.trails.naming import build_agent
from accord.sandbox import Host, HostContext, Limits

__all__ = [
    "INTERFACE",
    "SANDBOX_MODES",
    "RemoteAgent",
    "TrailsHost",
    "agent_sandbox",
    "sandboxed_agent",
]

CALL_TIMEOUT = 10.0
"""Seconds one call of a sandboxed agent may take."""
HOST = "accord.leagues.trails.sandboxed:TrailsHost"


def agent_sandbox(name: str, mode: str = "os") -> str | None:
    """The sandbox mode ``name`` runs in: None for a built-in agent or with ``none``/``off``."""
    return sandbox_mode(name, mode)


class TrailsHost(Host):
    """Inside the sandbox: the agent and its calls (JSON out)."""

    def __init__(self, agent: str, context: HostContext) -> None:
        super().__init__(agent, context)
        self.agent = build_agent(agent)

    def handle(self, op: str, payload: Any) -> Any:
        a = self.agent
        if op == "name":
            return a.name
        if op == "start":
            me, rng = payload
            a.start(int(me), rng)
            return None
        if op == "propose":
            p = a.propose(payload)
            if not isinstance(p, Propose):
                return None
            return {"give": [int(x) for x in p.give], "take": [int(x) for x in p.take]}
        if op == "respond":
            return bool(a.respond(*payload))
        if op == "transfer":
            send = a.transfer(*payload)
            return None if send is None else [int(x) for x in send]
        if op == "move":
            return [int(x) for x in a.move(payload) or []]
        if op == "observe":
            a.observe(*payload)
            return None
        raise ProtocolViolation(f"unknown op {op!r}")


class RemoteAgent(Agent):
    """The organiser's stand-in for an agent in a sandbox (checks every answer), through
    its :class:`~accord.drivers.seats.RemoteEntrant`."""

    def __init__(self, entrant: RemoteEntrant) -> None:
        self.entrant = entrant
        self.name = entrant.label

    def _call(self, op: str, payload: Any) -> Any:
        return self.entrant.call(op, payload)

    def start(self, me: int, rng: np.random.Generator) -> None:
        self._call("start", (me, rng))

    def propose(self, view: View) -> Propose | None:
        out: Propose | None = self._call("propose", view)
        return out

    def respond(self, view: View, proposal: Propose) -> bool:
        out: bool = self._call("respond", (view, proposal))
        return out

    def transfer(
        self, view: View, promised: tuple[int, ...], expected: tuple[int, ...]
    ) -> tuple[int, ...]:
        out: tuple[int, ...] | None = self._call("transfer", (view, promised, expected))
        return (0,) * len(promised) if out is None else out

    def move(self, view: View) -> list[int]:
        return list(self._call("move", view))

    def observe(self, view: View, record: TurnRecord) -> None:
        self._call("observe", (view, record))

    def close(self) -> None:
        self.entrant.close()


class AgentAnswer(AccordError):
    """A sandboxed agent's answer that is not what the call asks for."""


def _counts(v: Any, limit: int = 100) -> tuple[int, ...]:
    if not isinstance(v, list) or len(v) > limit or not all(type(x) is int for x in v):
        raise AgentAnswer(f"expected a list of whole numbers; got {v!r:.200}")
    return tuple(v)


def _proposal(out: Any) -> Propose | None:
    if out is None:
        return None
    if not isinstance(out, dict) or set(out) != {"give", "take"}:
        raise AgentAnswer(f"propose answers {{give, take}} or null; got {out!r:.200}")
    return Propose(_counts(out["give"]), _counts(out["take"]))


def _yes_no(out: Any) -> bool:
    if not isinstance(out, bool):
        raise AgentAnswer(f"respond answers true or false; got {out!r:.200}")
    return out


def _transfer(out: Any) -> tuple[int, ...] | None:
    return None if out is None else _counts(out)  # None: nothing sent


def _path(out: Any) -> tuple[int, ...]:
    return _counts(out, limit=10_000)


INTERFACE = Interface(
    HOST,
    {
        "start": None,
        "propose": _proposal,
        "respond": _yes_no,
        "transfer": _transfer,
        "move": _path,
        "observe": None,
    },
)
"""A Colored Trails player's calls and the check of each answer (:class:`AgentAnswer`)."""


def sandboxed_agent(name: str, mode: str = "os", limits: Limits | None = None) -> RemoteAgent:
    """Start ``name`` (``pkg.module:Class``) in a sandbox of ``mode`` for one game."""
    return RemoteAgent(launch_entrant(INTERFACE, name, mode, limits, CALL_TIMEOUT))


def close_all(agents: Sequence[Agent]) -> None:
    """Stop the sandboxes among ``agents``."""
    for a in agents:
        if isinstance(a, RemoteAgent):
            a.close()
