"""HUMAINE tournaments of seller agents against simulated buyers, in fast mode.

Every pair of seller entries meets every buyer strategy on every seed twice, once in
each seat (Celia / Watson), so both see both cost draws (Appendix E's utility swap).
Each round is a task of the tournament layer (:mod:`accord.tournament.tasks`): rounds
run serially, on a local process pool or on Ray, and with ``out`` every round is stored
in a resumable SQLite file (one row per round). The result is one row per seller per
round, and :func:`leaderboard` ranks the entries.

>>> rounds = run_tournament(["strong", "regex"], buyers=["impatient"], seeds=[0])
>>> len(rounds), sorted(rounds["agent"].unique())
(4, ['regex', 'strong'])
>>> list(leaderboard(rounds).columns)
['agent', 'rounds', 'mean_utility', 'std_utility', 'total_utility', 'win_rate', 'mean_revenue']
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from accord.core.errors import ConfigError
from accord.core.imports import import_object
from accord.tournament.pools import POOLS
from accord.tournament.tasks import Job, run_tasks

from .base import SellerAgent
from .buyers import BUYERS, make_buyer
from .fastmode import run_fast_round
from .simple import RegexSeller
from .strong import StrongSeller

SELLERS: dict[str, Callable[..., SellerAgent]] = {"regex": RegexSeller, "strong": StrongSeller}
"""Seller agents by short name; any ``module:Class`` path works too."""

NAMES = ("Celia", "Watson")


def seller_factory(spec: str) -> Callable[..., SellerAgent]:
    """A seller class from a short name (``"strong"``) or an import path (``"pkg.mod:Cls"``).

    >>> seller_factory("regex").__name__
    'RegexSeller'
    """
    if spec in SELLERS:
        return SELLERS[spec]
    if ":" in spec:
        obj = import_object(spec, "seller")
        if not (isinstance(obj, type) and issubclass(obj, SellerAgent)):
            raise ConfigError(f"seller {spec!r} is {obj!r}, which is not a SellerAgent subclass")
        return obj
    raise ConfigError(
        f"unknown seller {spec!r}; expected one of {', '.join(SELLERS)} or 'module:Class'"
    )


@dataclass(frozen=True)
class _Match:
    a: str
    b: str
    label_a: str
    label_b: str
    buyer: str
    seed: int
    options: tuple[tuple[str, Any], ...] = ()

    @property
    def id(self) -> str:
        """Stable task id: who sits where, the buyer and the seed."""
        return f"{self.label_a}|{self.label_b}|{self.buyer}|{self.seed}"


def _describe(m: _Match) -> dict[str, Any]:
    return {"celia": m.a, "watson": m.b, "buyer": m.buyer, "seed": m.seed}


def _play(m: _Match) -> dict[str, Any]:
    seller_a = seller_factory(m.a)(NAMES[0], seed=m.seed)
    seller_b = seller_factory(m.b)(NAMES[1], seed=m.seed + 1)
    result = run_fast_round(
        seller_a, seller_b, make_buyer(m.buyer, m.seed), m.seed, **dict(m.options)
    )
    rows = []
    utilities = {n: s["utility"] for n, s in result["sellers"].items()}
    for seat, label in ((NAMES[0], m.label_a), (NAMES[1], m.label_b)):
        seller = result["sellers"][seat]
        other = utilities[NAMES[1] if seat == NAMES[0] else NAMES[0]]
        rows.append(
            {
                "agent": label,
                "opponent": m.label_b if seat == NAMES[0] else m.label_a,
                "seat": seat,
                "buyer": m.buyer,
                "seed": m.seed,
                "utility": seller["utility"],
                "revenue": seller["revenue"],
                "won": seller["utility"] > other,
                "buyer_utility": result["buyer"]["utility"],
                "deals": sum(1 for d in result["deals"] if d["seller"] == seat),
                "messages": len(result["transcript"]),
            }
        )
    return {"rows": rows}


def _labels(agents: Sequence[str]) -> list[str]:
    seen: dict[str, int] = {}
    out = []
    for spec in agents:
        seen[spec] = seen.get(spec, 0) + 1
        out.append(spec if seen[spec] == 1 else f"{spec}#{seen[spec]}")
    return out


def run_tournament(
    agents: Sequence[str],
    buyers: Iterable[str] = tuple(BUYERS),
    seeds: Iterable[int] = range(10),
    *,
    workers: int | None = None,
    executor: str | None = None,
    address: str | None = None,
    out: str | Path | None = None,
    progress: Callable[[int, int], None] | None = None,
    **round_options: Any,
) -> pd.DataFrame:
    """Play every pair of ``agents`` (short names or ``module:Class``) against every
    buyer strategy and seed, in both seats; one row per seller per round.

    ``executor``: ``serial``, ``processes`` or ``ray`` (``address`` of a cluster); by
    default a process pool when ``workers`` > 1, else serial. With ``out`` (a SQLite
    file) every round is stored as it finishes and a rerun resumes. ``progress(done,
    total)`` follows the rounds; ``round_options`` go to each fast round.
    """
    if len(agents) < 2:
        raise ConfigError(f"a tournament needs at least two seller entries, got {list(agents)!r}")
    for spec in agents:
        seller_factory(spec)
    buyers = list(buyers)
    for b in buyers:
        make_buyer(b)
    kind = executor or ("processes" if (workers or 1) > 1 else "serial")
    if kind not in POOLS:
        raise ConfigError(f"executor must be one of {', '.join(POOLS)}, got {kind!r}")
    seeds = list(seeds)
    labels = _labels(agents)
    options = tuple(sorted(round_options.items()))
    matches = [
        _Match(agents[i], agents[j], labels[i], labels[j], buyer, seed, options)
        if swap == 0
        else _Match(agents[j], agents[i], labels[j], labels[i], buyer, seed, options)
        for i in range(len(agents))
        for j in range(i + 1, len(agents))
        for buyer in buyers
        for seed in seeds
        for swap in (0, 1)
    ]
    settings = {
        "league": "humaine-fast",
        "agents": list(agents),
        "buyers": buyers,
        "seeds": seeds,
        "options": {k: repr(v) for k, v in options},
    }
    run = run_tasks(
        _play,
        [Job(m.id, m) for m in matches],
        out=out,
        settings=settings,
        describe=_describe,
        executor=kind,
        workers=workers,
        address=address,
        progress=progress,
    )
    return pd.DataFrame([row for rec in run.records.values() for row in rec["rows"]])


def leaderboard(rounds: pd.DataFrame) -> pd.DataFrame:
    """Rank agents by mean utility per round (then total)."""
    board = (
        rounds.groupby("agent")
        .agg(
            rounds=("utility", "size"),
            mean_utility=("utility", "mean"),
            std_utility=("utility", "std"),
            total_utility=("utility", "sum"),
            win_rate=("won", "mean"),
            mean_revenue=("revenue", "mean"),
        )
        .sort_values(["mean_utility", "total_utility"], ascending=False)
        .reset_index()
    )
    return board.round(3)
