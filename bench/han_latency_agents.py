"""Agents for ``bench_study_latency.py`` (imported by name in their own processes)."""

from __future__ import annotations

import time

from accord.leagues.han.agents import FairSplitter
from accord.leagues.han.api import HanAgent
from accord.leagues.han.events import Event, EventKind


class Hung(HanAgent):
    """Never answers the start of its game."""

    def on_event(self, event: Event) -> list[Event]:
        if event.kind is EventKind.GAME_START:
            time.sleep(3600)
        return []


class Slow(FairSplitter):
    """Takes 8 s to build and 4 s to answer every event (inside the 5 s deadline)."""

    def __init__(self) -> None:
        time.sleep(8.0)
        super().__init__()

    def on_event(self, event: Event) -> list[Event]:
        time.sleep(4.0)
        return super().on_event(event)
