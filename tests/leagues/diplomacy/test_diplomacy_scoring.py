"""ANAC 2017 scoring: solo, each draw size, eliminated players, ranking."""

from __future__ import annotations

import pytest

from accord.core.errors import InvalidValue
from accord.leagues.diplomacy.deals import POWERS
from accord.leagues.diplomacy.scoring import game_points, standings


def centres(*counts: int) -> dict[str, int]:
    return dict(zip(POWERS, counts, strict=True))


def test_solo() -> None:
    pts = game_points(centres(18, 5, 4, 3, 2, 1, 1))
    assert pts == {
        "AUSTRIA": 12,
        "ENGLAND": 0,
        "FRANCE": 0,
        "GERMANY": 0,
        "ITALY": 0,
        "RUSSIA": 0,
        "TURKEY": 0,
    }


@pytest.mark.parametrize(
    ("counts", "each"),
    [
        ((17, 17, 0, 0, 0, 0, 0), 6),
        ((12, 11, 11, 0, 0, 0, 0), 4),
        ((9, 9, 8, 8, 0, 0, 0), 3),
        ((7, 7, 7, 7, 6, 0, 0), 2),
        ((6, 6, 6, 6, 5, 5, 0), 2),
        ((5, 5, 5, 5, 5, 5, 4), 1),
    ],
)
def test_draw_sizes(counts: tuple[int, ...], each: int) -> None:
    pts = game_points(centres(*counts))
    for power, n in centres(*counts).items():
        assert pts[power] == (each if n else 0)


def test_eliminated_and_unit_only_survivor() -> None:
    # RUSSIA has no centre but still a unit: a survivor when named
    c = centres(10, 10, 10, 4, 0, 0, 0)
    assert game_points(c)["RUSSIA"] == 0 and game_points(c)["AUSTRIA"] == 3
    pts = game_points(c, survivors=["AUSTRIA", "ENGLAND", "FRANCE", "GERMANY", "RUSSIA"])
    assert pts["RUSSIA"] == 2 and pts["AUSTRIA"] == 2 and pts["ITALY"] == 0


def test_winter_1920_cap_is_a_draw() -> None:
    # reaching Winter 1920 with 17 centres is no solo: a 4-way draw
    assert game_points(centres(17, 9, 5, 3, 0, 0, 0)) == centres(3, 3, 3, 3, 0, 0, 0)


def test_bad_input() -> None:
    with pytest.raises(InvalidValue, match="at most 34"):
        game_points(centres(20, 20, 0, 0, 0, 0, 0))
    with pytest.raises(InvalidValue, match="count >= 0"):
        game_points(centres(-1, 5, 0, 0, 0, 0, 0))


def test_standings_tie_break_by_centres() -> None:
    g1 = (dict(zip(POWERS, "ABCDEFG", strict=True)), centres(10, 10, 0, 0, 0, 0, 0), None)
    g2 = (dict(zip(POWERS, "BACDEFG", strict=True)), centres(12, 8, 0, 0, 0, 0, 0), None)
    rows = standings([g1, g2])
    assert [(r.player, r.points, r.centres) for r in rows[:2]] == [("B", 12, 22), ("A", 12, 18)]
    assert rows[0].mean_centres == 11.0


def test_core_imports_without_the_engine_and_says_how_to_get_it() -> None:
    import subprocess
    import sys

    code = (
        "import sys; sys.modules['diplomacy'] = None\n"
        "import accord.leagues.diplomacy as d\n"
        "from accord.leagues.diplomacy.engine import EngineMissing, new_game\n"
        "try:\n    new_game()\nexcept EngineMissing as e:\n    print(e)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "pip install '.[diplomacy]'" in out.stdout


def test_protocol_info() -> None:
    from accord.leagues.diplomacy import PROTOCOL

    assert PROTOCOL.id == "diplomacy-anac2017-v1" and PROTOCOL.min_parties == 7
