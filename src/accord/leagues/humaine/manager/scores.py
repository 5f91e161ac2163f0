"""Accumulated scores and the leaderboard of a HUMAINE competition.

Agents and humans are both ranked by the utility they accumulate over the rounds they
played (section 1: "The competition's winner agent is determined by accumulating its
utility"). Dummy agents are listed but flagged, and never qualify for the championship.

Example:
    >>> res = [RoundOutcome(1, "pool", "A", {"a": 2.0, "b": 1.0}, "h", 10.0)]
    >>> [(s.name, s.total) for s in standings(res, "agent")]
    [('a', 2.0), ('b', 1.0)]
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from accord.leagues.humaine.manager.schedule import is_dummy

Kind = Literal["agent", "human"]


@dataclass(frozen=True)
class RoundOutcome:
    """The utilities earned in one finished round."""

    number: int
    stage: str
    group: str
    agent_utilities: Mapping[str, float]
    human: str
    human_utility: float


@dataclass(frozen=True)
class Standing:
    """One line of the leaderboard."""

    rank: int
    name: str
    kind: Kind
    rounds: int
    total: float
    mean: float
    dummy: bool


def standings(
    outcomes: Iterable[RoundOutcome],
    kind: Kind,
    names: Sequence[str] = (),
    stages: Sequence[str] | None = None,
) -> list[Standing]:
    """Rank agents or humans by accumulated utility (ties share a rank, listed by name).

    ``names`` adds players with no finished round yet (total 0); ``stages`` keeps only
    rounds of those stages.

    >>> out = [RoundOutcome(1, "pool", "A", {"a": 1.0, "b": 1.0}, "h", 5.0)]
    >>> [(s.rank, s.name) for s in standings(out, "agent", names=["c"])]
    [(1, 'a'), (1, 'b'), (3, 'c')]
    """
    if kind not in ("agent", "human"):
        raise ValueError(f"kind must be 'agent' or 'human'; got {kind!r}")
    total: dict[str, float] = dict.fromkeys(names, 0.0)
    played: dict[str, int] = dict.fromkeys(names, 0)
    for o in outcomes:
        if stages is not None and o.stage not in stages:
            continue
        items = o.agent_utilities.items() if kind == "agent" else [(o.human, o.human_utility)]
        for name, value in items:
            total[name] = total.get(name, 0.0) + float(value)
            played[name] = played.get(name, 0) + 1
    order = sorted(total, key=lambda n: (-round(total[n], 9), n))
    out: list[Standing] = []
    for i, name in enumerate(order):
        tied = out and round(out[-1].total, 9) == round(total[name], 9)
        rank = out[-1].rank if tied else i + 1
        n = played[name]
        mean = total[name] / n if n else 0.0
        dummy = kind == "agent" and is_dummy(name)
        out.append(Standing(rank, name, kind, n, round(total[name], 6), round(mean, 6), dummy))
    return out


def pool_standings(
    outcomes: Iterable[RoundOutcome], pools: Mapping[str, Sequence[str]]
) -> dict[str, list[str]]:
    """Each pool's members ranked by utility accumulated in that pool's rounds.

    >>> out = [RoundOutcome(1, "pool", "A", {"a": 1.0, "b": 3.0}, "h", 5.0)]
    >>> pool_standings(out, {"A": ["a", "b"]})
    {'A': ['b', 'a']}
    """
    outcomes = list(outcomes)
    ranked: dict[str, list[str]] = {}
    for group, members in pools.items():
        mine = [o for o in outcomes if o.stage == "pool" and o.group == group]
        ranked[group] = [s.name for s in standings(mine, "agent", names=members)]
    return ranked


def agent_utilities_from_totals(
    totals: Mapping[str, object], celia: str, watson: str
) -> tuple[dict[str, float], float]:
    """Read ``roundTotals`` of the orchestrator: (utility per agent, human utility).

    ``totals`` has the shape of ``/receiveRoundTotals``: ``{"Human": {"utility": {"value":
    ...}}, "Celia": {...}, "Watson": {...}}``; a party missing from it earned 0.

    >>> t = {"Human": {"utility": {"value": 23.81}}, "Watson": {"utility": {"value": 4.04}}}
    >>> agent_utilities_from_totals(t, "bot1", "bot2")
    ({'bot1': 0.0, 'bot2': 4.04}, 23.81)
    """

    def value(party: str) -> float:
        entry = totals.get(party)
        if entry is None:
            return 0.0
        if not isinstance(entry, Mapping) or not isinstance(entry.get("utility"), Mapping):
            raise ValueError(
                f"roundTotals[{party!r}] must be an object with a 'utility' object; got {entry!r}"
            )
        v = entry["utility"].get("value", 0.0)
        if isinstance(v, bool) or not isinstance(v, int | float):
            raise ValueError(f"roundTotals[{party!r}].utility.value must be a number; got {v!r}")
        return float(v)

    return {celia: value("Celia"), watson: value("Watson")}, value("Human")
