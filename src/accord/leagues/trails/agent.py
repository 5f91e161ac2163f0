"""What a Colored Trails agent sees and does, and shared helpers for agents.

An agent is called in each phase with a read-only :class:`View` of its own side (the
other's chips only with ``visibility="full"``):

- ``propose(view) -> Propose | None`` (None passes),
- ``respond(view, proposal) -> bool`` (``proposal.give`` is what the proposer sends),
- ``transfer(view, promised, expected) -> tuple`` (what it sends; ``promised`` is what it
  promised, ``expected`` what the other promised it),
- ``move(view) -> list[int]`` (cells to step through this turn),
- ``observe(view, record)`` at the end of each turn (promised and sent chips of both).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from accord.leagues.trails.board import Board, Settings
from accord.leagues.trails.engine import Game, Propose, TurnRecord

__all__ = ["Agent", "View", "make_view", "sub_vectors", "walk_plan"]


@dataclass(frozen=True)
class View:
    """One player's view of the game."""

    me: int
    board: Board
    rules: Settings
    turn: int
    positions: tuple[int, int]
    goals: tuple[int, int]
    chips: tuple[int, ...]
    other_chips: tuple[int, ...] | None
    dormant: tuple[int, int]
    proposer: int

    @property
    def other(self) -> int:
        return 1 - self.me

    def best(self, player: int, chips: Sequence[int]) -> int:
        """``player``'s best reachable score with ``chips`` (the expected future score)."""
        return _best(
            self.rules, self.board, self.positions[player], self.goals[player], tuple(chips)
        )

    def independent(self, player: int, chips: Sequence[int]) -> bool:
        return _reach_goal(self.board, self.positions[player], self.goals[player], tuple(chips))


_CACHE: dict[tuple[Any, ...], Any] = {}


def _best(rules: Settings, board: Board, pos: int, goal: int, chips: tuple[int, ...]) -> int:
    key = ("b", rules, board, pos, goal, chips)
    hit = _CACHE.get(key)
    if hit is None:
        if len(_CACHE) > 200_000:
            _CACHE.clear()
        hit = _CACHE[key] = rules.best_score(board, pos, goal, chips)
    return int(hit)


def _reach_goal(board: Board, pos: int, goal: int, chips: tuple[int, ...]) -> bool:
    key = ("r", board, pos, goal, chips)
    hit = _CACHE.get(key)
    if hit is None:
        hit = _CACHE[key] = board.can_reach(pos, goal, chips)
    return bool(hit)


def make_view(game: Game, player: int) -> View:
    other = game.chips[1 - player]
    return View(
        player,
        game.board,
        game.rules,
        game.turn,
        (game.positions[0], game.positions[1]),
        game.goals,
        tuple(int(x) for x in game.chips[player]),
        tuple(int(x) for x in other) if game.rules.visibility == "full" else None,
        (game.dormant[0], game.dormant[1]),
        game.proposer,
    )


def sub_vectors(chips: Sequence[int], most: int) -> Iterator[tuple[int, ...]]:
    """Every chip vector <= ``chips`` with at most ``most`` chips in total."""
    for v in itertools.product(*(range(int(c) + 1) for c in chips)):
        if sum(v) <= most:
            yield v


def walk_plan(view: View) -> list[int]:
    """The default movement: walk to the goal when own chips allow it; otherwise, only to
    avoid the dormancy limit, take one affordable step that brings the player closer."""
    me = view.me
    path = view.board.shortest_path(view.positions[me], view.goals[me], view.chips)
    if path is not None:
        return path
    if view.dormant[me] + 1 < view.rules.dormant_limit:
        return []
    here, goal = view.positions[me], view.goals[me]
    for cell in view.board.neighbours(here):
        closer = view.board.distance(cell, goal) < view.board.distance(here, goal)
        if closer and view.chips[view.board.colors[cell]] > 0:
            return [cell]
    return []


class Agent:
    """Base agent: passes, rejects, keeps its promises, walks to its goal when it can."""

    name = "agent"

    def start(self, me: int, rng: np.random.Generator) -> None:
        self.me = me
        self.rng = rng

    def propose(self, view: View) -> Propose | None:
        return None

    def respond(self, view: View, proposal: Propose) -> bool:
        return False

    def transfer(
        self, view: View, promised: tuple[int, ...], expected: tuple[int, ...]
    ) -> tuple[int, ...]:
        return promised

    def move(self, view: View) -> list[int]:
        return walk_plan(view)

    def observe(self, view: View, record: TurnRecord) -> None:
        return None
