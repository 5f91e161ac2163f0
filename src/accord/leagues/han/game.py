"""One game with a person in it, on the shared agent driver: what the web server holds.

:class:`LiveGame` is the rules of :mod:`accord.leagues.han.table` with people on one or
both sides, run by :class:`~accord.core.protocols.driver.AgentDriver`: the agent's seat
(a :class:`~accord.leagues.han.seats.HanSeat`) is asked by the driver, and only by it;
a person's side has no seat (it is played from outside: its events reach the rules
through :meth:`LiveGame.submit`). Time is the caller's: :meth:`LiveGame.advance` moves
the game to ``now`` (the driver ticks the rules and asks the agent whatever is due
before it), on the server's clock, from ``t0``.

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

from accord.core.protocols.base import Phase
from accord.core.protocols.driver import AgentDriver
from accord.leagues.han.api import HanAgent
from accord.leagues.han.domain import GameSpec, Role
from accord.leagues.han.engine import Game
from accord.leagues.han.events import Event
from accord.leagues.han.play import MatchRecord
from accord.leagues.han.queues import SPACING, InboxFlush
from accord.leagues.han.seats import HanSeat
from accord.leagues.han.table import SIDES, Move, Table, TableRules

__all__ = ["LiveGame"]


class LiveGame:
    """A game of ``agent`` (None: a person on the agent's side too) against a person."""

    def __init__(
        self,
        spec: GameSpec,
        agent: HanAgent | None,
        *,
        start: float = 0.0,
        spacing: float = SPACING,
        game_index: int = 0,
        inbox_flush: InboxFlush = "flushable",
    ) -> None:
        self.spec = spec
        self.t0 = start
        self.game_index = game_index
        self.agent = agent
        people = (1,) if agent is not None else (0, 1)
        self.rules = TableRules(
            people, spacing=spacing, inbox_flush=inbox_flush, agent_is_person=agent is None
        )
        seats = [None if agent is None else HanSeat(agent, self.rules, 0, game_index), None]
        self._at = start
        names = [type(agent).__name__ if agent is not None else "person", "person"]
        self.driver = AgentDriver(self.rules, spec, seats, names, clock=self._elapsed_now)
        self.names = {"agent": names[0], "person": names[1]}

    # -- what the server reads ----------------------------------------------------------
    @property
    def table(self) -> Table:
        return self.driver.state  # type: ignore[no-any-return]

    @property
    def game(self) -> Game:
        return self.table.game

    @property
    def feed(self) -> list[tuple[float, Event]]:
        return self.table.feed

    @property
    def expression(self) -> dict[Role, tuple[str, float]]:
        return self.table.expression

    def elapsed(self, now: float) -> float:
        return now - self.t0

    def _elapsed_now(self) -> float:
        return self._at - self.t0

    def next_due(self) -> float:
        """The next moment (on the caller's clock) something happens by itself."""
        due = self.rules.due(self.table)
        return self.t0 + (due if due is not None else self.spec.total_time)

    # -- moving it ----------------------------------------------------------------------
    def advance(self, now: float) -> None:
        """Do everything due up to ``now``: the driver asks the agent what is due."""
        self._at = max(self._at, now)
        d = self.driver
        if d.phase is Phase.CREATED:  # the driver's origin is game time 0 (its clock reads
            at, self._at = self._at, self.t0  # game time: now - t0, and t0 may move on a resume)
            d.start()
            self._at = at
        while d.result is None:
            d.step()
            if self.rules.asked(d.state, 0) is None or self.agent is None:
                break
        if d.result is None and self.rules.is_over(d.state):
            d.step()  # the game ended meanwhile: the driver ends it (GAME_END to the agent)

    def submit(self, role: Role, event: Event, now: float) -> None:
        """An event of the person on side ``role``, at ``now``."""
        self.advance(now)
        if not self.game.ended:
            self.driver.act(SIDES.index(role), Move((event,)))
            self.advance(now)

    def leave(self, role: Role, now: float) -> None:
        """``role`` left for good: the game ends now with both BATNAs (outcome ``left``)."""
        self.advance(now)
        if not self.game.ended:
            self.rules.leave(self.table, SIDES.index(role), self.elapsed(now))
            self.advance(now)

    def refuse(self, role: Role, now: float, reason: str) -> None:
        """Record an event of ``role`` that could not even be read (the game goes on)."""
        self.rules.refuse(self.table, SIDES.index(role), reason, self.elapsed(now))

    def record(self) -> MatchRecord:
        rec = MatchRecord(self.game.result, self.game, dict(self.names), self.game_index)
        rec.feed = list(self.feed)
        return rec
