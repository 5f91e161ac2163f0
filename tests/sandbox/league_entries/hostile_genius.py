"""GENIUS entrants running the red-team catalogue (see ``hostile_core``)."""

from __future__ import annotations

from typing import Any

from hostile_core import Catalogue, partial_frame, pickle_frame

from accord.leagues.genius.pdas import Conceder


class GeniusCatalogue(Conceder):
    def act(self, view: Any) -> Any:
        if not hasattr(self, "moves"):
            self.moves = Catalogue()
        self.moves.next_move()
        return super().act(view)


class GeniusPickler(Conceder):
    def act(self, view: Any) -> Any:
        pickle_frame()


class GeniusPartial(Conceder):
    def act(self, view: Any) -> Any:
        partial_frame()
