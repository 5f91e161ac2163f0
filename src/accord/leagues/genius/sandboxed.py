"""Submitted GENIUS agents (named ``pkg.module:Class``) run in :mod:`accord.sandbox`.

:class:`RemoteGeniusAgent` stands in for the agent in the organiser's process. Each
call sends a :class:`SideSnapshot` of the session as that side may see it (its own type,
the domain with the list of the other side's types but not which one it faces, the
offers, the running agreement and the valid actions; never the other side's type or
invalid actions), and :class:`GeniusHost`, inside the sandbox, keeps the agent's
:class:`~accord.leagues.genius.agent.PartyView` (and its random generator) across calls.
The answer is a JSON list of actions; an item that is not an action is recorded against
the agent as an invalid action by the rules, as in process. The sandbox lives for one
session (it is closed when the session ends).

    >>> genius_sandbox("kbagent"), genius_sandbox("entries.mine:Mine")
    (None, 'os')
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import numpy as np
import numpy.typing as npt

from accord.core.errors import ProtocolViolation
from accord.drivers.seats import (
    SANDBOX_MODES,
    Interface,
    RemoteEntrant,
    launch_entrant,
    sandbox_mode,
)
from accord.leagues.genius.agent import GeniusAgent, PartyView
from accord.leagues.genius.domain import Domain, Profile
from accord.leagues.genius.protocol import (
    Action,
    Event,
    GeniusResult,
    GeniusSession,
    Kind,
    Offer,
    Rules,
)
from accord.sandbox import Host, HostContext, Limits

__all__ = [
    "INTERFACE",
    "GeniusHost",
    "RemoteGeniusAgent",
    "SideSnapshot",
    "genius_sandbox",
    "sandboxed",
]

MODES = SANDBOX_MODES  # none (as in every league) = off: in this process
CALL_TIMEOUT = 10.0
"""Seconds one call of a sandboxed agent may take."""
HOST = "accord.leagues.genius.sandboxed:GeniusHost"


def genius_sandbox(name: str, mode: str = "os") -> str | None:
    """The sandbox mode agent ``name`` runs in: None for a built-in agent or with ``none``/``off``."""
    return sandbox_mode(name, mode)


class SideSnapshot:
    """What one side may see of a session, with the attributes a PartyView reads."""

    def __init__(self, session: GeniusSession, side: int) -> None:
        self.domain: Domain = session.domain
        self.profiles: dict[int, Profile] = {side: session.profiles[side]}
        self.rules: Rules = session.rules
        self.turn = session.turn
        self.elapsed = session.elapsed
        self.period = session.period
        self.agreement_row: npt.NDArray[np.int64] = session.agreement_row.copy()
        self.offers: list[Offer] = [replace(o) for o in session.offers]
        self.events: list[Event] = [
            replace(e, result=None) for e in session.events if e.ok or e.party == side
        ]

    def open_offers(self, party: int) -> list[Offer]:
        return [o for o in self.offers if o.party != party and o.is_open]


class GeniusHost(Host):
    """Inside the sandbox: the agent, its view across calls, JSON answers."""

    def __init__(self, agent: str, context: HostContext) -> None:
        super().__init__(agent, context)
        from accord.leagues.genius.pdas import make_agent

        self.agent = make_agent(agent)
        self.view: PartyView | None = None

    def handle(self, op: str, payload: Any) -> Any:
        if op == "name":
            return self.agent.name
        if op == "start":
            snapshot, side, seed = payload
            self.view = PartyView(snapshot, int(side), int(seed))
            self.agent.on_start(self.view)
            return None
        assert self.view is not None, "start comes first"
        if op == "act":
            self.view._session = payload
            out = self.agent.act(self.view)
            if out is None:
                return []
            if not isinstance(out, list | tuple):
                return {"not_a_list": repr(out)[:300]}
            return [_action_json(a) for a in out]
        if op == "end":
            snapshot, result = payload
            self.view._session = snapshot
            self.agent.on_end(self.view, result)
            return None
        raise ProtocolViolation(f"unknown op {op!r}")


class RemoteGeniusAgent(GeniusAgent):
    """The organiser's stand-in for a sandboxed agent (one session), through its
    :class:`~accord.drivers.seats.RemoteEntrant`."""

    def __init__(self, entrant: RemoteEntrant) -> None:
        self.entrant = entrant

    @property
    def name(self) -> str:
        return self.entrant.label

    def _call(self, op: str, payload: Any) -> Any:
        return self.entrant.call(op, payload)

    def on_start(self, view: PartyView) -> None:
        self._call("start", (SideSnapshot(view._session, view.side), view.side, _seed(view)))

    def act(self, view: PartyView) -> Sequence[Any]:
        out: list[Any] = self._call("act", SideSnapshot(view._session, view.side))
        return out

    def on_end(self, view: PartyView, result: GeniusResult) -> None:
        try:
            self._call("end", (SideSnapshot(view._session, view.side), result))
        finally:
            self.close()

    def close(self) -> None:
        self.entrant.close()


def _seed(view: PartyView) -> int:
    """The seed the in-process view was made with (its generator's first state)."""
    return int(view.seed)


def _action_json(a: Any) -> Any:
    if not isinstance(a, Action):
        return {"not_an_action": repr(a)[:300]}
    out: dict[str, Any] = {"kind": a.kind.value}
    if a.kind is Kind.OFFER:
        out["values"] = {str(k): str(v) for k, v in dict(a.values or {}).items()}
    elif a.kind in (Kind.ACCEPT, Kind.REJECT):
        out["offer"] = a.offer
    elif a.kind in (Kind.COMMENT, Kind.THREAT):
        out["index"] = a.index
    return out


def _action_of(data: Any) -> Any:
    """An :class:`Action`, or the item as sent (the rules record it as an invalid action)."""
    try:
        return Action.from_json(data)
    except ProtocolViolation:
        return data


def _actions(out: Any) -> list[Any]:
    """The answer to ``act``: a list, each item an :class:`Action` where it reads as one."""
    if not isinstance(out, list):
        raise ProtocolViolation(f"act returns a list of actions; got {str(out)[:200]}")
    return [_action_of(a) for a in out]


INTERFACE = Interface(HOST, {"start": None, "act": _actions, "end": None})
"""A GENIUS agent's calls: ``act``'s answer is a list of actions (checked by the rules)."""


def sandboxed(name: str, mode: str = "os", limits: Limits | None = None) -> RemoteGeniusAgent:
    """Start agent ``name`` (``pkg.module:Class``) in a sandbox of ``mode`` for one session."""
    return RemoteGeniusAgent(launch_entrant(INTERFACE, name, mode, limits, CALL_TIMEOUT))
