"""Seeded boards of a chosen dependency class, checked by exact path search.

A player is *task-independent* when its own chips pay for a path from its start to its
goal, else *task-dependent*. The classes:

- ``mutual``: both players are task-dependent (co-dependent);
- ``unilateral``: player 0 is task-dependent, player 1 independent (swap seats to get
  the other side);
- ``independent``: both are task-independent.

Every dependent player can reach its goal with the two players' chips pooled, so trade
can help. Defaults (:class:`BoardSpec`): 5x5 board, 4 colours, 6 chips each, start-goal
distance >= 3.

    >>> s = generate("mutual", seed=3)
    >>> dependency_class(s)
    'mutual'
    >>> generate("mutual", seed=3) == s
    True
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from accord.core.errors import ConfigError
from accord.leagues.trails.board import COLOR_LETTERS, Board, Settings
from accord.leagues.trails.engine import Setup

__all__ = ["CLASSES", "LONGER_BOARD", "LONGER_RULES", "BoardSpec", "dependency_class", "generate"]

CLASSES = ("mutual", "unilateral", "independent")
MAX_SIDE = 12
MAX_CHIPS = 16


@dataclass(frozen=True)
class BoardSpec:
    """The generator's parameters, checked on creation (before any board is drawn).

    ``rows x cols`` (each 2..12), ``n_colors`` (1..10), ``chips`` per player (1..16) and
    the least Manhattan distance between a start and its goal (``min_distance``).

        >>> BoardSpec(rows=2, cols=2)
        Traceback (most recent call last):
        ...
        accord.core.errors.ConfigError: a 2x2 board cannot hold a start and a goal 3 squares apart (the farthest are 2 apart); use a larger board or --min-distance <= 2
    """

    rows: int = 5
    cols: int = 5
    n_colors: int = 4
    chips: int = 6
    min_distance: int = 3

    def __post_init__(self) -> None:
        for name in ("rows", "cols"):
            v = getattr(self, name)
            if not 2 <= v <= MAX_SIDE:
                raise ConfigError(f"board {name} must be 2..{MAX_SIDE}; got {v}")
        if not 1 <= self.n_colors <= len(COLOR_LETTERS):
            raise ConfigError(f"colours must be 1..{len(COLOR_LETTERS)}; got {self.n_colors}")
        if not 1 <= self.chips <= MAX_CHIPS:
            raise ConfigError(f"chips per player must be 1..{MAX_CHIPS}; got {self.chips}")
        if self.min_distance < 1:
            raise ConfigError(f"min_distance must be >= 1; got {self.min_distance}")
        far = self.rows + self.cols - 2
        if self.min_distance > far:
            raise ConfigError(
                f"a {self.rows}x{self.cols} board cannot hold a start and a goal "
                f"{self.min_distance} squares apart (the farthest are {far} apart); "
                f"use a larger board or --min-distance <= {far}"
            )

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def dependency_class(setup: Setup) -> str:
    """``mutual``, ``unilateral`` (either player dependent) or ``independent``."""
    dep = [
        not setup.board.can_reach(setup.starts[k], setup.goals[k], setup.chips[k]) for k in (0, 1)
    ]
    return "mutual" if all(dep) else "independent" if not any(dep) else "unilateral"


def _fits(setup: Setup, wanted: str) -> bool:
    b = setup.board
    dep = [not b.can_reach(setup.starts[k], setup.goals[k], setup.chips[k]) for k in (0, 1)]
    pooled = np.add(setup.chips[0], setup.chips[1])
    if any(
        d and not b.can_reach(setup.starts[k], setup.goals[k], pooled) for k, d in enumerate(dep)
    ):
        return False
    if wanted == "mutual":
        return dep[0] and dep[1]
    if wanted == "unilateral":
        return dep[0] and not dep[1]
    return not dep[0] and not dep[1]


LONGER_BOARD = BoardSpec(rows=6, cols=6, n_colors=4, chips=8, min_distance=5)
"""The longer-game boards: 6x6, 4 colours, 8 chips each, start and goal >= 5 apart."""
LONGER_RULES = Settings(until="both", dormant_limit=5, max_turns=40)
"""The longer-game rules: the game goes on until both players are home (a player at home
keeps negotiating and is never dormant), 5 dormant turns end it, at most 40 turns. With
:data:`LONGER_BOARD` PURB meets the same partner over several deals a game (section 3.1's
adaptation: reliability and helpfulness discounted over repeated deals); see
docs/trails.md for the figures."""


def generate(
    dependency: str,
    seed: int,
    *,
    rows: int = 5,
    cols: int = 5,
    n_colors: int = 4,
    chips: int = 6,
    min_distance: int = 3,
    tries: int = 5000,
) -> Setup:
    """A board of class ``dependency`` drawn from ``seed`` (rejection sampling)."""
    if dependency not in CLASSES:
        raise ConfigError(f"dependency must be one of {CLASSES}; got {dependency!r}")
    if seed < 0:
        raise ConfigError(f"a board seed is 0 or more; got {seed}")
    BoardSpec(rows, cols, n_colors, chips, min_distance)  # checks the parameters
    rng = np.random.default_rng(seed)
    for _ in range(tries):
        colors = tuple(int(c) for c in rng.integers(0, n_colors, rows * cols))
        board = Board(rows, cols, n_colors, colors)
        cells = rng.permutation(rows * cols)[:4].tolist()
        starts, goals = (cells[0], cells[1]), (cells[2], cells[3])
        if min(board.distance(starts[k], goals[k]) for k in (0, 1)) < min_distance:
            continue
        hands = tuple(
            tuple(int(x) for x in np.bincount(rng.integers(0, n_colors, chips), minlength=n_colors))
            for _ in (0, 1)
        )
        setup = Setup(board, starts, goals, (hands[0], hands[1]))
        if _fits(setup, dependency):
            return setup
    raise ConfigError(
        f"no {dependency} board found in {tries} tries for {rows}x{cols}, {n_colors} colours, "
        f"{chips} chips; try more chips or a smaller min_distance"
    )
