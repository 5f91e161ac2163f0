"""The fast adjudicator against the `diplomacy` engine on the same orders."""

from __future__ import annotations

import random

import pytest

pytest.importorskip(
    "diplomacy", reason="needs the optional AGPL engine: pip install '.[diplomacy]'"
)

from accord.leagues.diplomacy.adjudicate import direct_only, resolve_moves  # noqa: E402
from accord.leagues.diplomacy.board import board  # noqa: E402
from accord.leagues.diplomacy.engine import new_game  # noqa: E402


def _random_orders(game: object, rng: random.Random, coherent: bool) -> dict[str, list[str]]:
    """Random direct orders; with ``coherent`` many supports match a move actually given."""
    b = board(game)
    chosen: dict[str, str] = {}
    for locs in b.orderable.values():
        for loc in locs:
            opts = [o for o in b.possible.get(loc, ()) if direct_only((o,))]
            moves = [o for o in opts if " - " in o and " S " not in o]
            if coherent and moves and rng.random() < 0.5:
                chosen[loc] = rng.choice(moves)
            elif opts:
                chosen[loc] = rng.choice(opts)
    if coherent:  # turn some units into supporters of moves that were really ordered
        given = set(chosen.values())
        for loc in list(chosen):
            if rng.random() < 0.4:
                sups = [
                    o
                    for o in b.possible.get(loc, ())
                    if " S " in o and o.split(" S ", 1)[1] in given
                ]
                if sups:
                    chosen[loc] = rng.choice(sups)
    out: dict[str, list[str]] = {}
    for power, locs in b.orderable.items():
        out[power] = [chosen[loc] for loc in locs if loc in chosen]
    return out


def _engine_outcome(
    game: object, before: dict[str, tuple[str, str]]
) -> dict[tuple[str, str, str], int]:
    out: dict[tuple[str, str, str], int] = {}
    for p, pw in game.powers.items():  # type: ignore[attr-defined]
        for u in pw.units:
            key = (p, u.split()[0], u.split()[1])
            out[key] = out.get(key, 0) + 1
    for unit, results in game.get_phase_history()[-1].results.items():  # type: ignore[attr-defined]
        if any(str(r) == "dislodged" for r in results):
            owner = before[unit.split()[1][:3]][0]
            key = (owner, unit.split()[0], "")
            out[key] = out.get(key, 0) + 1
    return out


def _mine(
    before: dict[str, tuple[str, str]], final: dict[str, str]
) -> dict[tuple[str, str, str], int]:
    out: dict[tuple[str, str, str], int] = {}
    for prov, loc in final.items():
        p, u = before[prov]
        key = (p, u.split()[0], loc)
        out[key] = out.get(key, 0) + 1
    return out


@pytest.mark.parametrize("coherent", [False, True])
def test_fast_adjudicator_matches_the_engine_on_random_direct_orders(coherent: bool) -> None:
    rng = random.Random(3 + coherent)
    checked = 0
    for _game in range(6):
        game = new_game()
        while not game.is_game_done and int(game.get_current_phase()[1:5]) < 1909:
            phase = game.get_current_phase()
            b = board(game)
            if phase.endswith("M"):
                orders = _random_orders(game, rng, coherent)
                before = dict(b.units)
                mine = resolve_moves(before, [o for os in orders.values() for o in os])
            else:
                orders = {
                    p: [rng.choice(b.possible[loc]) for loc in locs if b.possible.get(loc)]
                    for p, locs in b.orderable.items()
                }
            for p, os in orders.items():
                game.set_orders(p, os)
            game.process()
            if phase.endswith("M"):
                assert _mine(before, mine) == _engine_outcome(game, before), (phase, orders)
                checked += 1
    assert checked >= 60


def test_circular_movement_and_head_to_head() -> None:
    units = {
        "PAR": ("FRANCE", "A PAR"),
        "BUR": ("FRANCE", "A BUR"),
        "PIC": ("FRANCE", "A PIC"),
        "MUN": ("GERMANY", "A MUN"),
        "RUH": ("GERMANY", "A RUH"),
    }
    ring = resolve_moves(units, ["A PAR - BUR", "A BUR - PIC", "A PIC - PAR"])
    assert (ring["PAR"], ring["BUR"], ring["PIC"]) == ("BUR", "PIC", "PAR")
    # a supported head-to-head attack dislodges the other side
    h2h = resolve_moves(units, ["A MUN - BUR", "A RUH S A MUN - BUR", "A BUR - MUN"])
    assert (h2h["MUN"], h2h["BUR"]) == ("BUR", "")
    # a power never dislodges its own unit, even with support
    own = resolve_moves(units, ["A PAR - BUR", "A PIC S A PAR - BUR"])
    assert (own["PAR"], own["BUR"]) == ("PAR", "BUR")
