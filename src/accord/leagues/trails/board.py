"""Colored Trails rules: the board, chips, paths and the score.

A board is a ``rows x cols`` grid of colour indices; a cell is ``r * cols + c``. Chips
are count vectors over the colours (numpy ``int64``). A step to an adjacent cell (up,
down, left, right) costs one chip of that cell's colour. Distance is Manhattan.

    >>> b = Board.parse(["AB", "BA"])
    >>> b.cells, b.n_colors, b.distance(0, 3)
    (4, 2, 2)
    >>> reach = b.reach(0, np.array([0, 1]))          # one B chip
    >>> sorted(reach.items())
    [(0, 0), (1, 1), (2, 1)]
    >>> Settings().score(b, 3, 3, np.array([1, 0]))      # at the goal, one chip left
    105
    >>> Settings().score(b, 0, 3, np.array([1, 0]))      # two squares away
    -15
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from accord.core.errors import ConfigError

__all__ = [
    "COLOR_LETTERS",
    "PROTOCOLS",
    "Board",
    "Chips",
    "Settings",
    "chips_from_letters",
    "chips_to_letters",
]

Chips = NDArray[np.int64]
COLOR_LETTERS = "ABCDEFGHIJ"
_VISIBILITY = ("full", "own")
_UNTIL = ("first", "both")
PROTOCOLS = ("alternating", "counter")


def chips_from_letters(text: str, n_colors: int) -> Chips:
    """Count vector of a chip string: ``chips_from_letters("AAC", 3)`` is ``[2, 0, 1]``."""
    out = np.zeros(n_colors, dtype=np.int64)
    for ch in text:
        k = COLOR_LETTERS.find(ch.upper())
        if k < 0 or k >= n_colors:
            raise ConfigError(
                f"chip letters must be among {COLOR_LETTERS[:n_colors]!r}; got {ch!r} in {text!r}"
            )
        out[k] += 1
    return out


def chips_to_letters(chips: Sequence[int] | Chips) -> str:
    """The chip string of a count vector: ``chips_to_letters([2, 0, 1])`` is ``'AAC'``."""
    return "".join(COLOR_LETTERS[k] * int(n) for k, n in enumerate(chips))


@dataclass(frozen=True)
class Board:
    """A grid of colour indices (row-major), ``rows x cols``, with ``n_colors`` colours."""

    rows: int
    cols: int
    n_colors: int
    colors: tuple[int, ...]

    def __post_init__(self) -> None:
        if self.rows < 1 or self.cols < 1 or len(self.colors) != self.rows * self.cols:
            raise ConfigError(
                f"a board needs rows*cols = {self.rows}*{self.cols} colours; got {len(self.colors)}"
            )
        if not 1 <= self.n_colors <= len(COLOR_LETTERS):
            raise ConfigError(f"n_colors must be 1..{len(COLOR_LETTERS)}; got {self.n_colors}")
        bad = [c for c in self.colors if not 0 <= c < self.n_colors]
        if bad:
            raise ConfigError(f"board colours must be 0..{self.n_colors - 1}; got {bad[0]}")

    @classmethod
    def parse(cls, lines: Sequence[str], n_colors: int | None = None) -> Board:
        """A board from rows of colour letters (``["AB", "BA"]``)."""
        rows = [line.strip() for line in lines if line.strip()]
        if not rows or len({len(r) for r in rows}) != 1:
            raise ConfigError(f"a board is equal-length rows of colour letters; got {lines!r}")
        idx = [COLOR_LETTERS.find(ch.upper()) for r in rows for ch in r]
        if min(idx) < 0:
            raise ConfigError(f"board letters must be among {COLOR_LETTERS!r}; got {lines!r}")
        n = n_colors if n_colors is not None else max(idx) + 1
        return cls(len(rows), len(rows[0]), n, tuple(idx))

    @property
    def cells(self) -> int:
        return self.rows * self.cols

    def letters(self) -> list[str]:
        """The rows as colour letters (the inverse of :meth:`parse`)."""
        c = self.cols
        return [
            "".join(COLOR_LETTERS[k] for k in self.colors[r * c : (r + 1) * c])
            for r in range(self.rows)
        ]

    def check_cell(self, cell: int, what: str = "cell") -> int:
        if not 0 <= int(cell) < self.cells:
            raise ConfigError(f"{what} must be a cell 0..{self.cells - 1}; got {cell}")
        return int(cell)

    def distance(self, a: int, b: int) -> int:
        """Manhattan distance between two cells."""
        return abs(a // self.cols - b // self.cols) + abs(a % self.cols - b % self.cols)

    def neighbours(self, cell: int) -> list[int]:
        """The cells adjacent to ``cell`` (up, down, left, right)."""
        r, c = divmod(cell, self.cols)
        out = []
        if r > 0:
            out.append(cell - self.cols)
        if r < self.rows - 1:
            out.append(cell + self.cols)
        if c > 0:
            out.append(cell - 1)
        if c < self.cols - 1:
            out.append(cell + 1)
        return out

    def path_cost(self, start: int, path: Sequence[int]) -> Chips:
        """The chips a path (cells after ``start``) costs; raises if a step is not adjacent."""
        cost = np.zeros(self.n_colors, dtype=np.int64)
        here = start
        for cell in path:
            if cell not in self.neighbours(here):
                raise ConfigError(f"cell {cell} is not adjacent to cell {here}")
            cost[self.colors[cell]] += 1
            here = cell
        return cost

    def reach(self, start: int, chips: Chips | Sequence[int]) -> dict[int, int]:
        """Every cell reachable from ``start`` with ``chips``, with its fewest steps.

        Exact search over (cell, chips left) states, breadth first, so the first visit of
        a cell uses the fewest chips (every step costs exactly one chip).
        """
        first = (start, tuple(int(x) for x in chips))
        best = {start: 0}
        seen = {first}
        queue: deque[tuple[int, tuple[int, ...], int]] = deque([(start, first[1], 0)])
        colors = self.colors
        while queue:
            cell, left, steps = queue.popleft()
            for nxt in self.neighbours(cell):
                col = colors[nxt]
                if left[col] == 0:
                    continue
                after = left[:col] + (left[col] - 1,) + left[col + 1 :]
                state = (nxt, after)
                if state in seen:
                    continue
                seen.add(state)
                if nxt not in best:
                    best[nxt] = steps + 1
                queue.append((nxt, after, steps + 1))
        return best

    def shortest_path(
        self, start: int, goal: int, chips: Chips | Sequence[int]
    ) -> list[int] | None:
        """A fewest-steps path from ``start`` to ``goal`` payable with ``chips`` (None: none)."""
        first = (start, tuple(int(x) for x in chips))
        parent: dict[tuple[int, tuple[int, ...]], tuple[int, tuple[int, ...]] | None] = {
            first: None
        }
        queue: deque[tuple[int, tuple[int, ...]]] = deque([first])
        while queue:
            state = queue.popleft()
            cell, left = state
            if cell == goal:
                path = []
                node: tuple[int, tuple[int, ...]] | None = state
                while node is not None and node != first:
                    path.append(node[0])
                    node = parent[node]
                return path[::-1]
            for nxt in self.neighbours(cell):
                col = self.colors[nxt]
                if left[col] == 0:
                    continue
                after = (nxt, left[:col] + (left[col] - 1,) + left[col + 1 :])
                if after not in parent:
                    parent[after] = state
                    queue.append(after)
        return None

    def can_reach(self, start: int, goal: int, chips: Chips | Sequence[int]) -> bool:
        """Whether ``chips`` pay for some path from ``start`` to ``goal`` (task independence)."""
        return self.shortest_path(start, goal, chips) is not None


@dataclass(frozen=True)
class Settings:
    """Scoring and turn parameters (defaults from the paper: X=100, Y=5, Z=10, 3 dormant turns).

    Args:
        goal_bonus: X, points for reaching the goal.
        chip_bonus: Y, points per chip held at the end.
        distance_penalty: Z, points lost per square between the final cell and the goal.
        dormant_limit: the game ends when a player has not moved this many turns in a row.
        max_turns: an optional cap on turns (None: no cap, as in the paper).
        visibility: ``"full"`` (each sees the other's chips) or ``"own"``.
        protocol: the negotiation phase. ``"alternating"`` (default): one proposal per turn,
            made by player ``turn % 2``, answered accept/reject. ``"counter"``: alternating
            offers inside the phase: up to ``rounds`` proposal slots, the first taken by
            player ``turn % 2`` and then alternating; in each slot the proposer proposes or
            passes; an acceptance ends the phase with that agreement, a rejection or a pass
            moves to the next slot; after the last slot the phase ends without agreement.
        rounds: the proposal slots per negotiation phase under ``"counter"`` (2: both
            players may propose in the same phase); ``"alternating"`` is ``rounds = 1``.
        until: ``"first"`` (the paper): the game ends when either player reaches its goal;
            ``"both"``: it goes on until both are home (or dormancy, or ``max_turns``); a
            player at home keeps negotiating and transferring and is never dormant.

    >>> Settings(protocol="counter").negotiation_rounds, Settings().negotiation_rounds
    (2, 1)
    """

    goal_bonus: int = 100
    chip_bonus: int = 5
    distance_penalty: int = 10
    dormant_limit: int = 3
    max_turns: int | None = None
    visibility: str = "full"
    protocol: str = "alternating"
    rounds: int = 2
    until: str = "first"

    def __post_init__(self) -> None:
        if self.protocol not in PROTOCOLS:
            raise ConfigError(f"protocol must be one of {PROTOCOLS}; got {self.protocol!r}")
        if self.rounds < 1:
            raise ConfigError(f"rounds (proposal slots per phase) must be >= 1; got {self.rounds}")
        if self.dormant_limit < 1:
            raise ConfigError(f"dormant_limit must be >= 1; got {self.dormant_limit}")
        if self.max_turns is not None and self.max_turns < 1:
            raise ConfigError(f"max_turns must be >= 1 or None; got {self.max_turns}")
        if self.visibility not in _VISIBILITY:
            raise ConfigError(f"visibility must be one of {_VISIBILITY}; got {self.visibility!r}")
        if self.until not in _UNTIL:
            raise ConfigError(f"until must be one of {_UNTIL}; got {self.until!r}")

    @property
    def negotiation_rounds(self) -> int:
        """Proposal slots per negotiation phase (1 under ``"alternating"``)."""
        return self.rounds if self.protocol == "counter" else 1

    def best_score(
        self, board: Board, position: int, goal: int, chips: Chips | Sequence[int]
    ) -> int:
        """The best score reachable by moving from ``position`` with ``chips`` (no trade).

        Every reachable cell is tried with its fewest steps, so it equals the expected
        future score ``X*P - Z*d*(1-P) + Y*s`` of the PURB heuristic with P in {0, 1}.

            >>> Settings().best_score(Board.parse(["AB", "BA"]), 0, 3, [1, 1])
            100
        """
        total = int(np.sum(chips))
        return max(
            self.score(board, cell, goal, [total - steps])
            for cell, steps in board.reach(position, chips).items()
        )

    def score(self, board: Board, position: int, goal: int, chips: Chips | Sequence[int]) -> int:
        """X at the goal (else -Z per square to it) plus Y per chip held."""
        held = int(np.sum(chips)) * self.chip_bonus
        if position == goal:
            return self.goal_bonus + held
        return held - self.distance_penalty * board.distance(position, goal)
