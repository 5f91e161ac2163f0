"""ANAC 2017 Diplomacy tournaments on the tournament layer's task API (resumable).

Players are put in groups of 7 (the last one filled with non-negotiators, ``none``);
each group plays ``games`` games with a random power assignment per game. With more
than one group, the best player of each group (points, ties broken on total supply
centres) goes to a final, which plays ``games`` games too. Seat names are unique across
the tournament (``alliance#3`` is the fourth player entered). Each game is one task;
with ``out`` the records go into a SQLite task store, so the same call resumes a killed
run. Entered negotiators (``pkg.module:Class``) run in the sandbox (``sandbox="os"`` by
default); the clock is virtual unless ``clock="real"`` (30 s rounds by default).

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
from .scoring import LAST_YEAR, Standing, check_last_year, standings

__all__ = [
    "all_jobs",
    "final_jobs",
    "game_task",
    "group_winners",
    "make_jobs",
    "per_game",
    "player_of",
    "run_tournament",
    "seat_names",
    "summary",
]


def game_task(spec: Mapping[str, Any]) -> dict[str, Any]:
    """Play one game from its spec (the task function; module-level, picklable)."""
    from .runner import play_game
    from .sandboxed import negotiator_for

    seed = int(spec["seed"])
    players: dict[str, str] = dict(spec["players"])
    sandbox = str(spec.get("sandbox", "os"))
    call_seconds = float(spec.get("call_seconds", 5.0))
    negs = {
        p: negotiator_for(name, seed * 10 + i, sandbox=sandbox, call_seconds=call_seconds)
        for i, (p, name) in enumerate(players.items())
    }
    rec = play_game(
        negs,
        names=players,
        seed=seed,
        clock=str(spec.get("clock", "virtual")),
        round_seconds=float(spec.get("round_seconds", 30.0)),
        ticks=int(spec.get("ticks", 3)),
        last_year=int(spec.get("last_year", 1920)),
        candidates=int(spec.get("candidates", 3)),
    )
    out = rec.to_json()
    out.pop("phases")
    return out


def seat_names(players: Sequence[str]) -> list[list[str]]:
    """Groups of 7 seat names, unique across groups (filled with ``none#g.k``).

    >>> seat_names(["alliance", "alliance", "random-deals"])[0][:4]
    ['alliance#0', 'alliance#1', 'random-deals', 'none#0.3']
    """
    names = list(players)
    groups = [names[i : i + 7] for i in range(0, len(names), 7)] or [[]]
    out = []
    k = 0
    for g, group in enumerate(groups):
        seats = []
        for n in group:
            seats.append(f"{n}#{k}" if names.count(n) > 1 else n)
            k += 1
        seats += [f"none#{g}.{i}" for i in range(len(seats), 7)]
        out.append(seats)
    return out


def player_of(seat: str) -> str:
    """The negotiator a seat plays: ``"alliance#3"`` -> ``"alliance"``."""
    return seat.split("#")[0]


def make_jobs(
    players: Sequence[str], games: int, seed: int = 0, **options: Any
) -> list[tuple[str, dict[str, Any]]]:
    """Groups of 7 (filled with ``none``), random power assignment per game."""
    from .sandboxed import check_players

    check_players(list(players))
    if games < 1:
        raise ConfigError(f"games: expected at least 1, got {games}")
    check_last_year(int(options.get("last_year", LAST_YEAR)))
    for key in ("round_seconds", "call_seconds"):
        if key in options and not float(options[key]) > 0:
            raise ConfigError(f"{key.replace('_', ' ')}: expected > 0, got {options[key]}")
    rng = random.Random(seed)
    jobs = []
    for g, seats in enumerate(seat_names(players)):
        jobs += _group_jobs(f"g{g}", seats, games, rng, options)
    return jobs


def _group_jobs(
    prefix: str, seats: Sequence[str], games: int, rng: random.Random, options: dict[str, Any]
) -> list[tuple[str, dict[str, Any]]]:
    jobs = []
    for n in range(games):
        order = list(seats)
        rng.shuffle(order)
        seating = dict(zip(POWERS, order, strict=True))
        spec: dict[str, Any] = {"seed": rng.randrange(2**31), "seats": seating, **options}
        spec["players"] = {p: player_of(s) for p, s in seating.items()}
        jobs.append((f"{prefix}-{n}", spec))
    return jobs


def group_winners(
    records: Mapping[str, Mapping[str, Any]], jobs: Sequence[tuple[str, dict[str, Any]]]
) -> list[str]:
    """The best seat of each group (points, then total supply centres), group by group."""
    groups: dict[str, list[tuple[str, dict[str, Any]]]] = {}
    for jid, spec in jobs:
        groups.setdefault(jid.split("-")[0], []).append((jid, spec))
    winners = []
    for g in sorted(groups, key=lambda x: int(x[1:])):
        rows = summary({j: records[j] for j, _ in groups[g] if j in records}, groups[g])
        entered = [r for r in rows if not r.player.startswith("none#")] or rows
        winners.append(entered[0].player)
    return winners


def final_jobs(
    winners: Sequence[str], games: int, seed: int = 0, **options: Any
) -> list[tuple[str, dict[str, Any]]]:
    """The final: the groups' winners (filled with ``none``) play ``games`` games."""
    seats = list(winners)[:7] + [f"none#f.{i}" for i in range(len(winners), 7)]
    return _group_jobs("final", seats, games, random.Random(seed * 7919 + 1), options)


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
    """Run (or resume) the groups and, with more than one group, the final; returns the
    game records by task id (``g0-3``, ``final-2``)."""
    from accord.tournament.tasks import run_tasks

    from .sandboxed import check_entries

    check_entries(list(players))
    jobs = make_jobs(players, games, seed, **options)
    settings = {"players": list(players), "games": games, "seed": seed, **options}
    run = run_tasks(
        game_task, jobs, out=out, settings=settings, executor=executor, workers=workers, chunk=1
    )
    records = dict(run.records)
    if len(seat_names(players)) > 1:
        fjobs = final_jobs(group_winners(records, jobs), games, seed, **options)
        final_out = None if out is None else Path(str(out) + ".final")
        fin = run_tasks(
            game_task,
            fjobs,
            out=final_out,
            settings={**settings, "final": True},
            executor=executor,
            workers=workers,
            chunk=1,
        )
        records.update(fin.records)
    return records


def all_jobs(
    players: Sequence[str],
    games: int,
    records: Mapping[str, Mapping[str, Any]],
    seed: int = 0,
    **options: Any,
) -> list[tuple[str, dict[str, Any]]]:
    """The group jobs and, when the tournament had one, the final's (for `summary`)."""
    jobs = make_jobs(players, games, seed, **options)
    if len(seat_names(players)) > 1:
        jobs += final_jobs(group_winners(records, jobs), games, seed, **options)
    return jobs


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
