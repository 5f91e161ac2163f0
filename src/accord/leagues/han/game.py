"""One game with a person in it, on the web driver: what the study server holds.

:class:`LiveGame` is the rules of :mod:`accord.leagues.han.table` with people on one or
both sides, played by the web driver (:class:`~accord.web.driver.RulesGame`): the
agent's seat (a :class:`~accord.leagues.han.seats.HanSeat`) is asked by the driver only,
outside the game's lock, so a person's event may come while the agent thinks (it waits
in the person's outbox; the agent's answer is still played); a person's side has no
seat: its events reach the rules through :meth:`LiveGame.submit`. Every change is in
the game's stream of an event log, so a game is rebuilt by replaying it (the agent,
a fresh one, hears again every question it was asked), and its clock is the wall time
since its start (the time a server was down counts).

Time is the server's clock; with none given, the caller's: :meth:`LiveGame.advance`
moves the game to ``now`` (what is due happens, and the agent answers what it is asked
before it).

    >>> from accord.leagues.han.agents import FairSplitter
    >>> from accord.leagues.han.domain import EXAMPLE_1
    >>> from accord.leagues.han.events import preset
    >>> g = LiveGame(EXAMPLE_1, FairSplitter(), start=100.0)
    >>> g.advance(100.0)
    >>> [(t, e.kind.name) for t, e in g.feed]
    [(0.0, 'SEND_MESSAGE')]
    >>> g.submit("person", preset(1), 101.0); g.advance(104.0)
    >>> [(round(t, 1), e.owner, e.kind.name) for t, e in g.feed][1:]
    [(1.0, 'person', 'SEND_MESSAGE'), (1.6, 'agent', 'SEND_EXPRESSION'), (2.7, 'agent', 'SEND_OFFER')]
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping

from accord.core.protocols.result import FailureKind
from accord.leagues.han.api import HanAgent
from accord.leagues.han.domain import GameSpec, Role
from accord.leagues.han.engine import Game
from accord.leagues.han.events import Event, page_json
from accord.leagues.han.play import MatchRecord
from accord.leagues.han.queues import SPACING, InboxFlush
from accord.leagues.han.seats import HanSeat
from accord.leagues.han.table import SIDES, Table, TableRules, person_event
from accord.tournament.sqlite import SqliteFile
from accord.web.clock import Clock, VirtualClock
from accord.web.driver import RulesGame
from accord.web.store import EventLog

__all__ = ["LiveGame"]


class LiveGame:
    """A game of ``agent`` (None: a person on the agent's side too) against a person.

    Args:
        spec: the game (ignored when ``log`` holds the game already: it is resumed).
        agent: the agent on side 0, or None.
        start: with no ``clock``, the caller's time at the game's start.
        log: the event log that keeps the game (its stream ``stream``); default one
            in memory.
        clock: the server's clock; the log's must be the same.
        loop: the server's event loop (the game wakes itself when something is due).
        on_change: called after every change (see :class:`RulesGame`).
    """

    def __init__(
        self,
        spec: GameSpec,
        agent: HanAgent | None,
        *,
        start: float = 0.0,
        spacing: float = SPACING,
        game_index: int = 0,
        inbox_flush: InboxFlush = "flushable",
        log: EventLog | None = None,
        stream: str = "han",
        clock: Clock | None = None,
        loop: asyncio.AbstractEventLoop | None = None,
        on_change: Callable[[], None] | None = None,
    ) -> None:
        self.game_index = game_index
        self.agent = agent
        self._hand = VirtualClock(start, 0.0) if clock is None else None
        self.clock: Clock = clock or self._hand  # type: ignore[assignment]
        if log is None:
            log = EventLog(SqliteFile(":memory:"), self.clock)
        people = (1,) if agent is not None else (0, 1)
        rules = self.rules = TableRules(
            people, spacing=spacing, inbox_flush=inbox_flush, agent_is_person=agent is None
        )
        names = [type(agent).__name__ if agent is not None else "person", "person"]
        self.names = {"agent": names[0], "person": names[1]}

        def seats(state: Table) -> Mapping[int, HanSeat]:
            return {} if agent is None else {0: HanSeat(agent, rules, 0, game_index)}

        self.play = RulesGame(
            rules, spec, people, seats, log, clock=self.clock, names=names, stream=stream,
            wall_time=True, recall=True, loop=loop, on_change=on_change,
        )  # fmt: skip

    # -- what the server reads ----------------------------------------------------------
    @property
    def table(self) -> Table:
        return self.play.state  # type: ignore[no-any-return]

    @property
    def spec(self) -> GameSpec:
        return self.table.spec

    @property
    def game(self) -> Game:
        return self.table.game

    @property
    def feed(self) -> list[tuple[float, Event]]:
        return self.table.feed

    @property
    def expression(self) -> dict[Role, tuple[str, float]]:
        return self.table.expression

    @property
    def t0(self) -> float:
        """The clock's reading at the game's start."""
        return self.play.t0

    def elapsed(self, now: float) -> float:
        return now - self.t0

    def next_due(self) -> float:
        """The next moment (on the clock) something happens by itself."""
        due = self.rules.due(self.table)
        return self.t0 + (due if due is not None else self.spec.total_time)

    # -- moving it ----------------------------------------------------------------------
    def _at(self, now: float | None) -> None:
        if self._hand is not None and now is not None and now > self._hand.now():
            self._hand.advance(now - self._hand.now())

    def advance(self, now: float | None = None, *, wait: bool = True) -> None:
        """Do everything due up to now (``now``: the caller's time, with no clock): the
        agent answers what it is asked first (with ``wait`` false it is asked in a worker
        thread and not waited for: the game moves to now)."""
        self._at(now)
        if wait:
            self.play.run_agents(wait=True)
        else:
            self.play.kick()

    def submit(self, role: Role, event: Event, now: float | None = None) -> None:
        """An event of the person on side ``role``, at ``now`` (the caller's time, with no
        clock: what is due before it happens first; on a server's clock it is taken at
        once, even while the agent thinks)."""
        hand = self._hand is not None
        self.advance(now, wait=hand)
        if not self.game.ended:
            self.play.act(SIDES.index(role), person_event(page_json(event)))
            self.advance(now, wait=hand)

    def leave(self, role: Role, now: float | None = None) -> None:
        """``role`` left for good: the game ends now with both BATNAs (outcome ``left``)."""
        self.advance(now, wait=self._hand is not None)
        if not self.game.ended:
            self.play.act(SIDES.index(role), {"kind": "leave", "args": {}})

    def refuse(self, role: Role, reason: str, now: float | None = None) -> None:
        """Record an event of ``role`` that could not even be read (the game goes on)."""
        self._at(now)
        self.play.fail(SIDES.index(role), FailureKind.INVALID, reason[:300])

    def record(self) -> MatchRecord:
        with self.play.lock:
            rec = MatchRecord(self.game.result, self.game, dict(self.names), self.game_index)
            rec.feed = list(self.feed)
        return rec
