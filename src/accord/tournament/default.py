"""The default tournament: built-in agents on the bundled scenarios, with learning.

``accord tournament`` with no arguments runs it. It uses the bundled scenarios
``job_offer``, ``car_purchase`` (bilateral) and ``holiday`` (three parties), and three
repetitions so that the learning agent has something to learn from.

    >>> cfg = default_config()
    >>> [a.name for a in cfg.agents]
    ['Boulware', 'Conceder', 'Linear', 'TitForTat', 'Frequency', 'Learner']
    >>> cfg.learning, cfg.reps
    (True, 3)
"""

from __future__ import annotations

from pathlib import Path

from accord.tournament.config import AgentSpec, TournamentConfig

DEFAULT_OUT = Path("results") / "default-tournament.sqlite"
_SCENARIOS = ("job_offer", "car_purchase", "holiday")

_AGENTS = (
    AgentSpec("Boulware", "accord.agents.timebased:Boulware"),
    AgentSpec("Conceder", "accord.agents.timebased:Conceder"),
    AgentSpec("Linear", "accord.agents.timebased:Linear"),
    AgentSpec("TitForTat", "accord.agents.titfortat:TitForTat"),
    AgentSpec("Frequency", "accord.agents.frequency:FrequencyAgent"),
    AgentSpec("Learner", "accord.agents.learning:Learner"),
)


def default_config(seed: int = 0) -> TournamentConfig:
    """The default tournament's configuration."""
    return TournamentConfig(
        agents=_AGENTS,
        scenarios=_SCENARIOS,
        reps=3,
        learning=True,
        rounds=100,
        seed=seed,
        name="default",
    )
