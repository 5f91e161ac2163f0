"""Agents for the isolation tests (imported by name, ``han_stateful:Counting``, in the
agent's own process): one that keeps state in its class and its module, and three
that fail in their process (raise, crash, hang)."""

from __future__ import annotations

import os
import time

from accord.leagues.han.api import HanAgent, expression, message
from accord.leagues.han.events import Event, EventKind

GAMES = 0  # a module global: games this module has seen


class Counting(HanAgent):
    """Counts games in a class attribute and a module global; says both at the start and
    makes as many happy faces as the class count."""

    games = 0

    def on_event(self, event: Event) -> list[Event]:
        global GAMES
        if event.kind is not EventKind.GAME_START:
            return []
        type(self).games += 1
        GAMES += 1
        said = message(f"count class={type(self).games} module={GAMES}")
        return [said, *(expression("happy") for _ in range(type(self).games))]


class Raising(HanAgent):
    def on_event(self, event: Event) -> list[Event]:
        raise RuntimeError("agent bug")


class Crashing(HanAgent):
    def on_event(self, event: Event) -> list[Event]:
        if event.kind is EventKind.GAME_START:
            os._exit(3)
        return []


class Hanging(HanAgent):
    def on_event(self, event: Event) -> list[Event]:
        if event.kind is EventKind.GAME_START:
            time.sleep(60)
        return []


class Stuck(HanAgent):
    """Hangs at the start of its game, far longer than any test waits."""

    def on_event(self, event: Event) -> list[Event]:
        if event.kind is EventKind.GAME_START:
            time.sleep(3600)
        return []


class Flooding(HanAgent):
    """Answers the start of its game with twenty faces at once."""

    def on_event(self, event: Event) -> list[Event]:
        if event.kind is EventKind.GAME_START:
            return [expression("happy") for _ in range(20)]
        return []
