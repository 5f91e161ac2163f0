"""Two agents in one session: ``Match(...).step()`` / ``.run()`` over the agent driver.

The agent driver runs :class:`~accord.leagues.genius.rules.GeniusRules` (the asks
schedule: each turn the agents are asked in alternation, the side that starts
alternating with the turn, until a round of asks brings no action or ``asks_per_turn``
rounds were made; then the session's time moves to the next turn) with each agent in a
:class:`GeniusSeat`. An agent that raises or returns something that is not a list of
actions has that recorded against it as an invalid action; the session goes on.

    >>> from accord.leagues.genius.loading import load_domain
    >>> from accord.leagues.genius.pdas import make_agent
    >>> m = Match(load_domain("job_candidate"), (make_agent("conceder"), make_agent("fair")),
    ...           types=(0, 2), seed=3)
    >>> m.run().reason.value in ("agreement", "opt_out", "deadline")
    True
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from accord.core.errors import ConfigError
from accord.core.protocols.driver import AgentDriver
from accord.leagues.genius.agent import GeniusAgent, PartyView
from accord.leagues.genius.domain import Domain
from accord.leagues.genius.protocol import GeniusResult, GeniusSession, Rules
from accord.leagues.genius.rules import MAX_ACTIONS, GeniusRules, GeniusSetup, GeniusState

__all__ = ["MAX_ACTIONS", "GeniusSeat", "Match"]


class GeniusSeat:
    """Side ``side``'s in-process :class:`~accord.leagues.genius.agent.GeniusAgent`."""

    def __init__(self, agent: GeniusAgent, side: int, seed: int) -> None:
        self.agent = agent
        self.side = side
        self.seed = seed
        self.name = agent.name
        self.view: PartyView | None = None

    def start(self, state: GeniusState) -> None:
        self.view = PartyView(state.session, self.side, self.seed)
        self.agent.on_start(self.view)

    def act(self, state: GeniusState, party: int) -> Any:
        assert self.view is not None
        out = self.agent.act(self.view)
        return () if out is None else out

    def end(self, result: Any) -> None:
        if self.view is not None:
            self.agent.on_end(self.view, result)


class Match:
    """A session between two agents, advanced one ask at a time (virtual turns)."""

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
        if asks_per_turn < 1:
            raise ConfigError(f"asks_per_turn must be at least 1; got {asks_per_turn}")
        self.rules = rules or Rules(turn_seconds=1.0)
        self.agents = tuple(agents)
        seats = [GeniusSeat(a, k, seed * 2 + k) for k, a in enumerate(self.agents)]
        self.driver = AgentDriver(
            GeniusRules(self.rules, asks_per_turn), GeniusSetup(domain, types), seats,
            [a.name for a in self.agents], seed=seed,
        )  # fmt: skip
        self.seats = tuple(seats)

    @property
    def session(self) -> GeniusSession:
        """The session (the rules' state)."""
        state: GeniusState = self.driver.state
        return state.session

    @property
    def result(self) -> GeniusResult | None:
        """The result once the session has ended."""
        return self.session.result

    def run(self) -> GeniusResult:
        """Ask until the session ends."""
        result: GeniusResult = self.driver.run()
        return result

    def step(self) -> GeniusResult | None:
        """One ask of one agent (the turn moves on by itself after its asks)."""
        result: GeniusResult | None = self.driver.step()
        return result
