"""A HAN agent in a seat of the agent driver (:class:`~accord.core.protocols.driver.AgentDriver`).

The driver asks a seat only when the rules (:class:`~accord.leagues.han.table.TableRules`)
name its side: the seat brings the agent's :class:`~accord.leagues.han.api.GameView` up to
what the side has learnt (the events heard, the offer it knows of, the time) and calls
``on_event`` with the event to answer; the answer goes back to the rules as it is (the
rules check it). Whatever the agent raises is the driver's to record: an exception is
the agent's failure (the game goes on), :class:`~accord.leagues.han.api.AgentGone` (its
process is gone) ends the game with both BATNAs. At the end the agent hears GAME_END.

An agent in a sandbox (:class:`~accord.leagues.han.isolation.IsolatedAgent`) sits in the
same seat: it is a :class:`~accord.leagues.han.api.HanAgent` whose calls cross the
sandbox's JSON channel.

    >>> from accord.leagues.han.agents import FairSplitter
    >>> from accord.leagues.han.domain import EXAMPLE_1
    >>> from accord.leagues.han.table import TableRules
    >>> rules = TableRules()
    >>> seat = HanSeat(FairSplitter(), rules, 0)
    >>> t = rules.initial(EXAMPLE_1, 0)
    >>> seat.start(t); t, _ = rules.tick(t, 0.0)
    >>> [e.kind.name for e in seat.act(t, 0).events]
    ['SEND_MESSAGE', 'SEND_EXPRESSION', 'SEND_OFFER']
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any

from accord.leagues.han.api import AgentError, AgentGone, GameView, HanAgent
from accord.leagues.han.events import Event, EventKind
from accord.leagues.han.table import SIDES, Move, Table, TableRules

__all__ = ["AgentError", "HanSeat"]


def _NOTHING() -> Move:  # noqa: N802 - a constant call: the side is not asked
    return Move(())


class HanSeat:
    """Party ``party``'s :class:`HanAgent` at a :class:`TableRules` game (``game_index``:
    the game's place in a participant's sequence, shown in the view)."""

    def __init__(self, agent: HanAgent, rules: TableRules, party: int, game_index: int = 0) -> None:
        self.agent = agent
        self.rules = rules
        self.party = party
        self.role = SIDES[party]
        self.name = type(agent).__name__
        self.game_index = game_index
        self.view: GameView | None = None
        self._ended = False

    def start(self, state: Table) -> None:
        """Bind the agent to a fresh view of its side."""
        self.view = GameView.of(state.spec, self.role, self.game_index)
        self._sync(state)
        self.agent.bind(self.view)

    def _sync(self, state: Table) -> GameView:
        view = self.view
        if view is None:
            self.start(state)
            view = self.view
            assert view is not None
        data = state.views[self.role]
        if len(data.heard) > len(view.heard):
            view.heard.extend(data.heard[len(view.heard) :])
        view.offer, view.elapsed = data.offer, data.elapsed
        return view

    def act(self, state: Table, party: int) -> Move:
        """The agent's answer to the event its side must answer now."""
        event = self.rules.asked(state, party)
        if event is None:
            return Move(())
        self._hear(state, event)
        return self._ask(event)

    def prepare(self, state: Table, party: int) -> Callable[[], Move]:
        """What the side learnt, read from ``state`` now; the call that asks the agent
        (it reads nothing of the state: the web driver makes it outside its lock)."""
        event = self.rules.asked(state, party)
        if event is None:
            return _NOTHING
        self._hear(state, event)
        return lambda: self._ask(event)

    def recall(self, state: Table, party: int, action: Any) -> None:
        """On a resume: a fresh agent hears the question it was asked at ``state`` again
        (its answer was recorded; what it says now is dropped), so its memory is rebuilt."""
        event = self.rules.asked(state, party)
        if event is not None:
            self._hear(state, event)
            with contextlib.suppress(AgentGone, AgentError):
                self._ask(event)

    def _hear(self, state: Table, event: Event) -> None:
        view = self._sync(state)
        # the side hears the event as it is asked (its time is the question's)
        view.elapsed = state.cursor[0] if state.cursor is not None else state.now
        if event.kind is not EventKind.TIME:
            view.heard.append(event)
        if event.kind is EventKind.SEND_OFFER:
            view.offer = event.offer

    def _ask(self, event: Event) -> Move:
        try:
            out = self.agent.on_event(event)
        except (AgentGone, AgentError):
            raise
        except Exception as exc:  # an agent's bug: the driver records it, the game goes on
            raise AgentError(f"{self.name}.on_event raised {exc!r}") from exc
        return Move(out)

    def end(self, result: Any) -> None:
        """The agent hears GAME_END (what it answers changes nothing)."""
        if self._ended or self.view is None:
            return
        self._ended = True
        t = float(getattr(result, "end_time", self.view.elapsed))
        self.view.elapsed = t
        with contextlib.suppress(AgentGone):  # already recorded when it went
            self.agent.on_event(Event(EventKind.GAME_END, "system", elapsed=t))
