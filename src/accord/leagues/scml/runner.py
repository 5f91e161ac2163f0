"""Running SCML tournament worlds on the tournament layer: serial, on a local process
pool, or on Ray (:mod:`accord.tournament.pools`), with one row per finished world in a
resumable SQLite file (:class:`~accord.tournament.taskstore.TaskStore`, WAL mode), so an
interrupted tournament (even by kill -9) resumes where it stopped with the same call.

Example:
    >>> import tempfile, pathlib
    >>> from accord.leagues.scml.tournament import TournamentSpec
    >>> spec = TournamentSpec(["trader", "donothing"], n_configs=1, n_steps=5, n_per_world=2,
    ...                       isolation="none")  # trusted built-ins: in-process
    >>> with tempfile.TemporaryDirectory() as d:
    ...     res = run_tournament(spec, pathlib.Path(d) / "t.sqlite", executor="serial")
    >>> sorted(res.scores)
    ['donothing', 'trader']

The file's ``tasks`` table has one row per world: ``spec`` (the :class:`WorldRun` as
JSON), ``record`` (``scores`` per agent type, ``factory_scores``, ``bankruptcies``,
``exceptions`` (a count) and ``agent_exceptions`` (the first 50: day, agent, type,
method, message, traceback)), ``elapsed``, ``finished`` and ``worker``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from accord.core.errors import ConfigError
from accord.leagues.scml.generate import generate_config
from accord.leagues.scml.isolation import IsolatedAgent
from accord.leagues.scml.tournament import TournamentSpec, WorldRun, build_schedule, summarize
from accord.leagues.scml.world import AgentSpec, World
from accord.sandbox import require_mode
from accord.tournament.pools import POOLS
from accord.tournament.tasks import Job, run_tasks

__all__ = ["EXECUTORS", "TournamentResult", "describe", "run_tournament", "run_world"]

EXECUTORS = POOLS
_MAX_EXCEPTIONS = 50  # agent exceptions kept per world (the count is always complete)
_TRACE_CHARS = 4000


def run_world(run: WorldRun) -> dict[str, Any]:
    """Simulate one world and return its scores (runs in a worker; pure: same run, same
    record). Agents run in processes of their own as ``run.isolation`` says."""
    cfg = generate_config(
        n_steps=run.n_steps, factories_per_level=list(run.factories_per_level), seed=run.config_seed
    )
    agents: list[AgentSpec] = [
        IsolatedAgent(a, run.limits, run.sandbox) if run.isolated(i) else a
        for i, a in enumerate(run.agents)
    ]
    world = World(cfg, agents, seed=run.seed)
    world.run()
    groups = {t: list(fs) for t, fs in run.groups.items()}
    return {
        "scores": world.type_scores(groups),
        "factory_scores": world.scores(),
        "bankruptcies": len(world.history.bankruptcies),
        "exceptions": len(world.history.exceptions),
        "agent_exceptions": [
            {
                "day": e.day,
                "agent": e.agent,
                "type": run.agents[world.roster.index[e.agent]],
                "method": e.method,
                "message": e.message,
                "traceback": e.traceback[-_TRACE_CHARS:],
            }
            for e in world.history.exceptions[:_MAX_EXCEPTIONS]
        ],
    }


def describe(run: WorldRun) -> dict[str, Any]:
    """The JSON stored as a world's ``spec`` (kind, configuration, assignment, seeds)."""
    return asdict(run)


@dataclass
class TournamentResult:
    """Scores per competitor plus the raw per-world scores."""

    spec: TournamentSpec
    scores: dict[str, dict[str, float]]
    worlds: list[dict[str, Any]]
    path: Path

    def to_frame(self) -> Any:
        """Per-world, per-type scores as a pandas DataFrame."""
        import pandas as pd

        rows = [
            {**{k: v for k, v in asdict(w["run"]).items() if k != "groups"}, "type": t, "score": s}
            for w in self.worlds
            for t, s in w["scores"].items()
        ]
        return pd.DataFrame(rows)


def run_tournament(
    spec: TournamentSpec,
    path: str | Path,
    executor: str = "processes",
    workers: int | None = None,
    address: str | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> TournamentResult:
    """Run (or resume) a tournament; ``progress(done, total)`` is called as worlds finish.

    ``executor``: ``serial``, ``processes`` (``workers``, default all cores) or ``ray``
    (``address`` of a cluster, default a local Ray). Each world goes to a worker alone.
    """
    if executor not in EXECUTORS:
        raise ConfigError(f"executor must be one of {EXECUTORS}, got {executor!r}")
    if spec.isolation != "none":
        require_mode(spec.sandbox)  # one line saying why and how to fix, before any world
    schedule = build_schedule(spec)
    done = run_tasks(
        run_world,
        [Job(r.id, r) for r in schedule],
        out=path,
        settings={"league": "scml", "spec": spec.to_dict()},
        describe=describe,
        executor=executor,
        workers=workers,
        address=address,
        chunk=1,
        progress=progress,
    )
    records, elapsed = done.records, done.elapsed
    worlds = [
        {"run": r, **records[r.id], "elapsed": elapsed[r.id]} for r in schedule if r.id in records
    ]
    return TournamentResult(spec, summarize(worlds, spec), worlds, Path(path))
