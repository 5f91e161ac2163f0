"""HUMAINE tournaments of seller agents against simulated buyers, in fast mode.

Every pair of seller entries meets every buyer strategy on every seed twice, once in
each seat (Celia / Watson), so both see both cost draws (Appendix E's utility swap).
Rounds run serially or on a local process pool; the result is one row per seller per
round, and :func:`leaderboard` ranks the entries.

>>> rounds = run_tournament(["strong", "regex"], buyers=["impatient"], seeds=[0])
>>> len(rounds), sorted(rounds["agent"].unique())
(4, ['regex', 'strong'])
>>> list(leaderboard(rounds).columns)
['agent', 'rounds', 'mean_utility', 'std_utility', 'total_utility', 'win_rate', 'mean_revenue']
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any

import pandas as pd

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
        module, _, name = spec.partition(":")
        try:
            obj = getattr(importlib.import_module(module), name)
        except (ImportError, AttributeError) as e:
            raise ValueError(f"cannot import seller {spec!r}: {e}") from None
        if not (isinstance(obj, type) and issubclass(obj, SellerAgent)):
            raise ValueError(f"{spec!r} is not a SellerAgent subclass")
        return obj
    raise ValueError(
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


def _play(m: _Match) -> list[dict[str, Any]]:
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
    return rows


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
    workers: int = 1,
    **round_options: Any,
) -> pd.DataFrame:
    """Play every pair of ``agents`` (short names or ``module:Class``) against every
    buyer strategy and seed, in both seats; one row per seller per round."""
    if len(agents) < 2:
        raise ValueError(f"a tournament needs at least two seller entries, got {list(agents)!r}")
    for spec in agents:
        seller_factory(spec)
    buyers = list(buyers)
    for b in buyers:
        make_buyer(b)
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
    if workers > 1:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            chunks = list(pool.map(_play, matches, chunksize=max(1, len(matches) // (4 * workers))))
    else:
        chunks = [_play(m) for m in matches]
    return pd.DataFrame([row for rows in chunks for row in rows])


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
