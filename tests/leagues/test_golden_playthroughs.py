"""Golden playthroughs: the GENIUS, HAN and Trails games play exactly as recorded.

The fixtures were recorded before the leagues were ported to the shared ``Rules``
contract and drivers (see ``golden_games.py``); every game must still produce the same
events, violations and result.
"""

from __future__ import annotations

import pytest
from tests.leagues import golden_games


@pytest.mark.parametrize("league", sorted(golden_games.GAMES))
def test_games_play_as_recorded(league: str) -> None:
    want = golden_games.load(league)
    got = golden_games.record(league)
    assert len(want) > 60
    assert sorted(got) == sorted(want)
    diff = [k for k in want if got[k] != want[k]]
    assert not diff, f"{len(diff)} of {len(want)} {league} games differ, e.g. {diff[:3]}"
