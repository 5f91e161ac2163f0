"""The one-shot three-player variant (OpenSpiel's ``colored_trails``), on our rules.

Two proposers (players 0 and 1) each propose a trade with the responder (player 2), who
picks one or passes; the chosen trade is applied exactly, and there is no movement: a
player's score is the best it could reach by moving with its chips
(:meth:`Settings.best_score`), with OpenSpiel's numbers X=0, Y=10, Z=25 and one shared goal
(the flag). Each player's return is its score after the choice minus its score before.

    >>> b = OneShotBoard.parse("4 5 3 DEADCACCADBDBECC BCD BDDDD AAABCC 4 5 15 12")
    >>> b.base_scores()
    [-20, -10, 0]
    >>> returns(b, [((0, 0, 0, 1, 0), (1, 0, 0, 0, 0)), None], 0)
    [30, 0, 0]
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from accord.core.errors import ConfigError
from accord.leagues.trails.board import COLOR_LETTERS, Board, Settings, chips_from_letters

__all__ = ["ONESHOT_RULES", "OneShotBoard", "Trade", "returns"]

ONESHOT_RULES = Settings(goal_bonus=0, chip_bonus=10, distance_penalty=25)
Trade = tuple[tuple[int, ...], tuple[int, ...]]  # (proposer gives, proposer receives)
RESPONDER = 2


@dataclass(frozen=True)
class OneShotBoard:
    """A square board, three players' chips and cells, and the shared goal (flag)."""

    board: Board
    chips: tuple[tuple[int, ...], ...]
    positions: tuple[int, ...]
    flag: int

    @classmethod
    def parse(cls, line: str) -> OneShotBoard:
        """A board line: ``size colours players BOARD chips0 chips1 chips2 pos0 pos1 pos2 flag``."""
        parts = line.split()
        try:
            size, colors, players = int(parts[0]), int(parts[1]), int(parts[2])
            if players != 3 or len(parts) != 4 + 2 * players + 1:
                raise ValueError(f"{players} players, {len(parts)} fields")
            grid = parts[3]
            board = Board(size, size, colors, tuple(COLOR_LETTERS.index(ch) for ch in grid))
            chips = tuple(tuple(chips_from_letters(c, colors).tolist()) for c in parts[4:7])
            cells = tuple(int(x) for x in parts[7:11])
        except (ValueError, IndexError) as exc:
            raise ConfigError(
                "a one-shot board line is 'size colours 3 BOARD chips0 chips1 chips2 pos0 pos1 "
                f"pos2 flag'; got {line!r} ({exc})"
            ) from exc
        return cls(board, chips, cells[:3], cells[3])

    def score(self, player: int, chips: Sequence[int] | None = None) -> int:
        c = self.chips[player] if chips is None else chips
        return ONESHOT_RULES.best_score(self.board, self.positions[player], self.flag, c)

    def base_scores(self) -> list[int]:
        return [self.score(p) for p in range(3)]


def returns(
    board: OneShotBoard, proposals: Sequence[Trade | None], choice: int | None
) -> list[int]:
    """Each player's gain when the responder takes proposer ``choice``'s trade (None: pass).

    A proposal of None is a pass; a trade must be payable by both sides.
    """
    chips = [list(c) for c in board.chips]
    trade = proposals[choice] if choice is not None else None
    if trade is not None and choice is not None:
        give, take = trade
        p, r = chips[choice], chips[RESPONDER]
        if any(g > h for g, h in zip(give, p, strict=True)) or any(
            t > h for t, h in zip(take, r, strict=True)
        ):
            raise ConfigError(f"trade {trade!r} is not payable by {p} and {r}")
        chips[choice] = [h - g + t for h, g, t in zip(p, give, take, strict=True)]
        chips[RESPONDER] = [h + g - t for h, g, t in zip(r, give, take, strict=True)]
    return [board.score(k, chips[k]) - board.score(k) for k in range(3)]
