"""Tournaments of Colored Trails agents on the tournament layer (resumable, any executor).

Every ordered pair of agents (self-play included) plays every board of every dependency
class; a game is one task of :func:`accord.tournament.tasks.run_tasks`, so ``out=`` stores
records in SQLite and a killed run resumes.

    >>> t = run_tournament(["purb", "reliable"], boards=1, classes=["mutual"])
    >>> sorted(t["table"])
    ['purb', 'reliable']
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from accord.core.errors import ConfigError
from accord.core.imports import is_import_path
from accord.core.stats import mean_interval
from accord.leagues.trails.board import Settings
from accord.leagues.trails.generator import CLASSES, BoardSpec, generate
from accord.leagues.trails.match import AGENTS, play

__all__ = ["against", "beyond", "head_to_head", "play_task", "run_tournament", "summarize"]


def play_task(spec: dict[str, Any]) -> dict[str, Any]:
    """One game of a tournament (a module-level function, so processes and Ray can run it)."""
    board = BoardSpec(**spec.get("spec", {}))
    setup = generate(spec["cls"], int(spec["board"]), **board.to_dict())
    rules = Settings(**spec["rules"]) if "rules" in spec else None
    r = play(
        setup, [spec["a"], spec["b"]], seed=int(spec["seed"]), rules=rules,
        sandbox=str(spec.get("sandbox", "os")),
    )  # fmt: skip
    return {
        "cls": spec["cls"],
        "board": spec["board"],
        "agents": [spec["a"], spec["b"]],
        "scores": r["scores"],
        "reached": r["reached"],
        "end": r["end"],
        "turns": r["turns"],
        "promised": [sum(sum(h["promised"][k]) for h in r["history"]) for k in (0, 1)],
        "sent": [sum(sum(h["sent"][k]) for h in r["history"] if h["accepted"]) for k in (0, 1)],
        "violations": len(r["violations"]),
        "history": r["history"],
        "setup": r["setup"],  # so a stored game can be replayed (accord trails replay)
    }


def run_tournament(
    agents: Sequence[str],
    *,
    boards: int = 10,
    classes: Sequence[str] = CLASSES,
    seed: int = 0,
    out: str | Path | None = None,
    executor: str = "serial",
    workers: int | None = None,
    board: BoardSpec | None = None,
    rules: Settings | None = None,
    sandbox: str = "os",
) -> dict[str, Any]:
    """Play all ordered pairs on ``boards`` boards per class; returns games and tables.

    ``board`` sets the generator (size, colours, chips; default :class:`BoardSpec`) and
    ``rules`` the game (visibility, turn protocol, scores; default ``Settings(max_turns=50)``).
    Agents are built-in names or ``pkg.module:Class``; those named by path run in
    :mod:`accord.sandbox` (``sandbox``: ``os``, ``process`` weaker, ``off`` trusted), a
    fresh sandbox per game.
    """
    from dataclasses import asdict

    from accord.leagues.trails.sandboxed import agent_sandbox
    from accord.tournament.tasks import Job, run_tasks

    if any(agent_sandbox(a, sandbox) for a in agents):  # a bad mode is refused here
        from accord.sandbox import require_mode

        require_mode(sandbox)  # no OS sandbox here: one line saying why, before any game
    unknown = [a for a in agents if a not in AGENTS and not is_import_path(a)]
    if unknown or len(agents) < 1:
        raise ConfigError(f"unknown trails agents {unknown}; known: {', '.join(AGENTS)}")
    twice = sorted({a for a in agents if list(agents).count(a) > 1})
    if twice:
        raise ConfigError(
            f"agent {twice[0]!r} is named twice; each agent once (self-play is included)"
        )
    bad = [c for c in classes if c not in CLASSES]
    if bad or not classes:
        raise ConfigError(f"classes must be among {CLASSES}; got {list(classes)}")
    if boards < 1:
        raise ConfigError(f"boards per dependency class must be at least 1; got {boards}")
    if seed < 0:
        raise ConfigError(f"the seed of the boards must be 0 or more; got {seed}")
    board = board if board is not None else BoardSpec()
    rules = rules if rules is not None else Settings(max_turns=50)
    game = {"spec": board.to_dict(), "rules": asdict(rules), "sandbox": sandbox}
    jobs = [
        Job(
            f"{c}-{b}-{x}-{y}",
            {"cls": c, "board": seed * 100_003 + b, "a": x, "b": y, "seed": seed + b, **game},
        )
        for c in classes
        for b in range(boards)
        for x in agents
        for y in agents
    ]
    run = run_tasks(
        play_task,
        jobs,
        out=out,
        settings={
            "league": "trails",
            "agents": list(agents),
            "boards": boards,
            "classes": list(classes),
            "seed": seed,
            **game,
        },
        executor=executor,
        workers=workers,
    )
    games = list(run.records.values())
    return {"games": games, **summarize(games)}


def summarize(games: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Mean score of each agent against each partner (``table[agent][partner]``), per class
    (``by_class[cls][agent]`` and ``by_class_pair[cls][agent][partner]``), the half-widths
    of their 95% intervals (``ci``, ``by_class_ci``: Student t on independent units, None
    below two units) and the number of units behind each mean (``n``, ``by_class_n``), each
    agent's sent/promised ratio, and the PURB checks.

    The unit is the **board**: the games an agent played on one board (its two seatings
    against a partner; in a class, against every partner) share the board, so they are not
    independent: their mean is one unit (intervals on games were a median 14-20 % too narrow on
    fresh seeds). In self-play (an agent against itself) the game's two seats count as one
    score, their mean. Means are over the units (over games when every board has all its
    games, as in a finished tournament).

        >>> g = [{"cls": "mutual", "board": 0, "agents": ["x", "x"], "scores": [10, 20],
        ...       "sent": [0, 0], "promised": [0, 0]},
        ...      {"cls": "mutual", "board": 1, "agents": ["x", "x"], "scores": [30, 30],
        ...       "sent": [0, 0], "promised": [0, 0]}]
        >>> s = summarize(g)
        >>> s["table"]["x"]["x"], s["n"]["x"]["x"], s["ci"]["x"]["x"]
        (22.5, 2, 95.3)
    """
    Board = tuple[Any, Any]
    per_pair: dict[str, dict[str, dict[Board, list[float]]]] = defaultdict(
        lambda: defaultdict(lambda: defaultdict(list))
    )
    per_cls: dict[str, dict[str, dict[Board, list[float]]]] = defaultdict(
        lambda: defaultdict(lambda: defaultdict(list))
    )
    cls_pair: dict[str, dict[str, dict[str, list[float]]]] = defaultdict(
        lambda: defaultdict(lambda: defaultdict(list))
    )
    kept: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for i, g in enumerate(games):
        board = (g["cls"], g.get("board", f"game {i}"))
        for me, other, score in _units(g):
            per_pair[me][other][board].append(score)
            per_cls[g["cls"]][me][board].append(score)
            cls_pair[g["cls"]][me][other].append(score)
        for k in (0, 1):
            kept[g["agents"][k]][0] += g["sent"][k]
            kept[g["agents"][k]][1] += g["promised"][k]
    # one unit per board: the games played on one board (both seatings, several partners)
    # share it, so they are not independent
    pair = {a: {b: _board_units(v) for b, v in row.items()} for a, row in per_pair.items()}
    cls_ = {c: {a: _board_units(v) for a, v in row.items()} for c, row in per_cls.items()}
    table = {a: {b: _mean(v) for b, v in row.items()} for a, row in pair.items()}
    return {
        "table": table,
        "ci": {a: {b: _ci(v) for b, v in row.items()} for a, row in pair.items()},
        "n": {a: {b: len(v) for b, v in row.items()} for a, row in pair.items()},
        "checks": _checks(table, games),
        "by_class": {c: {a: _mean(v) for a, v in row.items()} for c, row in cls_.items()},
        "by_class_ci": {c: {a: _ci(v) for a, v in row.items()} for c, row in cls_.items()},
        "by_class_n": {c: {a: len(v) for a, v in row.items()} for c, row in cls_.items()},
        "by_class_pair": {
            c: {a: {b: _mean(v) for b, v in r.items()} for a, r in row.items()}
            for c, row in cls_pair.items()
        },
        "reliability": {a: round(s / p, 3) if p else None for a, (s, p) in kept.items()},
    }


