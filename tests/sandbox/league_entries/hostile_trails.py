"""Colored Trails entrants running the red-team catalogue (see ``hostile_core``)."""

from __future__ import annotations

from typing import Any

from hostile_core import Catalogue, partial_frame, pickle_frame

from accord.leagues.trails.baselines import BASELINES

Reliable = BASELINES["reliable"]


class TrailsCatalogue(Reliable):  # type: ignore[misc, valid-type]
    name = "catalogue"

    def _move(self) -> None:
        if not hasattr(self, "moves"):
            self.moves = Catalogue()
        self.moves.next_move()

    def propose(self, view: Any) -> Any:
        self._move()
        return super().propose(view)

    def respond(self, view: Any, proposal: Any) -> Any:
        self._move()
        return super().respond(view, proposal)

    def transfer(self, view: Any, promised: Any, expected: Any) -> Any:
        self._move()
        return super().transfer(view, promised, expected)


class TrailsPickler(Reliable):  # type: ignore[misc, valid-type]
    name = "pickler"

    def propose(self, view: Any) -> Any:
        pickle_frame()

    def respond(self, view: Any, proposal: Any) -> Any:
        pickle_frame()


class TrailsPartial(Reliable):  # type: ignore[misc, valid-type]
    name = "partial"

    def propose(self, view: Any) -> Any:
        partial_frame()

    def respond(self, view: Any, proposal: Any) -> Any:
        partial_frame()
