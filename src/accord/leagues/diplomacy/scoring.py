"""ANAC 2017 Diplomacy scoring (pure).

A solo (a power with 18 or more supply centres) gives the winner 12 points and every
other power 0. Otherwise the game is a draw (agreed, or forced at Winter 1920): the
eliminated powers get 0 and each survivor gets 2 -> 6, 3 -> 4, 4 -> 3, 5 or 6 -> 2,
7 -> 1 points. A lone survivor without 18 centres is scored as a solo (12). Players
are ranked by total points, ties broken by total supply centres.

Example:
    >>> game_points({"FRANCE": 18, "GERMANY": 10, "ITALY": 6})["FRANCE"]
    12
    >>> game_points({"FRANCE": 17, "GERMANY": 17, "ITALY": 0})
    {'FRANCE': 6, 'GERMANY': 6, 'ITALY': 0}
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from accord.core.errors import ConfigError, InvalidValue

__all__ = [
    "DRAW_POINTS",
    "LAST_YEAR",
    "SOLO_CENTRES",
    "SOLO_POINTS",
    "Standing",
    "check_last_year",
    "game_points",
    "solo_winner",
    "standings",
]

SOLO_CENTRES = 18
SOLO_POINTS = 12
LAST_YEAR = 1920
"""The league ends a game as a draw at Winter 1920 at the latest."""
DRAW_POINTS = {1: 12, 2: 6, 3: 4, 4: 3, 5: 2, 6: 2, 7: 1}
"""Points per survivor in a draw, by the number of survivors."""
FIRST_YEAR = 1901
"""The standard game starts in Spring 1901."""


def check_last_year(year: int) -> int:
    """``year`` if a game can end at its Winter (1901 or later), else a `ConfigError`.

    >>> check_last_year(1905)
    1905
    """
    if year < FIRST_YEAR:
        raise ConfigError(
            f"last year: expected {FIRST_YEAR} or later (a game starts in Spring "
            f"{FIRST_YEAR} and ends at Winter of its last year), got {year}"
        )
    return year


def solo_winner(centres: Mapping[str, int]) -> str | None:
    """The power with at least 18 supply centres, if any."""
    for power, n in centres.items():
        if n >= SOLO_CENTRES:
            return power
    return None


def game_points(
    centres: Mapping[str, int], survivors: Iterable[str] | None = None
) -> dict[str, int]:
    """ANAC 2017 points of one finished game.

    ``centres`` maps every power to its final supply-centre count. ``survivors`` are the
    powers not eliminated (default: those with at least one centre; pass it when a power
    without centres still has units).
    """
    for power, n in centres.items():
        if not isinstance(n, int) or n < 0:
            raise InvalidValue(f"centres of {power}: expected a count >= 0, got {n!r}")
    if sum(centres.values()) > 34:
        raise InvalidValue(f"centres: expected at most 34 in all, got {sum(centres.values())}")
    alive = set(survivors) if survivors is not None else {p for p, n in centres.items() if n}
    unknown = alive - set(centres)
    if unknown:
        raise InvalidValue(f"survivors {sorted(unknown)} are not powers of the game")
    winner = solo_winner(centres)
    if winner is not None:
        return {p: SOLO_POINTS if p == winner else 0 for p in centres}
    if not alive:
        raise InvalidValue("a finished game needs at least one survivor, got none")
    each = DRAW_POINTS[len(alive)]
    return {p: each if p in alive else 0 for p in centres}


@dataclass(frozen=True, slots=True)
class Standing:
    """A player's totals over a tournament."""

    player: str
    games: int
    points: int
    centres: int
    solos: int

    @property
    def mean_centres(self) -> float:
        """Mean supply centres per game."""
        return self.centres / self.games if self.games else 0.0


def standings(
    games: Iterable[tuple[Mapping[str, str], Mapping[str, int], Iterable[str] | None]],
) -> list[Standing]:
    """Rank players over many games, best first (points, then total supply centres).

    Each game is ``(player_of_power, centres, survivors)``.
    """
    tot: dict[str, list[int]] = {}
    for players, centres, survivors in games:
        pts = game_points(centres, survivors)
        winner = solo_winner(centres)
        for power, player in players.items():
            row = tot.setdefault(player, [0, 0, 0, 0])
            row[0] += 1
            row[1] += pts[power]
            row[2] += centres[power]
            row[3] += power == winner
    rows = [Standing(p, g, pt, c, s) for p, (g, pt, c, s) in tot.items()]
    return sorted(rows, key=lambda r: (-r.points, -r.centres, r.player))
