"""Analysis of Colored Trails games: promised versus sent chips, traits over time, scores.

Works on game records with a per-turn ``history`` (from :func:`~accord.leagues.trails.match.play`,
a tournament, or a study's ``trails.end`` events), so agents, simulated populations and
logged people are compared the same way.

    >>> from accord.leagues.trails.generator import generate
    >>> from accord.leagues.trails.match import play
    >>> g = play(generate("mutual", 1), ["reliable", "unreliable"], seed=0)
    >>> rows = player_rows(g, cls="mutual")
    >>> [(r["agent"], r["kept"]) for r in rows]
    [('reliable', 1.0), ('unreliable', 0.0)]
"""

from __future__ import annotations

import csv
import json
import math
from collections import defaultdict
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from accord.core.errors import ConfigError
from accord.core.stats import mean_interval
from accord.leagues.trails.purb import Traits, kept

__all__ = ["compare", "player_rows", "population_report", "rows_from_study_csv", "trajectories"]


def trajectories(
    history: Sequence[dict[str, Any]], discount: float = 0.1
) -> list[list[dict[str, float]]]:
    """Each player's reliability and helpfulness after every turn (PURB's discounted measure)."""
    traits = [Traits(discount), Traits(discount)]
    out: list[list[dict[str, float]]] = [[], []]
    for h in history:
        if h.get("accepted"):
            for k in (0, 1):
                helpful = None
                if k == h["proposer"] and h.get("give") is not None:
                    helpful = sum(h["give"]) > sum(h["take"])
                done = kept(h["promised"][k], h["sent"][k])  # colour by colour
                traits[k].observe(sum(h["promised"][k]), done, helpful)
        for k in (0, 1):
            out[k].append(
                {
                    "turn": h["turn"],
                    "reliability": traits[k].reliability,
                    "helpfulness": traits[k].helpfulness,
                }
            )
    return out


def player_rows(
    game: dict[str, Any], cls: str = "", population: str = "agents", game_id: str | None = None
) -> list[dict[str, Any]]:
    """One row per player: agent, partner, class, score, promised and sent chips, ratio kept,
    and the final reliability/helpfulness; ``game`` is ``game_id`` (rows of one game share
    it, so :func:`compare` counts a game once when both seats are one group)."""
    history = game.get("history", [])
    traj = trajectories(history)
    rows = []
    for k in (0, 1):
        promised = sum(sum(h["promised"][k]) for h in history if h.get("accepted"))
        sent = sum(
            min(sum(h["sent"][k]), sum(h["promised"][k])) for h in history if h.get("accepted")
        )
        rows.append(
            {
                "population": population,
                "game": game_id,
                "agent": game["agents"][k],
                "partner": game["agents"][1 - k],
                "cls": cls or game.get("cls", ""),
                "score": game["scores"][k],
                "reached": bool(game.get("reached", [False, False])[k]),
                "promised": promised,
                "sent": sent,
                "kept": round(sent / promised, 3) if promised else None,
                "reliability": round(traj[k][-1]["reliability"], 3) if traj[k] else 1.0,
                "helpfulness": round(traj[k][-1]["helpfulness"], 3) if traj[k] else 0.5,
                "turns": len(history),
            }
        )
    return rows


def rows_from_study_csv(path: str | Path) -> list[dict[str, Any]]:
    """Rows of the people in a study's CSV export (``trails.end`` events, one per person,
    population ``people``) and, for games against an agent, the agent's row (population
    ``agents-vs-people``)."""
    p = Path(path)
    if not p.is_file():
        raise ConfigError(f"expected a study CSV export (events.csv); {p} is not a file")
    rows = []
    with p.open(newline="") as f:
        reader = csv.DictReader(f)
        have = list(reader.fieldnames or [])
        if not {"kind", "data"} <= set(have):
            raise ConfigError(
                f"expected a study CSV export (events.csv) with columns kind and data; "
                f"{p} has columns {have}"
            )
        for r in reader:
            if r.get("kind") != "trails.end":
                continue
            try:
                d = json.loads(r["data"])
            except (TypeError, ValueError):
                raise ConfigError(
                    f"{p}: a trails.end row's data is not JSON: {r['data']!r:.80}"
                ) from None
            me = int(d["player"])
            condition = str(d.get("condition", ""))
            opponent = condition.rsplit("-vs-", 1)[-1] if "-vs-" in condition else "partner"
            names = [opponent, opponent]
            names[me] = "person"
            game = {"agents": names, "scores": d["scores"], "history": d.get("history", [])}
            gid = d.get("game")
            both = player_rows(
                game,
                cls=condition.split("-vs-", 1)[0],
                population="people",
                game_id=None if gid is None else f"study:{gid}",
            )
            rows.append(both[me])
            if opponent not in ("person", "partner"):
                rows.append(both[1 - me] | {"population": "agents-vs-people"})
    return rows


