"""Play one game between two agents; a failing agent's action is recorded and nullified.

>>> from accord.leagues.trails.generator import generate
>>> r = play(generate("mutual", 1), ["purb", "reliable"], seed=0)
>>> r["end"] in {"goal", "dormant", "max_turns"}, len(r["scores"])
(True, 2)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from accord.core.errors import ConfigError
from accord.leagues.trails.agent import Agent
from accord.leagues.trails.board import Settings
from accord.leagues.trails.engine import (
    Game,
    Setup,
)
from accord.leagues.trails.naming import AGENTS, make_agent

__all__ = ["AGENTS", "make_agent", "play"]


def play(
    setup: Setup,
    agents: Sequence[str | Agent],
    *,
    rules: Settings | None = None,
    seed: int = 0,
    max_turns: int = 50,
    sandbox: str = "os",
) -> dict[str, Any]:
    """Play a game to its end; returns scores, end reason, per-turn history, violations.

    The agent driver runs :class:`~accord.leagues.trails.rules.TrailsRules` with each
    agent in a :class:`~accord.leagues.trails.seats.TrailsSeat`. ``max_turns`` (50) caps
    a game of agents that keep moving without ending it. An agent named by path
    (``pkg.module:Class``) runs in :mod:`accord.sandbox` (``sandbox``: ``os`` by
    default, ``process`` weaker, ``off`` in this process for trusted code); built-in
    agents run in this process.
    """
    from accord.core.protocols.driver import AgentDriver
    from accord.leagues.trails.naming import build_agent
    from accord.leagues.trails.rules import TrailsRules
    from accord.leagues.trails.sandboxed import agent_sandbox, close_all, sandboxed_agent
    from accord.leagues.trails.seats import TrailsSeat

    if len(agents) != 2:
        raise ConfigError(f"a Colored Trails game has 2 agents; got {len(agents)}")
    if seed < 0:
        raise ConfigError(f"the agents' seed is 0 or more; got {seed}")
    settings = rules if rules is not None else Settings(max_turns=max_turns)
    if any(isinstance(a, str) and agent_sandbox(a, sandbox) for a in agents):
        from accord.sandbox import require_mode

        require_mode(sandbox)  # a bad mode, or no OS sandbox here: refused before the game
    players: list[Agent] = []
    try:
        for a in agents:
            if isinstance(a, Agent):
                players.append(a)
            elif (mode := agent_sandbox(a, sandbox)) is not None:
                players.append(sandboxed_agent(a, mode))
            else:
                players.append(build_agent(a))
        seeds = np.random.SeedSequence(seed).spawn(2)
        seats = [TrailsSeat(a, k, np.random.default_rng(seeds[k])) for k, a in enumerate(players)]
        names = [a.name for a in players]
        driver = AgentDriver(TrailsRules(settings), setup, seats, names, seed=seed)
        driver.run()
        return result(driver.state, names)
    finally:
        close_all(players)


def result(game: Game, names: Sequence[str]) -> dict[str, Any]:
    """The JSON-able record of a finished (or current) game."""
    return {
        "agents": list(names),
        "scores": game.scores(),
        "end": game.end_reason.value if game.end_reason else None,
        "turns": len(game.history),
        "reached": [game.positions[k] == game.goals[k] for k in (0, 1)],
        "history": [r.to_dict() for r in game.history],
        "violations": [v.__dict__ for v in game.violations],
        "setup": game.setup.to_dict(),
    }
