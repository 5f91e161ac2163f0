"""A browser viewer for a stored game: the map per phase, centres, orders and deals.

The deals and notary events of a round are shown in a god view (everything) or from one
power's view (only what the notary told that power). Built on `accord.web`.

Example (needs the engine and FastAPI):
    >>> app = viewer_app(record_json)  # doctest: +SKIP
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from pathlib import Path
from typing import Any

from fastapi import APIRouter, Query
from fastapi.responses import Response

from accord.core.errors import InvalidValue, StateError

from .deals import POWERS, Deal
from .engine import new_game

__all__ = ["GameViewer", "round_view", "viewer_app"]

STATIC = Path(__file__).parent / "static"
MAPS_KEPT = 32
"""How many drawn maps a viewer keeps."""


def round_view(row: dict[str, Any], view: str) -> dict[str, Any]:
    """Events and deals of one phase as ``view`` ("god" or a power) may see them."""
    if view != "god" and view not in POWERS:
        raise InvalidValue(f"view: expected 'god' or one of {POWERS}, got {view!r}")
    events = row.get("events", [])
    deals = row.get("deals", {})
    if view != "god":
        events = [e for e in events if e["from"] == view or view in e["to"]]
    seen = {e["id"] for e in events}
    shown = {}
    for pid, d in deals.items():
        if pid in seen and (view == "god" or view in Deal.from_json(d).involved):
            shown[pid] = d
    confirmed = [e["id"] for e in events if e["kind"] == "confirm"]
    return {"events": events, "deals": shown, "confirmed": confirmed}


class GameViewer:
    """The viewer's API over one game record (``GameRecord.to_json()``)."""

    def __init__(self, record: dict[str, Any]) -> None:
        phases = record.get("phases")
        if not isinstance(phases, list) or not phases:
            raise InvalidValue("game record: expected a non-empty 'phases' list (play --out)")
        self.record = record
        self.phases: list[dict[str, Any]] = phases
        self._maps: OrderedDict[int, str] = OrderedDict()  # the last MAPS_KEPT maps drawn
        self._lock = threading.Lock()

    def _row(self, i: int) -> dict[str, Any]:
        if not 0 <= i < len(self.phases):
            raise StateError(f"phase index: expected 0..{len(self.phases) - 1}, got {i}")
        return self.phases[i]

    def svg(self, i: int) -> str:
        """The map of phase ``i`` with its orders, rendered by the engine (a record does
        not change: the last :data:`MAPS_KEPT` maps drawn are kept, so a reader paging back
        and forth, or a flood of requests, costs one drawing per phase)."""
        row = self._row(i)
        with self._lock:
            if i in self._maps:
                self._maps.move_to_end(i)
                return self._maps[i]
        drawn = _draw(row)
        with self._lock:
            self._maps[i] = drawn
            while len(self._maps) > MAPS_KEPT:
                self._maps.popitem(last=False)
        return drawn

    def router(self) -> APIRouter:
        """``/api/game``, ``/api/phase/{i}``, ``/api/phase/{i}/map.svg``."""
        r = APIRouter()

        @r.get("/api/game")
        def game() -> dict[str, Any]:
            return {
                "phases": [p["phase"] for p in self.phases],
                "players": self.record.get("players", {}),
                "end": self.record.get("end"),
                "powers": list(POWERS),
            }

        @r.get("/api/phase/{i}")
        def phase(i: int, view: str = Query("god")) -> dict[str, Any]:
            row = self._row(i)
            return {
                "phase": row["phase"],
                "centres": row.get("centres", {}),
                "orders": row.get("orders", {}),
                **round_view(row, view),
            }

        @r.get("/api/phase/{i}/map.svg")
        def map_svg(i: int) -> Response:
            return Response(self.svg(i), media_type="image/svg+xml")

        return r


def _draw(row: dict[str, Any]) -> str:
    """The engine's map of one phase row with its orders."""
    from diplomacy.engine.renderer import Renderer

    game = new_game()
    game.set_current_phase(row["phase"])
    game.clear_units()
    for power, units in row.get("units", {}).items():
        game.set_units(power, units, reset=True)
    for power in POWERS:
        game.set_centers(power, row.get("centers_list", {}).get(power, []), reset=False)
    for power, orders in row.get("orders", {}).items():
        if row["phase"].endswith("M"):
            game.set_orders(power, orders)
    return str(Renderer(game).render(incl_orders=True, incl_abbrev=False))


def viewer_app(record: dict[str, Any]) -> Any:
    """The viewer's FastAPI app (pages at ``/``)."""
    from accord.web.app import create_app

    return create_app("Diplomacy viewer", GameViewer(record), static={"/": STATIC})
