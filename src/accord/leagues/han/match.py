"""Running games: two sides, their inboxes and outboxes, the clock, ticks, warnings, the end.

:class:`Match` drives one :class:`~accord.leagues.han.engine.Game`. A side is an
in-process :class:`~accord.leagues.han.api.HanAgent` (an agent or a simulated
participant) run by a :class:`~accord.leagues.han.runner.Runner` (its inbox, flushed by
priority events, and its spaced outbox, as IAGO's runner) or, with ``None``, a person
whose events arrive through :meth:`Match.submit` (the web page) and who sees every
event at once. ``advance(now)`` does everything due up to ``now`` in time order: the
sides' answers and dispatches, a TIME event every 5 s, the 1-minute warning and the time limit. An
agent that raises, returns garbage or floods has that recorded against it; the game goes on.

:func:`play` runs a whole game on a virtual clock (instant) or the real one.

    >>> from accord.leagues.han.agents import FairSplitter
    >>> from accord.leagues.han.participants import Cooperative
    >>> from accord.leagues.han.domain import EXAMPLE_1
    >>> rec = play(EXAMPLE_1, FairSplitter, Cooperative, seed=1)
    >>> rec.result.outcome.value
    'deal'
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any, Literal

from accord.leagues.han.api import AgentGone, GameView, HanAgent
from accord.leagues.han.dispatch import SPACING, Outbox
from accord.leagues.han.domain import GameSpec, Role
from accord.leagues.han.engine import Game
from accord.leagues.han.events import EMOTIONS, Event, EventKind
from accord.leagues.han.play import AgentFactory, Fresh, MatchRecord
from accord.leagues.han.runner import InboxFlush, Runner

__all__ = ["AgentFactory", "Fresh", "Match", "MatchRecord", "play", "play_sequence", "run"]

TICK = 5.0
MAX_EVENTS_PER_CALL = 20
_OTHER: dict[str, Role] = {"agent": "person", "person": "agent"}


class Match:
    """One game between ``agent`` and ``person`` (``None``: events come via :meth:`submit`)."""

    def __init__(
        self,
        spec: GameSpec,
        agent: HanAgent | None,
        person: HanAgent | None,
        *,
        start: float = 0.0,
        spacing: float = SPACING,
        person_menu_only: bool = True,
        game_index: int = 0,
        inbox_flush: InboxFlush = "flushable",
        agent_is_person: bool = False,
    ) -> None:
        self.spec = spec
        self.t0 = start
        self.game = Game(spec, person_menu_only=person_menu_only, agent_is_person=agent_is_person)
        self.sides: dict[Role, HanAgent | None] = {"agent": agent, "person": person}
        self.views: dict[Role, GameView] = {
            r: GameView.of(spec, r, game_index) for r in ("agent", "person")
        }
        # flood protection spaces agents' events; a person's events go out as sent
        self.boxes: dict[Role, Outbox] = {
            r: Outbox(spacing if self.sides[r] is not None else 0.0) for r in ("agent", "person")
        }
        self.feed: list[tuple[float, Event]] = []  # what both sides saw, in order
        self.expression: dict[Role, tuple[str, float]] = {}
        self.runners: dict[Role, Runner] = {}
        self._next_tick = TICK
        self._started = False
        self._now = 0.0  # the last game time stepped to
        for role, side in self.sides.items():
            if side is not None:
                side.bind(self.views[role])
                self.runners[role] = Runner(
                    self._answerer(role),
                    spacing,
                    flush=inbox_flush,
                )

    # -- time ---------------------------------------------------------------------------
    def elapsed(self, now: float) -> float:
        return now - self.t0

    def next_due(self) -> float:
        """The next moment (on the caller's clock) something happens by itself."""
        return self.t0 + self._next_elapsed()

    def _next_elapsed(self) -> float:
        times = [self._next_tick, self.spec.total_time]
        times += [d for b in self.boxes.values() if (d := b.next_due()) is not None]
        times += [
            max(d, self._now) for r in self.runners.values() if (d := r.next_due()) is not None
        ]
        return min(times)

    def start(self, now: float) -> None:
        if self._started:
            return
        self._started = True
        for role in ("agent", "person"):
            self._deliver(role, Event(EventKind.GAME_START, "system"), 0.0)

    def advance(self, now: float) -> None:
        """Do everything due up to ``now``, in time order."""
        self.start(now)
        end = self.elapsed(now)
        while not self.game.ended:
            t = self._next_elapsed()
            if t > end:
                break
            self._step(t)
        if not self.game.ended:
            self.game.tick(end)
            if self.game.ended:
                self._finish(end)

    def _step(self, t: float) -> None:
        self._now = max(self._now, t)
        self.game.tick(t)
        if self.game.ended:
            self._finish(t)
            return
        for role in ("agent", "person"):
            ev = self.boxes[role].pop_due(t)
            if ev is not None:
                self._dispatch(ev, t)
                if self.game.ended:
                    return
            runner = self.runners.get(role)
            if runner is None:
                continue
            before = runner.overflow
            ev = runner.pop_due(t)
            if runner.overflow > before:
                self.game.refuse(role, t, f"flooding: {runner.overflow - before} events dropped")
            if ev is not None:
                self._dispatch(ev, t)
            if self.game.ended:
                return
        if t >= self._next_tick:
            self._next_tick += TICK
            tick = Event(EventKind.TIME, "system", elapsed=t)
            for role in ("agent", "person"):
                self._deliver(role, tick, t)  # type: ignore[arg-type]

    # -- events -------------------------------------------------------------------------
    def submit(self, role: Role, event: Event, now: float) -> None:
        """An event from a side driven from outside (a person on the page): queued now."""
        self.advance(now)
        if not self.game.ended:
            self.boxes[role].push([event.owned_by(role)], self.elapsed(now))
            self.advance(now)

    def leave(self, role: Role, now: float) -> None:
        """``role`` left for good: the game ends now with both BATNAs (outcome ``left``)."""
        self.advance(now)
        if not self.game.ended:
            self.game.leave(role, self.elapsed(now))
            self._finish(self.elapsed(now))

    def refuse(self, role: Role, now: float, reason: str) -> None:
        self.game.refuse(role, self.elapsed(now), reason)

    def _dispatch(self, ev: Event, t: float) -> None:
        n = len(self.game.history)
        self.game.apply(ev, t)
        if len(self.game.history) == n and not self.game.ended:
            return  # refused: recorded against the sender
        self.feed.append((t, ev))
        if ev.kind is EventKind.SEND_EXPRESSION:
            self.expression[ev.owner] = (ev.emotion, t + ev.duration)  # type: ignore[index]
        if ev.kind is EventKind.SEND_OFFER:
            self.views[ev.owner].offer = ev.offer  # type: ignore[index]
        if self.game.ended:
            self._finish(t)
            return
        self._deliver(_OTHER[ev.owner], ev, t)

    def _deliver(self, role: Role, ev: Event, t: float) -> None:
        """``ev`` arrives for ``role``: into its runner's inbox, or seen at once by a
        side driven from outside."""
        runner = self.runners.get(role)
        if runner is not None:
            runner.receive(ev, t)
            return
        self._heard(role, ev, t)

    def _heard(self, role: Role, ev: Event, t: float) -> None:
        """``role`` learns of ``ev`` at ``t`` (its view follows what it has heard)."""
        view = self.views[role]
        view.elapsed = t
        if ev.kind is not EventKind.TIME:
            view.heard.append(ev)
        if ev.kind is EventKind.SEND_OFFER:
            view.offer = ev.offer

    def _answerer(self, role: Role) -> Callable[[Event, float], list[Event]]:
        def answer(ev: Event, t: float) -> list[Event]:
            side = self.sides[role]
            self._heard(role, ev, t)
            if side is None or self.game.ended:
                return []
            try:
                out = side.on_event(ev)
            except AgentGone as exc:  # its process is gone: the game ends with BATNAs
                self.game.refuse(role, t, str(exc))
                self.game.leave(role, t)
                self._finish(t)
                return []
            except Exception as exc:  # an agent's bug is its failure, not the game's
                self.game.refuse(role, t, f"{type(side).__name__}.on_event raised {exc!r}")
                return []
            return self._checked(role, out, t)

        return answer

    def _checked(self, role: Role, out: Any, t: float) -> list[Event]:
        if out is None:
            return []
        if not isinstance(out, list | tuple):
            self.game.refuse(role, t, f"on_event returns a list of Event; got {type(out).__name__}")
            return []
        good = [e.owned_by(role) for e in out if isinstance(e, Event)]
        if len(good) != len(out):
            self.game.refuse(role, t, f"on_event returned {len(out) - len(good)} non-Event items")
        for e in [e for e in good if e.kind is EventKind.SEND_EXPRESSION]:
            if e.emotion not in EMOTIONS:  # shown to people: only the allowed faces
                self.game.refuse(
                    role, t, f"emotion must be one of {', '.join(EMOTIONS)}; got {e.emotion!r}"
                )
                good.remove(e)
        if len(good) > MAX_EVENTS_PER_CALL:
            self.game.refuse(
                role,
                t,
                f"flooding: {len(good)} events in one answer (at most {MAX_EVENTS_PER_CALL})",
            )
            good = good[:MAX_EVENTS_PER_CALL]
        return good

    def _finish(self, t: float) -> None:
        for box in self.boxes.values():
            box.clear()
        for runner in self.runners.values():
            runner.clear()
        end = Event(EventKind.GAME_END, "system", elapsed=t)
        self.feed.append((t, end))
        for role in ("agent", "person"):
            side = self.sides[role]
            self.views[role].elapsed = t
            if side is not None:
                try:
                    side.on_event(end)
                except AgentGone:
                    pass  # already recorded when it went
                except Exception as exc:
                    self.game.refuse(role, t, f"on_event(GAME_END) raised {exc!r}")

    def record(self) -> MatchRecord:
        names: dict[str, str] = {
            r: (type(s).__name__ if s is not None else "person") for r, s in self.sides.items()
        }
        return MatchRecord(self.game.result, self.game, names, self.views["agent"].game_index)


Clock = Literal["virtual", "real"]


def run(match: Match, clock: Clock = "virtual") -> MatchRecord:
    """Run ``match`` to its end on a virtual clock (instant) or the real one (sleeps)."""
    if clock == "virtual":
        match.t0 = 0.0
        match.start(0.0)
        while not match.game.ended:
            match.advance(match.next_due())
        return match.record()
    match.t0 = time.monotonic()
    match.start(match.t0)
    while not match.game.ended:
        time.sleep(max(0.0, min(match.next_due() - time.monotonic(), 0.5)))
        match.advance(time.monotonic())
    return match.record()


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
    fresh = fresh or Fresh()
    a, p = fresh(agent), fresh(person)
    _seed(a, seed)
    _seed(p, seed + 1)
    m = Match(spec, a, p, person_menu_only=person_menu_only, game_index=game_index)
    try:
        return run(m, clock)
    finally:
        _close(a, p)


def play_sequence(
    specs: Sequence[GameSpec], agent: AgentFactory, person: AgentFactory, *, seed: int = 0,
    fresh: Fresh | None = None,
) -> list[MatchRecord]:  # fmt: skip
    """Several games in order against the *same* agent instance (one participant)."""
    fresh = fresh or Fresh()
    a, p = fresh(agent), fresh(person)
    _seed(a, seed)
    _seed(p, seed + 1)
    try:
        return [run(Match(s, a, p, game_index=i)) for i, s in enumerate(specs)]
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