def _board_units(by_board: dict[Any, list[float]]) -> list[float]:
    """One unit per board: the mean of what was scored on it."""
    return [sum(v) / len(v) for v in by_board.values()]


def _units(g: dict[str, Any]) -> list[tuple[str, str, float]]:
    """A game's independent units: (agent, partner, score); self-play gives one unit, the
    mean of both seats."""
    a, b = g["agents"]
    s0, s1 = g["scores"]
    if a == b:
        return [(a, a, (s0 + s1) / 2.0)]
    return [(a, b, float(s0)), (b, a, float(s1))]


def _mean(xs: Sequence[float]) -> float:
    return round(float(sum(xs)) / len(xs), 2) if xs else 0.0


def _ci(xs: Sequence[float]) -> float | None:
    """Half-width of the Student t 95% interval of the mean of independent units (None
    below two units: no interval can be given)."""
    half = mean_interval(xs).half
    return None if math.isnan(half) else round(half, 2)


def beyond(gap: float, half: float | None, above: bool) -> bool:
    """Whether ``gap`` is above (``above``) or not below zero beyond its interval; with no
    interval (None) nothing is shown beyond chance, so "above" is False and "not below" is
    judged on the mean."""
    if above:
        return half is not None and gap - half > 0
    return gap + (half or 0.0) >= 0


