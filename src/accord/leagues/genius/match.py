"""Two agents in one session on a virtual clock: ``Match(...).step()`` / ``.run()``.

Each turn, the agents are asked in alternation (the side that starts alternates with the
turn) until a round of asks brings no action or ``asks_per_turn`` rounds were made; then
the clock moves to the next turn. An agent that raises or returns something that is not
a list of actions has that recorded against it as an invalid action; the session goes on.

    >>> from accord.leagues.genius.loading import load_domain
    >>> from accord.leagues.genius.pdas import make_agent
    >>> m = Match(load_domain("job_candidate"), (make_agent("conceder"), make_agent("fair")),
    ...           types=(0, 2), seed=3)
    >>> m.run().reason.value in ("agreement", "opt_out", "deadline")
    True
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from accord.core.errors import ConfigError
from accord.leagues.genius.agent import GeniusAgent, PartyView
from accord.leagues.genius.domain import Domain
from accord.leagues.genius.protocol import (
    Action,
    GeniusResult,
    GeniusSession,
    Phase,
    Rules,
    VirtualClock,
)

__all__ = [
    "MAX_ACTIONS",
    "Match",
]

MAX_ACTIONS = 20
"""Most actions one ask may return; more is an invalid action."""


class Match:
    """A session between two agents, advanced one ask at a time on a virtual clock."""

    def __init__(
        self,
        domain: Domain,
        agents: Sequence[GeniusAgent],
        types: tuple[int, int] = (0, 0),
        rules: Rules | None = None,
        seed: int = 0,
        asks_per_turn: int = 3,
    ) -> None:
        if len(agents) != 2:
            raise ConfigError(f"a GENIUS session has 2 agents, got {len(agents)}")
        self.rules = rules or Rules(turn_seconds=1.0)
        self.clock = VirtualClock()
        self.session = GeniusSession(domain, types, self.rules, self.clock)
        self.agents = tuple(agents)
        self.views = tuple(PartyView(self.session, k, seed * 2 + k) for k in range(2))
        self.asks_per_turn = asks_per_turn
        self._asks = 0
        self._quiet = 0
        self._ended = False

    @property
    def result(self) -> GeniusResult | None:
        """The result once the session has ended."""
        return self.session.result

    def run(self) -> GeniusResult:
        """Ask until the session ends."""
        while True:
            result = self.step()
            if result is not None:
                return result

    def step(self) -> GeniusResult | None:
        """One ask of one agent (or the move to the next turn)."""
        s = self.session
        if s.phase is Phase.CREATED:
            s.start()
            for k in range(2):
                self._guard(k, self.agents[k].on_start)
        if s.tick() is not None:
            return self._end()
        if self._asks >= 2 * self.asks_per_turn or self._quiet >= 2:
            self.clock.advance(self.rules.turn_seconds - self.clock.now % self.rules.turn_seconds)
            self._asks = self._quiet = 0
            return self._end() if s.tick() is not None else None
        k = (s.turn + self._asks) % 2
        self._asks += 1
        actions = self._guard(k, self.agents[k].act)
        if not actions:
            self._quiet += 1
            return None
        self._quiet = 0
        for action in actions:
            s.submit(k, action)
            if s.result is not None:
                return self._end()
        return None

    def _guard(self, k: int, fn: Callable[[PartyView], Any]) -> list[Action]:
        """Call ``fn(view)``; an exception or a wrong return is an invalid action of ``k``."""
        try:
            out = fn(self.views[k])
        except Exception as exc:  # noqa: BLE001 - an agent's error is its invalid action
            self.session.submit(k, f"agent raised {type(exc).__name__}: {exc}")
            return []
        if out is None:
            return []
        if not isinstance(out, list | tuple) or len(out) > MAX_ACTIONS:
            self.session.submit(k, out)
            return []
        return list(out)

    def _end(self) -> GeniusResult:
        result = self.session.result
        assert result is not None
        if not self._ended:
            self._ended = True
            for k in range(2):
                try:
                    self.agents[k].on_end(self.views[k], result)
                except Exception:  # noqa: BLE001, S112 - a failing end hook changes nothing
                    continue
        return result
