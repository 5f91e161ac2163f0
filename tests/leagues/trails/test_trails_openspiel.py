"""Cross-check of the one-shot mode against OpenSpiel's colored_trails (the open-spiel package).

Boards come from pyspiel at test time: the 10 boards of the game's own database, boards
OpenSpiel derives from each (``sample_random_board_completion`` redraws a proposer's chips
until OpenSpiel's validity check passes), and these under a transpose of the grid and a
swap of the proposers; all are loaded back through ``boards_file`` so pyspiel computes the
returns. On each board
several proposal pairs and all three responder choices are played in pyspiel and compared
with :func:`accord.leagues.trails.oneshot.returns`.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from accord.leagues.trails.oneshot import OneShotBoard, returns

pyspiel = pytest.importorskip(
    "pyspiel", reason="open-spiel is not installed (pip install '.[dev]' installs it)"
)


def _variants(line: str) -> list[str]:
    """The board under the grid's transpose, the two proposers swapped, and both (pure relabelings
    that keep every score)."""
    p = line.split()
    size, grid = int(p[0]), p[3]
    t = "".join(grid[c * size + r] for r in range(size) for c in range(size))

    def cell(x: str) -> str:
        r, c = divmod(int(x), size)
        return str(c * size + r)

    transposed = [*p[:3], t, *p[4:7], *(cell(x) for x in p[7:11])]
    swapped = [*p[:4], p[5], p[4], p[6], p[8], p[7], p[9], p[10]]
    q = transposed
    both = [*q[:4], q[5], q[4], q[6], q[8], q[7], q[9], q[10]]
    return [" ".join(transposed), " ".join(swapped), " ".join(both)]


def _boards(tmp_path: Path) -> tuple[object, list[str]]:
    game = pyspiel.load_game("colored_trails")
    database = []
    for k in range(game.max_chance_outcomes()):
        state = game.new_initial_state()
        state.apply_action(k)
        board = state.get_board()
        database.append(board.to_string().strip())
        for player in (0, 1):
            derived, _ = game.sample_random_board_completion(k, board, player)
            database.append(derived.to_string().strip())
    lines = [*database, *(v for line in database for v in _variants(line))]
    lines = list(dict.fromkeys(lines))
    path = tmp_path / "boards.txt"
    path.write_text("\n".join(lines) + "\n")
    return pyspiel.load_game("colored_trails", {"boards_file": str(path)}), lines


def test_identical_returns_on_openspiel_boards(tmp_path: Path) -> None:
    game, lines = _boards(tmp_path)
    assert len(lines) >= 100
    assert game.max_chance_outcomes() == len(lines)
    rng = np.random.default_rng(0)
    responder_actions = [
        (game.responder_trade_with_player_action(0), 0),
        (game.responder_trade_with_player_action(1), 1),
        (game.pass_action(), None),
    ]
    checked = 0
    for k, line in enumerate(lines):
        ours = OneShotBoard.parse(line)
        start = game.new_initial_state()
        start.apply_action(k)
        assert start.get_board().to_string().strip() == line
        if k < 30:  # OpenSpiel's validity rule: nobody reaches the flag without trading
            assert not any(
                ours.board.can_reach(ours.positions[p], ours.flag, ours.chips[p]) for p in range(3)
            )
        for _ in range(2):
            state = start.clone()
            proposals = []
            for _proposer in (0, 1):
                legal = state.legal_actions()
                action = int(legal[int(rng.integers(0, len(legal)))])
                if action == game.pass_action():
                    proposals.append(None)
                else:
                    t = game.lookup_trade(action)
                    proposals.append((tuple(t.giving), tuple(t.receiving)))
                state.apply_action(action)
            for action, choice in responder_actions:
                end = state.clone()
                end.apply_action(action)
                assert end.is_terminal()
                theirs = [int(x) for x in end.returns()]
                assert returns(ours, proposals, choice) == theirs, (line, proposals, choice)
                checked += 1
    assert checked >= 600
