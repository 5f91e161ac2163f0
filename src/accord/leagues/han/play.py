"""Agent-vs-agent games on the shared agent driver: :func:`play`, :func:`play_sequence`.

A game is the rules of :mod:`accord.leagues.han.table` run by
:class:`~accord.core.protocols.driver.AgentDriver` with one
:class:`~accord.leagues.han.seats.HanSeat` per side: the driver is the only code that
calls the agents and records their failures. Time is a virtual clock that jumps to the
rules' next change (a whole game in milliseconds) or the real one (the driver sleeps).

    >>> from accord.leagues.han.agents import FairSplitter
    >>> from accord.leagues.han.participants import Cooperative
    >>> from accord.leagues.han.domain import EXAMPLE_1
    >>> rec = play(EXAMPLE_1, FairSplitter, Cooperative, seed=1)
    >>> rec.result.outcome
    'deal'
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from accord.core.errors import ConfigError
from accord.core.protocols.driver import AgentDriver
from accord.leagues.han.api import HanAgent
from accord.leagues.han.domain import GameSpec
from accord.leagues.han.engine import Game, GameResult
from accord.leagues.han.events import Event
from accord.leagues.han.queues import SPACING, InboxFlush
from accord.leagues.han.seats import HanSeat
from accord.leagues.han.table import Table, TableRules

__all__ = ["AgentFactory", "Clock", "Fresh", "MatchRecord", "play", "play_sequence", "run"]

AgentFactory = Callable[[], HanAgent]
Clock = Literal["virtual", "real"]


class Fresh:
    """Builds agents and refuses an instance it has handed out before.

    The 2017 rules forbid carrying state from one participant to the next; the platform
    builds a new instance for each participant and checks that it *is* new.

        >>> from accord.leagues.han.agents import FairSplitter
        >>> fresh = Fresh()
        >>> a, b = fresh(FairSplitter), fresh(FairSplitter)
        >>> a is b
        False
        >>> same = FairSplitter()
        >>> _ = fresh(lambda: same); fresh(lambda: same)  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        accord.core.errors.ConfigError: the factory returned an agent instance already used ...
    """

    def __init__(self) -> None:
        self._seen: list[HanAgent] = []  # strong refs: an id is never reused while held

    def __call__(self, factory: AgentFactory) -> HanAgent:
        try:
            agent = factory()
        except Exception as exc:  # an author's constructor: say whose and what, no traceback
            name = getattr(factory, "__name__", repr(factory))
            raise ConfigError(f"cannot build agent {name}: {type(exc).__name__}: {exc}") from exc
        if not isinstance(agent, HanAgent):
            raise ConfigError(f"an agent factory returns a HanAgent; got {type(agent).__name__}")
        if any(agent is s for s in self._seen):
            raise ConfigError(
                "the factory returned an agent instance already used with another "
                f"participant ({type(agent).__name__}); each participant needs a fresh instance"
            )
        self._seen.append(agent)
        return agent


@dataclass
class MatchRecord:
    """A finished game: its result, its game (history, counts), the sides' names and
    the feed both sides saw (every event that went out, and GAME_END)."""

    result: GameResult
    game: Game
    names: dict[str, str]
    game_index: int = 0
    extra: dict[str, Any] = field(default_factory=dict)
    feed: list[tuple[float, Event]] = field(default_factory=list)


def record(table: Table, names: dict[str, str], game_index: int = 0) -> MatchRecord:
    """The record of a finished ``table``."""
    return MatchRecord(table.game.result, table.game, names, game_index, feed=list(table.feed))


class _Virtual:
    """A clock that stands still until the driver waits, then jumps."""

    def __init__(self) -> None:
        self.t = 0.0

    def now(self) -> float:
        return self.t

    def sleep(self, dt: float) -> None:
        self.t += dt


def run(
    spec: GameSpec,
    agent: HanAgent,
    person: HanAgent,
    *,
    clock: Clock = "virtual",
    game_index: int = 0,
    person_menu_only: bool = True,
    spacing: float = SPACING,
    inbox_flush: InboxFlush = "flushable",
) -> MatchRecord:
    """One game of the two agents (already built) to its end, on the agent driver."""
    rules = TableRules(spacing=spacing, inbox_flush=inbox_flush, person_menu_only=person_menu_only)
    seats = [HanSeat(agent, rules, 0, game_index), HanSeat(person, rules, 1, game_index)]
    names = {"agent": type(agent).__name__, "person": type(person).__name__}
    now: Callable[[], float] = time.monotonic
    sleep: Callable[[float], None] = lambda s: time.sleep(min(s, 0.5))  # noqa: E731
    if clock == "virtual":
        v = _Virtual()
        now, sleep = v.now, v.sleep
    driver = AgentDriver(rules, spec, seats, list(names.values()), clock=now, sleep=sleep)
    driver.run()
    return record(driver.state, names, game_index)


def play(
    spec: GameSpec,
    agent: AgentFactory,
    person: AgentFactory,
    *,
    clock: Clock = "virtual",
    seed: int = 0,
    fresh: Fresh | None = None,
    person_menu_only: bool = True,
    game_index: int = 0,
) -> MatchRecord:
    """One game of a fresh ``agent()`` against a fresh ``person()``."""
    with _fresh_sides(agent, person, seed, fresh) as (a, p):
        return run(
            spec, a, p, clock=clock, person_menu_only=person_menu_only, game_index=game_index
        )


def play_sequence(
    specs: Sequence[GameSpec], agent: AgentFactory, person: AgentFactory, *, seed: int = 0,
    fresh: Fresh | None = None,
) -> list[MatchRecord]:  # fmt: skip
    """Several games in order against the *same* agent instance (one participant)."""
    with _fresh_sides(agent, person, seed, fresh) as (a, p):
        return [run(s, a, p, game_index=i) for i, s in enumerate(specs)]


@contextlib.contextmanager
def _fresh_sides(
    agent: AgentFactory, person: AgentFactory, seed: int, fresh: Fresh | None
) -> Iterator[tuple[HanAgent, HanAgent]]:
    """A fresh ``agent()`` and ``person()``, seeded ``seed`` and ``seed + 1``, stopped
    (their processes, when isolated) at the end."""
    fresh = fresh or Fresh()
    a, p = fresh(agent), fresh(person)
    _seed(a, seed)
    _seed(p, seed + 1)
    try:
        yield a, p
    finally:
        _close(a, p)


def _close(*sides: HanAgent) -> None:
    """Stop the processes of sides that run in one (:mod:`accord.leagues.han.isolation`)."""
    for side in sides:
        close = getattr(side, "close", None)
        if callable(close):
            close()


def _seed(agent: HanAgent, seed: int) -> None:
    reseed = getattr(agent, "reseed", None)
    if callable(reseed):
        reseed(seed)
