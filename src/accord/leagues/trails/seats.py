"""A Colored Trails agent in a seat of the agent driver.

:class:`TrailsSeat` turns the driver's ``act(state, party)`` into the agent's own calls:
``propose``, ``respond``, ``transfer`` and ``move`` (a whole path, played one step per
``act`` and then ``EndMove``), and tells the agent how each finished turn went
(``observe``) before it next acts and at the end. A proposal that is not a
:class:`~accord.leagues.trails.engine.Propose` is a pass; a missing transfer sends
nothing; the rules check everything else.

    >>> from accord.core.protocols.driver import AgentDriver
    >>> from accord.leagues.trails.baselines import BASELINES
    >>> from accord.leagues.trails.generator import generate
    >>> from accord.leagues.trails.rules import TrailsRules
    >>> seats = [TrailsSeat(BASELINES["reliable"](), k, np.random.default_rng(k)) for k in (0, 1)]
    >>> d = AgentDriver(TrailsRules(), generate("mutual", 1), seats, ["a", "b"])
    >>> d.run()["end"] in ("goal", "dormant", "max_turns")
    True
"""

from __future__ import annotations

from collections import deque
from typing import Any

import numpy as np

from accord.leagues.trails.agent import Agent, make_view
from accord.leagues.trails.engine import (
    Action,
    EndMove,
    Game,
    Move,
    Pass,
    Phase,
    Propose,
    Respond,
    Transfer,
)

__all__ = ["TrailsSeat"]


class TrailsSeat:
    """Player ``me``'s in-process :class:`~accord.leagues.trails.agent.Agent`."""

    def __init__(self, agent: Agent, me: int, rng: np.random.Generator) -> None:
        self.agent = agent
        self.me = me
        self.rng = rng
        self.name = agent.name
        self._game: Game | None = None
        self._seen = 0
        self._path: deque[Any] = deque()
        self._path_turn = -1

    def start(self, state: Game) -> None:
        self._game = state
        self._seen = len(state.history)
        self.agent.start(self.me, self.rng)

    def rejoin(self, state: Game) -> None:
        """Start the agent on a game that may be under way: it hears every finished turn
        (a server resuming a game after a restart; on a new game this is :meth:`start`)."""
        self._game = state
        self._seen = 0
        self.agent.start(self.me, self.rng)
        self._catch_up(state)

    def act(self, state: Game, party: int) -> Action:
        self._game = state
        self._catch_up(state)
        view = make_view(state, party)
        phase = state.phase
        if phase is Phase.PROPOSE:
            prop = self.agent.propose(view)
            return prop if isinstance(prop, Propose) else Pass()
        if phase is Phase.RESPOND:
            assert state.proposal is not None
            return Respond(bool(self.agent.respond(view, state.proposal)))
        if phase is Phase.TRANSFER:
            promised = tuple(int(x) for x in state.promised(party))
            expected = tuple(int(x) for x in state.promised(1 - party))
            send = self.agent.transfer(view, promised, expected)
            return Transfer(tuple(send) if send is not None else (0,) * len(promised))
        if self._path_turn != state.turn:
            self._path_turn = state.turn
            self._path = deque(self.agent.move(view) or [])
        return Move(int(self._path.popleft())) if self._path else EndMove()

    def end(self, result: Any) -> None:
        if self._game is not None:
            self._catch_up(self._game)

    def catch_up(self, state: Game) -> None:
        """Tell the agent now of every turn finished since it last heard (a server does
        this after each turn, so the agent hears of a turn at once, as it did before)."""
        self._game = state
        self._catch_up(state)

    def _catch_up(self, state: Game) -> None:
        """Tell the agent of every turn finished since it last heard."""
        while self._seen < len(state.history):
            rec = state.history[self._seen]
            self._seen += 1
            self.agent.observe(make_view(state, self.me), rec)
