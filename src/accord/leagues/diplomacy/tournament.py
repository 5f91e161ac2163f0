"""ANAC 2017 Diplomacy tournaments on the tournament layer's task API (resumable).

Each group of 7 players (filled with non-negotiators, ``none``) plays ``games`` games with
a random power assignment per game. Each game is one task; with ``out`` the records go
into a SQLite task store, so the same call resumes a killed run.

Example (needs the engine):
    >>> res = run_tournament(["alliance"], games=1, last_year=1901)  # doctest: +SKIP
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from accord.core.errors import ConfigError

from .deals import POWERS
from .negotiator import NEGOTIATORS
from .scoring import Standing, standings

__all__ = ["game_task", "make_jobs", "per_game", "run_tournament", "summary"]


def game_task(spec: Mapping[str, Any]) -> dict[str, Any]:
    """Play one game from its spec (the task function; module-level, picklable)."""
    from .runner import play_game

    seed = int(spec["seed"])
    players: dict[str, str] = dict(spec["players"])
    negs = {p: NEGOTIATORS[name](seed * 10 + i) for i, (p, name) in enumerate(players.items())}
    rec = play_game(
        negs,
        names=players,
        seed=seed,
        clock="virtual",
        ticks=int(spec.get("ticks", 3)),
        last_year=int(spec.get("last_year", 1920)),
        candidates=int(spec.get("candidates", 3)),
    )
    out = rec.to_json()
    out.pop("phases")
    return out


def make_jobs(
    players: Sequence[str], games: int, seed: int = 0, **options: Any
) -> list[tuple[str, dict[str, Any]]]:
    """Groups of 7 (filled with ``none``), random power assignment per game."""
    for name in players:
        if name not in NEGOTIATORS:
            raise ConfigError(f"negotiator {name!r} unknown; expected one of {sorted(NEGOTIATORS)}")
    if games < 1:
        raise ConfigError(f"games: expected at least 1, got {games}")
    rng = random.Random(seed)
    names = list(players)
    groups = [names[i : i + 7] for i in range(0, len(names), 7)] or [[]]
    jobs = []
    for g, group in enumerate(groups):
        seats = [f"{n}#{k}" if names.count(n) > 1 else n for k, n in enumerate(group)]
        seats += [f"none#{k}" for k in range(7 - len(seats))]
        for n in range(games):
            order = list(seats)
            rng.shuffle(order)
            spec = {
                "seed": rng.randrange(2**31),
                "seats": dict(zip(POWERS, order, strict=True)),
                **options,
            }
            spec["players"] = {p: s.split("#")[0] for p, s in spec["seats"].items()}
            jobs.append((f"g{g}-{n}", spec))
    return jobs


def run_tournament(
    players: Sequence[str],
    games: int,
    *,
    seed: int = 0,
    out: str | Path | None = None,
    executor: str = "serial",
    workers: int | None = None,
    **options: Any,
) -> dict[str, dict[str, Any]]:
    """Run (or resume) a tournament; returns the game records by task id."""
    from accord.tournament.tasks import run_tasks

    jobs = make_jobs(players, games, seed, **options)
    settings = {"players": list(players), "games": games, "seed": seed, **options}
    run = run_tasks(
        game_task, jobs, out=out, settings=settings, executor=executor, workers=workers, chunk=1
    )
    return run.records


def summary(
    records: Mapping[str, Mapping[str, Any]], jobs: Sequence[tuple[str, dict[str, Any]]]
) -> list[Standing]:
    """Standings by seat (``alliance``, ``none#3``, ...): points, then supply centres."""
    seats = dict(jobs)
    games = []
    for jid, rec in records.items():
        games.append((seats[jid]["seats"], rec["centres"], rec["survivors"]))
    return standings(games)


def per_game(
    records: Mapping[str, Mapping[str, Any]], jobs: Sequence[tuple[str, dict[str, Any]]]
) -> dict[str, dict[str, tuple[int, int]]]:
    """``seat -> game id -> (points, supply centres)``, the units of the significance tests."""
    seats = dict(jobs)
    out: dict[str, dict[str, tuple[int, int]]] = {}
    for jid, rec in records.items():
        for power, seat in seats[jid]["seats"].items():
            out.setdefault(seat, {})[jid] = (int(rec["points"][power]), int(rec["centres"][power]))
    return out
