"""Exact tests of the Colored Trails rules and engine, and a property test."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from accord.core.errors import ConfigError
from accord.leagues.trails.board import Board, Settings
from accord.leagues.trails.engine import (
    EndMove,
    EndReason,
    Game,
    Move,
    Pass,
    Phase,
    Propose,
    Respond,
    Setup,
    Transfer,
    legal_moves,
)
from accord.leagues.trails.generator import CLASSES, dependency_class, generate

# Row 0: A A B ; row 1: C B B ; row 2: A C A   (cells 0..8)
BOARD = Board.parse(["AAB", "CBB", "ACA"])


def _setup(c0: tuple[int, ...], c1: tuple[int, ...]) -> Setup:
    # player 0: cell 0 -> cell 2 ; player 1: cell 8 -> cell 6
    return Setup(BOARD, (0, 8), (2, 6), (c0, c1))


def _idle_turn(g: Game) -> None:
    g.step(g.proposer, Pass())
    g.step(0, Transfer((0, 0, 0)))
    g.step(1, Transfer((0, 0, 0)))
    g.step(0, EndMove())
    g.step(1, EndMove())


def test_path_costs_and_reach() -> None:
    assert BOARD.path_cost(0, [1, 2]).tolist() == [1, 1, 0]
    assert BOARD.path_cost(8, [7, 6]).tolist() == [1, 0, 1]
    with pytest.raises(ConfigError, match="not adjacent"):
        BOARD.path_cost(0, [2])
    assert BOARD.shortest_path(0, 2, (1, 1, 0)) == [1, 2]
    assert BOARD.shortest_path(0, 2, (0, 2, 1)) is None  # the detour needs three B
    assert BOARD.shortest_path(0, 2, (1, 0, 0)) is None
    assert BOARD.reach(0, (1, 0, 0)) == {0: 0, 1: 1}
    # C(3) then B(4) then B(5) then B(2): the detour costs 3 B and 1 C
    assert BOARD.shortest_path(0, 2, (0, 3, 1)) == [3, 4, 5, 2]


def test_scoring_goal_and_distance() -> None:
    r = Settings()
    assert r.score(BOARD, 2, 2, (1, 2, 0)) == 100 + 15
    assert r.score(BOARD, 0, 2, (1, 2, 0)) == 15 - 20
    custom = Settings(goal_bonus=50, chip_bonus=1, distance_penalty=3)
    assert custom.score(BOARD, 6, 2, (0, 0, 4)) == 4 - 3 * 4


def test_scoring_at_goal_end() -> None:
    g = Game(_setup((1, 1, 1), (1, 1, 1)))
    g.step(0, Pass())
    g.step(0, Transfer((0, 0, 0)))
    g.step(1, Transfer((0, 0, 0)))
    assert g.step(0, Move(1)).ok and g.step(0, Move(2)).ok
    assert not g.done and g.actor == 1  # player 1 still has its move
    assert g.step(1, Move(7)).ok and g.step(1, EndMove()).ok
    assert g.done and g.end_reason is EndReason.GOAL
    # player 0: goal + 1 chip (C) ; player 1: 2 chips, 1 square from cell 7 to cell 6
    assert g.scores() == [105, 10 - 10]
    assert len(g.history) == 1 and g.history[0].moved == [2, 1]


def test_dormancy_counts_and_ends() -> None:
    g = Game(_setup((0, 0, 1), (1, 0, 1)), Settings(dormant_limit=3))
    _idle_turn(g)
    _idle_turn(g)
    assert g.dormant == [2, 2] and not g.done
    # player 1 moves in turn 3: its counter resets, player 0's reaches 3
    g.step(0, Pass())
    g.step(0, Transfer((0, 0, 0)))
    g.step(1, Transfer((0, 0, 0)))
    g.step(0, EndMove())
    assert g.step(1, Move(7)).ok
    g.step(1, EndMove())
    assert g.dormant == [3, 0] and g.done and g.end_reason is EndReason.DORMANT
    assert g.scores() == [5 - 20, 5 - 10]


def test_dormancy_resets_when_moving() -> None:
    g = Game(_setup((0, 0, 1), (2, 2, 1)), Settings(dormant_limit=2))
    _idle_turn(g)
    assert g.dormant == [1, 1]
    g.step(1, Pass())
    g.step(0, Transfer((0, 0, 0)))
    g.step(1, Transfer((0, 0, 0)))
    assert g.step(0, Move(3)).ok
    g.step(0, EndMove())
    g.step(1, Move(7))
    g.step(1, EndMove())
    assert g.dormant == [0, 0] and not g.done


def test_nonbinding_transfer_kept_and_broken() -> None:
    g = Game(_setup((0, 0, 2), (2, 2, 0)))
    assert g.step(0, Propose((0, 0, 1), (1, 1, 0))).ok
    assert g.step(1, Respond(True)).ok
    assert g.promised(0).tolist() == [0, 0, 1] and g.promised(1).tolist() == [1, 1, 0]
    g.step(0, Transfer((0, 0, 1)))  # kept
    g.step(1, Transfer((1, 0, 0)))  # broken: one of two promised chips
    assert g.chips.tolist() == [[1, 0, 1], [1, 2, 1]]
    rec = g.record
    assert rec.promised == [[0, 0, 1], [1, 1, 0]] and rec.sent == [[0, 0, 1], [1, 0, 0]]
    assert g.phase is Phase.MOVE


def test_rejected_proposal_promises_nothing() -> None:
    g = Game(_setup((0, 0, 2), (2, 2, 0)))
    g.step(0, Propose((0, 0, 1), (1, 1, 0)))
    g.step(1, Respond(False))
    assert g.promised(0).tolist() == [0, 0, 0] and g.record.accepted is False


def test_invalid_actions_recorded_against_sender() -> None:
    g = Game(_setup((1, 0, 0), (0, 1, 0)))
    r = g.step(1, Pass())
    assert not r.ok and "player 0's turn" in r.error and g.phase is Phase.PROPOSE
    r = g.step(0, Propose((2, 0, 0), (0, 0, 0)))
    assert not r.ok and "cannot promise" in r.error
    assert g.phase is Phase.TRANSFER  # nullified to a pass
    r = g.step(0, Transfer((0, 5, 0)))
    assert not r.ok and g.phase is Phase.TRANSFER and g.actor == 1
    g.step(1, Transfer((0, 0, 0)))
    r = g.step(0, Move(3))  # colour C, holds none
    assert not r.ok and "needs a chip" in r.error
    assert [v.player for v in g.violations] == [1, 0, 0, 0]
    assert g.actor == 1 and g.positions[0] == 0


def test_setup_round_trip_and_bad_setup() -> None:
    s = _setup((1, 0, 0), (0, 1, 0))
    assert Setup.from_dict(s.to_dict()) == s
    with pytest.raises(ConfigError, match="player 0's chips"):
        Setup(BOARD, (0, 8), (2, 6), ((1, 0), (0, 1, 0)))
    with pytest.raises(ConfigError, match="start"):
        Setup(BOARD, (9, 8), (2, 6), ((1, 0, 0), (0, 1, 0)))


@pytest.mark.parametrize("cls", CLASSES)
def test_generator_classes_checked_by_path_search(cls: str) -> None:
    for seed in range(5):
        s = generate(cls, seed)
        assert dependency_class(s) == cls
        dep = [not s.board.can_reach(s.starts[k], s.goals[k], s.chips[k]) for k in (0, 1)]
        assert dep[0] == (cls != "independent")
        assert dep[1] == (cls == "mutual")
    assert generate(cls, 7) == generate(cls, 7)
    with pytest.raises(ConfigError, match="dependency must be"):
        generate("co-dependent", 0)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10_000), cls=st.sampled_from(CLASSES))
def test_random_legal_sequences_end_and_conserve_chips(seed: int, cls: str) -> None:
    rng = np.random.default_rng(seed)
    setup = generate(cls, seed % 50)
    g = Game(setup, Settings(dormant_limit=3))
    total = g.chips.sum(axis=0).copy()
    steps = 0
    while not g.done:
        steps += 1
        assert steps < 5000
        p = g.actor
        mine = g.chips[p]
        if g.phase is Phase.PROPOSE:
            give = tuple(int(rng.integers(0, x + 1)) for x in mine)
            take = tuple(int(rng.integers(0, x + 1)) for x in g.chips[1 - p])
            act = Propose(give, take) if rng.random() < 0.7 else Pass()
        elif g.phase is Phase.RESPOND:
            act = Respond(bool(rng.random() < 0.5))
        elif g.phase is Phase.TRANSFER:
            act = Transfer(tuple(int(rng.integers(0, x + 1)) for x in mine))
        else:
            options = legal_moves(g, p)
            # no move without the right chip: every offered cell has a chip of its colour
            assert all(g.chips[p, setup.board.colors[c]] > 0 for c in options)
            act = Move(int(rng.choice(options))) if options and rng.random() < 0.6 else EndMove()
        before = g.chips.copy()
        assert g.step(p, act).ok
        assert (g.chips >= 0).all()
        if isinstance(act, Move):
            assert (
                before[p, setup.board.colors[act.cell]] - 1
                == g.chips[p, setup.board.colors[act.cell]]
            )
        spent = sum(
            (setup.board.path_cost(setup.starts[k], g.trails[k]) for k in (0, 1)),
            np.zeros(setup.board.n_colors, dtype=np.int64),
        )
        assert (g.chips.sum(axis=0) + spent == total).all()
    assert g.chips_conserved() and not g.violations
    # an illegal move is refused: try every non-adjacent or unaffordable cell on a fresh game
    fresh = Game(setup)
    fresh.step(0, Pass())
    fresh.step(0, Transfer((0,) * setup.board.n_colors))
    fresh.step(1, Transfer((0,) * setup.board.n_colors))
    bad = [c for c in range(setup.board.cells) if c not in legal_moves(fresh, 0)]
    cell = bad[int(rng.integers(0, len(bad)))]
    assert not fresh.step(0, Move(cell)).ok and fresh.positions[0] == setup.starts[0]
