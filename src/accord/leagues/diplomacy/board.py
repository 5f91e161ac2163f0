"""A read-only snapshot of the board for one phase, cached, in a hash-seed-free order.

The engine's ``get_all_possible_orders`` costs milliseconds and its lists come in an
order that changes with ``PYTHONHASHSEED``; the tactical module, the notary's checks and
the negotiators ask for them hundreds of times a phase. `board` computes them once per
game and phase (sorted), with the units, centres and the map's move graphs.

Example (needs the engine):
    >>> from accord.leagues.diplomacy.engine import new_game
    >>> b = board(new_game())  # doctest: +SKIP
    >>> b.orderable["FRANCE"]  # doctest: +SKIP
    ('BRE', 'MAR', 'PAR')
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Any

from .deals import province

__all__ = ["Board", "board", "distances_from", "move_graph"]


@dataclass(frozen=True)
class Board:
    """One phase of one game: what can be ordered, by whom, and who stands where."""

    phase: str
    possible: dict[str, tuple[str, ...]]  # location -> sorted legal orders
    orderable: dict[str, tuple[str, ...]]  # power -> sorted orderable locations
    units: dict[str, tuple[str, str]]  # province -> (power, "A PAR" / "F STP/SC")
    centres: dict[str, frozenset[str]]  # power -> owned supply centres
    scs: frozenset[str]
    map_name: str

    def orders_of(self, power: str) -> list[str]:
        """Every legal order of ``power``'s units this phase."""
        return [o for loc in self.orderable.get(power, ()) for o in self.possible.get(loc, ())]


_CACHE: dict[tuple[int, str, tuple[tuple[str, ...], ...]], Board] = {}


def _key(game: Any) -> tuple[int, str, tuple[tuple[str, ...], ...]]:
    units = tuple(tuple(pw.units) + ("|",) + tuple(pw.centers) for pw in game.powers.values())
    return (id(game), game.get_current_phase(), units)


def board(game: Any) -> Board:
    """The snapshot of ``game``'s current phase (computed once, then cached)."""
    key = _key(game)
    b = _CACHE.get(key)
    if b is not None:
        return b
    if len(_CACHE) > 64:
        _CACHE.clear()
    possible = {loc: tuple(sorted(os)) for loc, os in game.get_all_possible_orders().items()}
    orderable = {
        p: tuple(sorted(locs)) for p, locs in sorted(game.get_orderable_locations().items())
    }
    units: dict[str, tuple[str, str]] = {}
    for p, pw in game.powers.items():
        for u in pw.units:
            name = u.lstrip("*")
            units[province(name.split()[1])] = (p, name)
    b = Board(
        phase=game.get_current_phase(),
        possible=possible,
        orderable=orderable,
        units=units,
        centres={p: frozenset(pw.centers) for p, pw in game.powers.items()},
        scs=frozenset(game.map.scs),
        map_name=game.map.name,
    )
    _CACHE[key] = b
    return b


_GRAPHS: dict[tuple[str, str], dict[str, list[str]]] = {}


def move_graph(game_map: Any, unit: str) -> dict[str, list[str]]:
    """Where a unit of type ``unit`` ("A" or "F") can move from each location (cached)."""
    key = (game_map.name, unit)
    graph = _GRAPHS.get(key)
    if graph is None:
        m = game_map
        graph = {
            loc.upper(): sorted(
                d.upper() for d in m.loc_abut.get(loc, []) if m.abuts(unit, loc, "-", d)
            )
            for loc in sorted(m.locs)
        }
        _GRAPHS[key] = graph
    return graph


_DIST: dict[tuple[str, str, str], dict[str, int]] = {}


def distances_from(game_map: Any, unit: str, location: str) -> dict[str, int]:
    """Moves a unit of type ``unit`` needs from each location to ``location`` (cached)."""
    key = (game_map.name, unit, location.upper())
    dist = _DIST.get(key)
    if dist is None:
        graph = move_graph(game_map, unit)
        dist = {location.upper(): 0}
        todo = deque([location.upper()])
        while todo:
            here = todo.popleft()
            for d in graph.get(here, ()):
                if d not in dist:
                    dist[d] = dist[here] + 1
                    todo.append(d)
        _DIST[key] = dist
    return dist
