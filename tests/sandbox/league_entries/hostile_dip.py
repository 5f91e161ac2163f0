"""Diplomacy negotiators running the red-team catalogue (see ``hostile_core``)."""

from __future__ import annotations

from typing import Any

from hostile_core import Catalogue, partial_frame, pickle_frame

from accord.leagues.diplomacy.negotiator import Negotiator


class DipCatalogue(Negotiator):
    name = "catalogue"

    def __init__(self, seed: int | None = None) -> None:
        super().__init__(seed)
        self.moves = Catalogue()

    def negotiate(self, rnd: Any) -> None:
        self.moves.next_move()


class DipPickler(Negotiator):
    name = "pickler"

    def negotiate(self, rnd: Any) -> None:
        pickle_frame()


class DipPartial(Negotiator):  # (kept for manual runs)
    name = "partial"

    def negotiate(self, rnd: Any) -> None:
        partial_frame()
