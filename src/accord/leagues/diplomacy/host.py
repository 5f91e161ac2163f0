"""The Diplomacy host: runs an entered negotiator inside `accord.sandbox`.

The organiser's side (`accord.leagues.diplomacy.sandboxed`) sends, at every tick of a
round, one ``negotiate`` call whose payload is what the power may see: the phase, the
units and centres on the board, the proposals addressed to it, its own confirmed deals
and the notary's messages to it. The host rebuilds the board on its own copy of the
engine's game, hands the negotiator a `HostedRound` (the same API as `Round`: propose,
accept, reject, withdraw, propose_draw, read its own deals, ask its own tactical module
for plans) and answers with the requests the negotiator made and its allies. Nothing in
here can reach the notary, the other powers' deals or the real game: they are in
another process.

Example (what the organiser does)::

    box = start_sandbox("accord.leagues.diplomacy.host:DiplomacyHost", "mine:Peaceful")
    answer = box.call("negotiate", view)   # {"actions": [...], "allies": [...]}
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from accord.core.errors import ConfigError, ProtocolViolation
from accord.sandbox.host import Host, HostContext

from .deals import SEASONS, Deal
from .notary import Event, Proposal
from .tactics import Plan, Tactics

__all__ = ["DiplomacyHost", "HostedRound", "build_negotiator"]


def build_negotiator(agent: str, seed: int | None) -> Any:
    """Import ``pkg.module:Class`` (or a built-in name) and build it with ``seed``."""
    from accord.core.imports import import_object

    from .negotiator import NEGOTIATORS

    if agent in NEGOTIATORS:
        neg = NEGOTIATORS[agent](seed)
        if neg is None:
            raise ConfigError(f"{agent!r} does not negotiate")
        return neg
    cls = import_object(agent, "negotiator")
    try:
        return cls(seed)
    except TypeError:
        return cls()


@dataclass
class HostedRound:
    """A negotiator's handle inside the sandbox: its view, and the requests it makes."""

    power: str
    game: Any
    phase: str
    deadline: float
    tactics: Tactics
    _proposals: list[Proposal]
    _confirmed: list[Deal]
    _messages: list[Event]
    actions: list[dict[str, Any]] = field(default_factory=list)
    _cache: dict[tuple[object, ...], Plan] = field(default_factory=dict)

    @property
    def when(self) -> tuple[int, str]:
        """``(year, "S" | "F")`` of this round."""
        return (int(self.phase[1:5]), self.phase[0])

    def time_left(self) -> float:
        """Ticks (virtual clock) or seconds (real clock) left in the round."""
        return self.deadline

    def proposals(self) -> list[Proposal]:
        """Pending proposals that involve me."""
        return list(self._proposals)

    def confirmed(self) -> list[Deal]:
        """My confirmed deals that are still valid."""
        return list(self._confirmed)

    def messages(self) -> list[Event]:
        """The notary's messages to me since the last call."""
        out, self._messages = self._messages, []
        return out

    def propose(self, deal: Deal) -> str | None:
        """Ask the notary to register ``deal`` (its id arrives with the next messages)."""
        self.actions.append({"op": "propose", "deal": deal.to_json()})
        return None

    def accept(self, pid: str) -> bool:
        """Accept proposal ``pid`` (whether it confirmed arrives with the next messages)."""
        self.actions.append({"op": "accept", "id": pid})
        return False

    def reject(self, pid: str) -> None:
        """Reject ``pid`` (withdraws my acceptance before confirmation)."""
        self.actions.append({"op": "reject", "id": pid})

    def withdraw(self, pid: str) -> None:
        """Withdraw my acceptance of ``pid`` (the same as rejecting it)."""
        self.actions.append({"op": "withdraw", "id": pid})

    def propose_draw(self) -> None:
        """Vote for a draw this round."""
        self.actions.append({"op": "draw"})

    def plan(self, extra: Any = (), power: str | None = None, allies: Any = ()) -> Plan:
        """My own tactical module's plan for ``power`` (me by default) with ``extra`` deals."""
        who = power or self.power
        deals = [*(self._confirmed if who == self.power else []), *extra]
        key = (who, tuple(deals), frozenset(allies))
        plan = self._cache.get(key)
        if plan is None:
            plan = self._cache[key] = self.tactics.plan(self.game, who, deals, allies)
        return plan


class DiplomacyHost(Host):
    """Builds the negotiator and answers ``negotiate`` calls (see the module docstring)."""

    def __init__(self, agent: str, context: HostContext) -> None:
        super().__init__(agent, context)
        seed = context.extra.get("seed")
        self.negotiator = build_negotiator(agent, seed if isinstance(seed, int) else None)
        self.tactics = Tactics(candidates=3, seed=random.Random(seed).randrange(2**31))
        from .engine import new_game

        self._game: Any = new_game()  # at start-up, so that calls stay quick
        self._phase_key: Any = None

    def _board(self, view: dict[str, Any]) -> Any:
        key = (view["phase"], repr(view["units"]), repr(view["centres"]))
        if key == self._phase_key:
            return self._game
        game = self._game
        game.set_current_phase(view["phase"])
        game.clear_units()
        for power, units in view["units"].items():
            game.set_units(power, list(units), reset=True)
        for power, centres in view["centres"].items():
            game.set_centers(power, list(centres), reset=True)
        self._phase_key = key
        return game

    def handle(self, op: str, payload: Any) -> Any:
        if op != "negotiate":
            raise ProtocolViolation(f"unknown op {op!r}; expected 'negotiate'")
        view = payload
        game = self._board(view)
        rnd = HostedRound(
            power=str(view["power"]),
            game=game,
            phase=str(view["phase"]),
            deadline=float(view["time_left"]),
            tactics=self.tactics,
            _proposals=[
                Proposal(str(p["id"]), Deal.from_json(p["deal"]), set(p["accepted"]))
                for p in view["proposals"]
            ],
            _confirmed=[Deal.from_json(d) for d in view["confirmed"]],
            _messages=[
                Event(
                    int(view["phase"][1:5]),
                    view["phase"][0] if view["phase"][0] in SEASONS else "S",
                    str(m["kind"]),
                    str(m["id"]),
                    str(m["from"]),
                    tuple(m["to"]),
                )
                for m in view["messages"]
            ],
        )
        self.negotiator.negotiate(rnd)
        allies = sorted(str(a) for a in getattr(self.negotiator, "allies", ()) or ())
        return {"actions": rnd.actions, "allies": allies}
