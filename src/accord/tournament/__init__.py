"""Tournaments: schedule, run (serial, processes, Ray), store (SQLite), score, report.

    >>> from accord.tournament import TournamentConfig, schedule
    >>> cfg = TournamentConfig(["accord.agents.timebased:Boulware",
    ...                         "accord.agents.timebased:Conceder"], ["builtin:tiny"])
    >>> len(schedule(cfg))
    8

Independent tasks of any kind (a league's worlds, fast rounds) run on the same
executors and a resumable store through ``run_tasks(fn, [Job(id, spec), ...])``.

Everything but the configuration is imported on first use; the heavier pieces (``Results``, the scores and the report, which need pandas, scipy
and matplotlib) are imported on first use.
"""

from __future__ import annotations

import importlib
from typing import Any

from accord.tournament.config import AgentSpec, TournamentConfig
from accord.tournament.schedule import SessionSpec, schedule  # a module of the same name

# imported on first use: a sandboxed agent's process imports this package (its host and
# the agents' specs live here) and should not pay for the runner it never uses
_LAZY = {
    "Memory": "accord.tournament.memory",
    "PastSession": "accord.tournament.memory",
    "TournamentRun": "accord.tournament.runner",
    "run_tournament": "accord.tournament.runner",
    "Results": "accord.tournament.results",
    "leaderboard": "accord.tournament.scores",
    "leaderboards": "accord.tournament.scores",
    "agent_vs_agent": "accord.tournament.scores",
    "by_scenario": "accord.tournament.scores",
    "write_report": "accord.tournament.report",
    "default_config": "accord.tournament.default",
    "Job": "accord.tournament.tasks",
    "TaskRun": "accord.tournament.tasks",
    "run_tasks": "accord.tournament.tasks",
    "TaskStore": "accord.tournament.taskstore",
    "make_pool": "accord.tournament.pools",
}

__all__ = [
    "AgentSpec",
    "Memory",
    "PastSession",
    "SessionSpec",
    "TournamentConfig",
    "TournamentRun",
    "run_tournament",
    "schedule",
    *sorted(_LAZY),
]


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'accord.tournament' has no attribute {name!r}")
