"""The default tournament: built-in agents on the bundled scenarios, with learning.

``accord tournament`` with no arguments runs it. It uses the bundled scenarios
``job_offer``, ``car_purchase`` (bilateral) and ``holiday`` (three parties) when they are
available, otherwise the built-in generated ones, and three repetitions so that the
learning agent has something to learn from.

    >>> cfg = default_config()
    >>> [a.name for a in cfg.agents]
    ['Boulware', 'Conceder', 'Linear', 'TitForTat', 'Learner']
    >>> cfg.learning, cfg.reps
    (True, 3)
"""

from __future__ import annotations

from pathlib import Path

from accord.tournament.config import AgentSpec, TournamentConfig
from accord.tournament.scenarios import bundled_scenarios

DEFAULT_OUT = Path("results") / "default-tournament.sqlite"
_PREFERRED = ("job_offer", "car_purchase", "holiday")

_AGENTS = (
    AgentSpec("Boulware", "accord.agents.timebased:Boulware"),
    AgentSpec("Conceder", "accord.agents.timebased:Conceder"),
    AgentSpec("Linear", "accord.agents.timebased:Linear"),
    AgentSpec("TitForTat", "accord.agents.titfortat:TitForTat"),
    AgentSpec("Learner", "accord.agents.learning:Learner"),
)


def default_config(seed: int = 0) -> TournamentConfig:
    """The default tournament's configuration."""
    bundled = set(bundled_scenarios())
    scenarios: list[str] = [s for s in _PREFERRED if s in bundled]
    if not scenarios:
        scenarios = ["builtin:bilateral", "builtin:trilateral"]
    agents = [a for a in _AGENTS if _importable(a.type)]
    return TournamentConfig(
        agents=tuple(agents),
        scenarios=tuple(scenarios),
        reps=3,
        learning=True,
        rounds=100,
        seed=seed,
        name="default",
    )


def _importable(target: str) -> bool:
    from accord.core.errors import ConfigError
    from accord.tournament.agents import agent_factory

    try:
        agent_factory(target)
    except ConfigError:
        return False
    return True