def head_to_head(games: Sequence[dict[str, Any]], a: str, b: str) -> dict[str, Any]:
    """``a`` against ``b`` on the boards where both seatings were played: mean scores and
    the paired gap (``a``'s score minus ``b``'s, averaged over the two seatings of a board)
    with its 95% interval, so the board's asymmetry between seats cancels out.

        >>> g = [{"cls": "mutual", "board": 0, "agents": ["x", "y"], "scores": [10, 4]},
        ...      {"cls": "mutual", "board": 0, "agents": ["y", "x"], "scores": [8, 6]}]
        >>> head_to_head(g, "x", "y")["gap"]
        2.0
    """
    seats: dict[tuple[Any, Any], list[float]] = defaultdict(list)
    mine: list[float] = []
    theirs: list[float] = []
    for g in games:
        ag = g["agents"]
        if a == b or sorted(ag) != sorted([a, b]):
            continue
        k = ag.index(a)
        seats[(g["cls"], g["board"])].append(g["scores"][k] - g["scores"][1 - k])
        mine.append(g["scores"][k])
        theirs.append(g["scores"][1 - k])
    gaps = [sum(v) / len(v) for v in seats.values() if len(v) == 2]
    return {
        a: _mean(mine),
        b: _mean(theirs),
        "boards": len(gaps),
        "gap": _mean(gaps),
        "gap_ci": _ci(gaps),
        "n": len(gaps),
    }


def against(games: Sequence[dict[str, Any]], a: str, b: str, partner: str) -> dict[str, Any]:
    """``a``'s score minus ``b``'s against the same ``partner`` on the same board and seat,
    with its 95% interval over boards (a paired comparison: the boards' differences cancel
    out; a board's two seats are one unit, their mean gap). ``pairs`` counts the
    (board, seat) pairs, ``n`` the boards."""
    score: dict[tuple[Any, Any, int, str], float] = {}
    for g in games:
        ag = g["agents"]
        for k in (0, 1):
            if ag[1 - k] == partner and ag[k] in (a, b):
                score[(g["cls"], g["board"], k, ag[k])] = g["scores"][k]
    by_board: dict[tuple[Any, Any], list[float]] = defaultdict(list)
    for (c, bd, k, who), v in score.items():
        if who == a and (c, bd, k, b) in score:
            by_board[(c, bd)].append(v - score[(c, bd, k, b)])
    units = _board_units(by_board)
    pairs = sum(len(v) for v in by_board.values())
    return {"pairs": pairs, "gap": _mean(units), "gap_ci": _ci(units), "n": len(units)}


def _checks(table: dict[str, dict[str, float]], games: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """PURB against never-reliable: who does better against a reliable partner; how much
    ``unreliable`` gains from PURB compared with from ``reliable`` (exploitation); their
    head-to-head scores, and whether PURB's paired gap is not below zero beyond its 95%
    interval (``purb_not_exploited``). The ``purb_beats_...`` and ``..._wins_...`` flags
    compare means; ``purb_beats_unreliable_vs_reliable_beyond_ci`` asks the paired gap's
    interval to be above zero, so a small tournament does not claim a win it cannot show."""
    if not {"purb", "unreliable", "reliable"} <= set(table):
        return {}
    t = table
    h2h = head_to_head(games, "purb", "unreliable")
    paired = against(games, "purb", "unreliable", "reliable")
    return {
        "vs_reliable": {
            "purb": t["purb"]["reliable"],
            "unreliable": t["unreliable"]["reliable"],
            "paired": paired,
        },
        "purb_beats_unreliable_vs_reliable": t["purb"]["reliable"] > t["unreliable"]["reliable"],
        # the same, told apart from chance: the paired gap's 95% interval is above zero
        "purb_beats_unreliable_vs_reliable_beyond_ci": beyond(
            paired["gap"], paired["gap_ci"], above=True
        ),
        "unreliable_against": {
            "purb": t["unreliable"]["purb"],
            "reliable": t["unreliable"]["reliable"],
        },
        "purb_limits_exploitation": t["unreliable"]["purb"] < t["unreliable"]["reliable"],
        "head_to_head": h2h,
        "purb_wins_head_to_head": t["purb"]["unreliable"] > t["unreliable"]["purb"],
        "purb_not_exploited": beyond(h2h["gap"], h2h["gap_ci"], above=False),
    }
