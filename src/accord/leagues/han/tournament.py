"""Agents against a pool of simulated participants, on the tournament layer.

Every agent meets every participant type ``n`` times on every game (a fresh agent and
a fresh participant each time, seeds from the game's index); the games run as tasks of
:func:`accord.tournament.tasks.run_tasks` (serial, processes or Ray; with ``out`` a
SQLite file that a killed run resumes from). :func:`summarize` gives each agent's mean
points, its mean likeability proxy with a 95 % interval, deals and lies.

    >>> res = run_tournament(["fair", "tough"], ["cooperative"], n=1, games=["example-1"])
    >>> [(r["agent"], r["games"]) for r in res["agents"]]
    [('fair', 1), ('tough', 1)]
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from accord.core.errors import ConfigError
from accord.core.imports import import_object, is_import_path
from accord.leagues.han.agents import EXAMPLE_AGENTS
from accord.leagues.han.api import HanAgent
from accord.leagues.han.domain import domain
from accord.leagues.han.match import play
from accord.leagues.han.participants import PARTICIPANTS
from accord.leagues.han.scoring import csv_row, likeability_proxy
from accord.tournament.tasks import Job, run_tasks

__all__ = ["agent_class", "play_task", "run_tournament", "summarize"]


def agent_class(name: str, table: dict[str, type[HanAgent]] | None = None) -> type[HanAgent]:
    """An example agent (or participant with ``table``) by name, or any ``pkg.mod:Class``."""
    table = EXAMPLE_AGENTS if table is None else table
    if name in table:
        return table[name]
    if is_import_path(name):
        cls = import_object(name)
        if isinstance(cls, type) and issubclass(cls, HanAgent):
            return cls
        raise ConfigError(f"{name!r} is not a HanAgent subclass")
    raise ConfigError(f"unknown HAN agent {name!r}; known: {', '.join(table)} or pkg.module:Class")


def play_task(spec: dict[str, Any]) -> dict[str, Any]:
    """One game (a tournament task): returns the CSV row, outcome and proxy."""
    game = domain(spec["game"])
    if spec.get("time") is not None:
        game = game.with_time(float(spec["time"]))
    rec = play(
        game,
        agent_class(spec["agent"]),
        agent_class(spec["person"], PARTICIPANTS),
        seed=int(spec["seed"]),
    )
    row = csv_row(rec, spec["id"], spec.get("study", "han-sim"))
    return {
        "agent": spec["agent"],
        "person": spec["person"],
        "game": game.name,
        "outcome": rec.result.outcome.value,
        "points": rec.result.points["agent"],
        "person_points": rec.result.points["person"],
        "likeability": likeability_proxy(rec),
        "lies": rec.game.counts["VHLie"],
        "invalid": len(rec.result.violations),
        "row": row,
    }


def run_tournament(
    agents: Sequence[str],
    participants: Sequence[str] = tuple(PARTICIPANTS),
    *,
    n: int = 1,
    games: Sequence[str] = ("example-1", "example-2"),
    out: str | Path | None = None,
    executor: str = "serial",
    workers: int | None = None,
    time_limit: float | None = None,
) -> dict[str, Any]:
    """Run the pool; returns ``{"agents": summary rows, "games": per-game records}``.

    Everything is checked before a game is played or ``out`` is made: ``n`` of at
    least 1, known agents, participants and games, none named twice.
    """
    if n < 1:
        raise ConfigError(f"games per agent, participant and game (n) must be at least 1; got {n}")
    for kind, names in (("agent", agents), ("participant", participants), ("game", games)):
        if not names:
            raise ConfigError(f"give at least one {kind}")
        for name in names:
            if list(names).count(name) > 1:
                raise ConfigError(f"{kind} {name!r} is named twice")
    for a in agents:
        agent_class(a)
    for p in participants:
        agent_class(p, PARTICIPANTS)
    for g in games:
        domain(g)
    jobs = []
    for a in agents:
        for p in participants:
            for g in games:
                for k in range(n):
                    jid = f"{a}|{p}|{g}|{k}"
                    spec = {
                        "id": jid,
                        "agent": a,
                        "person": p,
                        "game": g,
                        "seed": k,
                        "time": time_limit,
                    }
                    jobs.append(Job(jid, spec))
    settings = {
        "agents": list(agents),
        "participants": list(participants),
        "n": n,
        "games": list(games),
        "time": time_limit,
    }
    run = run_tasks(play_task, jobs, out=out, settings=settings, executor=executor, workers=workers)
    records = list(run.records.values())
    return {"agents": summarize(records), "games": records}


def summarize(records: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per agent: games, mean points (± 95 % interval, games as units), deals, mean likeability proxy ± 95 % interval, lies."""
    out = []
    for a in dict.fromkeys(r["agent"] for r in records):
        rs = [r for r in records if r["agent"] == a]
        pts = [float(r["points"]) for r in rs]
        like = [float(r["likeability"]) for r in rs]
        m, half = _mean_ci(like)
        pm, phalf = _mean_ci(pts)
        qm, qhalf = _mean_ci([float(r["person_points"]) for r in rs])
        out.append(
            {
                "agent": a,
                "games": len(rs),
                "points": round(pm, 3),
                "points_ci95": round(phalf, 3),
                "person_points": round(qm, 3),
                "person_points_ci95": round(qhalf, 3),
                "deals": sum(r["outcome"] == "deal" for r in rs),
                "likeability": round(m, 3),
                "likeability_ci95": round(half, 3),
                "lies": sum(int(r["lies"]) for r in rs),
            }
        )
    return out


def _mean_ci(xs: Sequence[float]) -> tuple[float, float]:
    n = len(xs)
    m = sum(xs) / n
    if n < 2:
        return m, 0.0
    sd = math.sqrt(sum((x - m) ** 2 for x in xs) / (n - 1))
    return m, 1.96 * sd / math.sqrt(n)
