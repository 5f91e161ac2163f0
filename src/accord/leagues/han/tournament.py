"""Agents against a pool of simulated participants, on the tournament layer.

Every agent meets every participant type ``n`` times on every game (a fresh agent and
a fresh participant each time, seeds from the game's index); the games run as tasks of
:func:`accord.tournament.tasks.run_tasks` (serial, processes or Ray; with ``out`` a
SQLite file that a killed run resumes from). :func:`summarize` gives each agent's mean
points and likeability proxy, each with its 95 % t interval and n (games are the
units; see :mod:`accord.leagues.han.summary`), deals and lies.

    >>> res = run_tournament(["fair", "tough"], ["cooperative"], n=1, games=["example-1"])
    >>> [(r["agent"], r["games"]) for r in res["agents"]]
    [('fair', 1), ('tough', 1)]
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from accord.core.errors import ConfigError
from accord.core.imports import is_import_path
from accord.leagues.han.domain import domain
from accord.leagues.han.isolation import check_starts, isolated_factory
from accord.leagues.han.naming import agent_class
from accord.leagues.han.participants import PARTICIPANTS
from accord.leagues.han.play import play
from accord.leagues.han.scoring import csv_row, likeability_proxy
from accord.leagues.han.summary import interval_fields
from accord.sandbox import require_mode
from accord.tournament.tasks import Job, run_tasks

__all__ = ["agent_class", "play_task", "run_tournament", "summarize"]


def play_task(spec: dict[str, Any]) -> dict[str, Any]:
    """One game (a tournament task): returns the CSV row, outcome and proxy."""
    game = domain(spec["game"])
    if spec.get("time") is not None:
        game = game.with_time(float(spec["time"]))
    name = str(spec["agent"])
    mode = _mode(spec.get("sandbox", "os"))
    shared = spec.get("shared_process") or mode == "none"
    factory = agent_class(name) if shared else isolated_factory(name, mode=mode)
    rec = play(
        game,
        factory,
        agent_class(spec["person"], PARTICIPANTS),
        seed=int(spec["seed"]),
    )
    row = csv_row(rec, spec["id"], spec.get("study", "han-sim"))
    return {
        "agent": spec["agent"],
        "person": spec["person"],
        "game": game.name,
        "outcome": rec.result.outcome,
        "points": rec.result.points["agent"],
        "person_points": rec.result.points["person"],
        "likeability": likeability_proxy(rec),
        "lies": rec.game.counts["VHLie"],
        "invalid": len(rec.result.violations),
        "row": row,
    }


def _mode(sandbox: str | bool) -> str:
    """``True``/``False`` (the older switch) as ``os``/``process``."""
    if isinstance(sandbox, bool):
        return "os" if sandbox else "process"
    return str(sandbox)


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
    shared_process: bool = False,
    sandbox: str | bool = "os",
) -> dict[str, Any]:
    """Run the pool; returns ``{"agents": summary rows, "games": per-game records}``.

    Everything is checked before a game is played or ``out`` is made: ``n`` of at
    least 1, known agents, participants and games, none named twice. Every game's
    agent runs in a fresh process (:mod:`accord.leagues.han.isolation`), so no state
    kept in a class or a module passes from one game to the next; ``shared_process``
    runs agents in the task's own process (trusted and faster: class attributes and
    module globals then carry over between the games one worker runs).

    ``sandbox`` is how each game's process is isolated (:mod:`accord.sandbox`): ``os``
    (default: bubblewrap, the only way to keep a game file's values from an agent that
    goes looking for them; refused with one line where it cannot run), ``process`` (a
    plain child process, weaker: it can read the organiser's files and processes) or
    ``none`` (the same as ``shared_process``). ``True``/``False`` mean ``os``/``process``.
    """
    sandbox = _mode(sandbox)
    if sandbox not in ("os", "process", "none"):
        raise ConfigError(f"sandbox must be one of os, process, none; got {sandbox!r}")
    shared_process = shared_process or sandbox == "none"
    if n < 1:
        raise ConfigError(f"games per agent, participant and game (n) must be at least 1; got {n}")
    for kind, names in (("agent", agents), ("participant", participants), ("game", games)):
        if not names:
            raise ConfigError(f"give at least one {kind}")
        for name in names:
            if list(names).count(name) > 1:
                raise ConfigError(f"{kind} {name!r} is named twice")
    for a in agents:  # a submitted agent's code is imported only in its sandbox
        agent_class(a) if shared_process else isolated_factory(a, mode=sandbox)
    if not shared_process:
        require_mode(sandbox)
        for a in agents:  # each entrant built once in its sandbox, before any game
            if is_import_path(a):
                check_starts(a, sandbox)
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
                        "shared_process": shared_process,
                        "sandbox": sandbox,
                    }
                    jobs.append(Job(jid, spec))
    settings = {
        "agents": list(agents),
        "participants": list(participants),
        "n": n,
        "games": list(games),
        "time": time_limit,
        "shared_process": shared_process,
        "sandbox": "none" if shared_process else sandbox,
    }
    run = run_tasks(play_task, jobs, out=out, settings=settings, executor=executor, workers=workers)
    records = list(run.records.values())
    return {"agents": summarize(records), "games": records}


def summarize(records: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per agent: games, mean points, the participants' mean points and the mean
    likeability proxy, each with its 95 % t interval and n, deals and lies.

    The unit is a *distinct* game: games that came out identical (the same participant
    type, game and row, only the seed and id differ: the seed's small changes to the
    participant's values changed nothing) are one observation, not several, so ``*_n``
    (the effective n) can be below ``games``. Means and intervals are over the distinct
    games; ``games``, ``deals`` and ``lies`` count every game.

        >>> rec = {"agent": "a", "person": "p", "game": "g", "points": 5,
        ...        "person_points": 4, "likeability": 1.0, "outcome": "deal", "lies": 0}
        >>> twice = [{**rec, "row": {"id": "a|p|g|0", "x": 1}},
        ...          {**rec, "row": {"id": "a|p|g|1", "x": 1}}]
        >>> row = summarize(twice)[0]
        >>> row["games"], row["points_n"], row["points_ci95"]
        (2, 1, None)
    """
    out = []
    for a in dict.fromkeys(r["agent"] for r in records):
        rs = [r for r in records if r["agent"] == a]
        units = list({_identity(r, i): r for i, r in enumerate(rs)}.values())

        def means(key: str, units: list[dict[str, Any]] = units) -> dict[str, Any]:
            return interval_fields(key, [float(r[key]) for r in units])

        out.append(
            {
                "agent": a,
                "games": len(rs),
                **means("points"),
                **means("person_points"),
                "deals": sum(r["outcome"] == "deal" for r in rs),
                **means("likeability"),
                "lies": sum(int(r["lies"]) for r in rs),
            }
        )
    return out


def _identity(record: dict[str, Any], index: int) -> Any:
    """What makes two games the same observation: participant type, game and the whole
    row but its id (a record without a row is its own)."""
    row = record.get("row")
    if not isinstance(row, dict):
        return index
    rest = tuple(sorted((k, str(v)) for k, v in row.items() if k != "id"))
    return (record.get("person"), record.get("game"), rest)
