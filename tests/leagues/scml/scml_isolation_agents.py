"""Agents that misbehave, for the isolation tests (imported by name in spawned processes)."""

from __future__ import annotations

import gc
import json
import os
import time

from accord.leagues.scml.agents import DoNothingAgent
from accord.leagues.scml.contracts import BreachKind, BreachReport

#: type names of the world's state objects: none may exist in an isolated agent's process
WORLD_TYPES = {"World", "WorldState", "Ledger", "ContractBook", "Market", "History"}


class Spy(DoNothingAgent):
    """Tries every way to read private state or forge public state, then reports (by
    raising, the one channel to the world's record) what it found. Otherwise it does
    nothing, so the world must be exactly that of a do-nothing agent."""

    def init(self) -> None:
        awi = self.awi
        found: dict[str, object] = {}
        found["world_objects"] = sorted(
            {type(o).__name__ for o in gc.get_objects() if type(o).__name__ in WORLD_TYPES}
        )
        try:
            found["world"] = repr(awi._w)  # type: ignore[attr-defined]
        except AttributeError as exc:
            found["world"] = f"AttributeError: {exc}"
        try:  # ask the world for a private field through the message channel itself
            found["raw"] = repr(awi._ask("_w", []))  # type: ignore[attr-defined]
        except Exception as exc:  # noqa: BLE001
            found["raw"] = f"{type(exc).__name__}: {exc}"
        other = awi.my_consumers[0]
        # forge a breach of another factory and damage the board, inventory and schedule
        board = awi.bb._board  # type: ignore[attr-defined]
        board.publish_breach(BreachReport(other, 1.0, BreachKind.INSUFFICIENT_FUNDS, 0))
        board._market.clear()
        state = awi.state
        state.inventory[:] = 10**6
        state.commands[:] = 0
        found["forged_locally"] = len(awi.bb.breaches)
        found["other_reports"] = [r.balance for r in awi.bb.financial_reports]
        found["awi_fields"] = sorted(vars(awi))
        found["profile"] = {k: awi._static[k] for k in ("agent", "cost")}  # type: ignore[attr-defined]
        raise RuntimeError("SPY " + json.dumps(found))


class Crasher(DoNothingAgent):
    """Kills its own process on day 1."""

    def step(self) -> None:
        if self.awi.current_step == 1:
            os._exit(3)


class Hanger(DoNothingAgent):
    """Never returns from step on day 1."""

    def step(self) -> None:
        if self.awi.current_step == 1:
            while True:
                time.sleep(0.05)


class Raiser(DoNothingAgent):
    """Raises in every step (and lives on); isolated, it asks for 4 GiB on day 3."""

    def step(self) -> None:
        day = self.awi.current_step
        if day == 3 and type(self.awi).__name__ == "RemoteAWI":  # only under a memory limit
            self.hoard = bytearray(4 << 30)
        self._fail(day)

    def _fail(self, day: int) -> None:
        raise ValueError(f"raiser failed on day {day}")


# agents of the in-process tests, for the same runs isolated
from test_scml_agents import AcceptingSeller, ControlledBuyer, EmpoweredBuyer  # noqa: E402

__all__ = [
    "AcceptingSeller",
    "ControlledBuyer",
    "Crasher",
    "EmpoweredBuyer",
    "Hanger",
    "Raiser",
    "Spy",
]