def population_report(
    agents: Sequence[str],
    pdas: Sequence[str],
    simulated: Sequence[str],
    *,
    study: str | Path | None = None,
    boards: int = 5,
    seed: int = 0,
) -> dict[str, dict[str, dict[str, Any]]]:
    """``agents`` against each population: the PDAs (``agents-vs-pdas``), the simulated
    people (``agents-vs-simulated-people``; :mod:`accord.leagues.trails.people`) and, with
    ``study`` (a study's CSV export), the logged people (``people``, ``agents-vs-people``).
    Each group has the agents' rows and the population's own members against the same
    population, so an agent is read beside the population it joins."""
    from accord.leagues.trails.tournament import run_tournament

    rows: list[dict[str, Any]] = []
    people = rows_from_study_csv(study) if study is not None else []  # checked before any game
    for label, pop in (("agents-vs-pdas", pdas), ("agents-vs-simulated-people", simulated)):
        if not pop:
            continue
        t = run_tournament(list(dict.fromkeys([*agents, *pop])), boards=boards, seed=seed)
        rows += [
            r
            for g in t["games"]
            for r in player_rows(
                g, population=label, game_id=f"{label}:{g['cls']}:{g['board']}:{g['agents']}"
            )
            if r["partner"] in pop and (r["agent"] in agents or r["agent"] in pop)
        ]
    return compare(rows + people)


def compare(rows: Iterable[dict[str, Any]]) -> dict[str, dict[str, dict[str, Any]]]:
    """Per population and agent: games (the units, ``n``), mean score with its 95 % t
    interval (``score_ci95``, None below two units), goal rate, chips kept ratio (``None``
    when nothing was promised) and reliability.

    The unit is the game: rows of one group that share a ``game`` id (both seats of a
    self-play game, or two people who played each other) count once, with their mean
    score; a row without an id is its own unit.

        >>> rows = [{"population": "p", "agent": "x", "game": g, "score": s, "reached": False,
        ...          "kept": None, "reliability": 1.0} for g, s in
        ...         [("a", 10), ("a", 20), ("b", 30), (None, 40)]]
        >>> v = compare(rows)["p"]["x"]
        >>> v["n"], v["games"], v["score"], v["score_ci95"]
        (3, 3, 28.33, 31.26)
    """
    groups: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        groups[(r["population"], r["agent"])].append(r)
    out: dict[str, dict[str, dict[str, Any]]] = defaultdict(dict)
    for (pop, agent), rs in sorted(groups.items()):
        kept = [r["kept"] for r in rs if r["kept"] is not None]
        units: dict[object, list[float]] = defaultdict(list)
        for i, r in enumerate(rs):
            key = r.get("game")
            units[("row", i) if key is None else key].append(float(r["score"]))
        m = mean_interval(sum(v) / len(v) for v in units.values())
        out[pop][agent] = {
            "games": m.n,
            "n": m.n,
            "score": round(m.mean, 2),
            "score_ci95": None if math.isnan(m.half) else round(m.half, 2),
            "goal_rate": round(sum(r["reached"] for r in rs) / len(rs), 3),
            "kept": round(sum(kept) / len(kept), 3) if kept else None,
            "reliability": round(sum(r["reliability"] for r in rs) / len(rs), 3),
        }
    return dict(out)
