"""The agent driver: the one loop that runs any :class:`~accord.core.protocols.rules.Rules`
with agents in its seats.

It is the only code that calls agents. Each step it tells the rules the time
(:meth:`Rules.tick`), asks every party the rules name (:meth:`Rules.to_act`) through
its :class:`Seat`, and applies the answer (:meth:`Rules.apply`). Whatever a seat
raises is that party's failure, recorded through :meth:`Rules.fail`, never a crash: an
exception, an :class:`~accord.core.protocols.rules.IllegalAction` (an answer the rules
refuse), a call slower than its limit. Only the user's Ctrl-C passes
(:mod:`accord.core.interrupts`; an agent raising ``KeyboardInterrupt`` fails).

A seat is anything with ``name``, ``start(state)``, ``act(state, party)`` and
``end(result)``. An in-process negotiator's seat
(:class:`~accord.core.protocols.offers.NegotiatorSeat`) calls its methods directly; a
sandboxed entrant's seat sends ``observe(state, party)`` and ``legal(state, party)`` to
its process as JSON and turns the JSON answer into an action with
:meth:`Rules.action_from_json`, so it is a drop-in here (:mod:`accord.drivers.seats`).

    >>> from accord.core.protocols.alternating import AOPRules
    >>> from accord.core.protocols.offers import NegotiationSetup, NegotiatorSeat
    >>> from accord.core.negotiator import Negotiator, NegotiatorView, OfferLog, Response
    >>> from accord.core.outcomes import CategoricalIssue, OutcomeSpace
    >>> from accord.core.time import Deadline
    >>> from accord.core.utilities import LinearAdditiveUtility
    >>> space = OutcomeSpace([CategoricalIssue("x", ["a", "b"])])
    >>> u = LinearAdditiveUtility(space, [1.0], [{"a": 1.0, "b": 0.0}])
    >>> class Yes(Negotiator):
    ...     def propose(self, view): return ("a",)
    ...     def respond(self, view, offer): return Response.ACCEPT
    >>> rules = AOPRules()
    >>> setup = NegotiationSetup(space, (u, u), Deadline(rounds=3), ("A", "B"))
    >>> seats = [NegotiatorSeat(Yes(), NegotiatorView(u, k, setup.names, OfferLog(), (0, k)),
    ...                         rules, space) for k in range(2)]
    >>> r = AgentDriver(rules, setup, seats, setup.names, seed=0).run()
    >>> r.agreement, r.reason.value, r.steps
    (('a',), 'agreement', 2)
"""

from __future__ import annotations

import time as _time
import traceback as _tb
from collections.abc import Callable, Sequence
from typing import Any, Protocol

from accord.core.errors import NegotiatorTimeout
from accord.core.interrupts import user_interrupted
from accord.core.protocols.base import Mechanism, Phase
from accord.core.protocols.result import Failure, FailureKind
from accord.core.protocols.rules import IllegalAction, Rules

_NOBODY: frozenset[int] = frozenset()

__all__ = ["AgentDriver", "Seat", "SlowCall", "failure_of", "format_traceback"]


class SlowCall(NegotiatorTimeout):
    """A call that returned, but later than its time limit (the message says by how much)."""


class Seat(Protocol):
    """One party's agent, as the agent driver sees it."""

    name: str

    def start(self, state: Any) -> None:
        """The play begins (an agent's start-up; untimed)."""

    def act(self, state: Any, party: int) -> Any:
        """The party's action now, in the rules' own form; raise to fail."""

    def end(self, result: Any) -> None:
        """The play is over (errors here change nothing)."""


def format_traceback(exc: BaseException, limit: int = 20_000) -> str:
    """The formatted traceback of ``exc`` (its last ``limit`` characters)."""
    return "".join(_tb.format_exception(exc))[-limit:]


def failure_of(party: int, name: str, exc: BaseException) -> Failure:
    """The failure an agent's exception is: a timeout (:class:`SlowCall`, or a
    :class:`NegotiatorTimeout` raised by a caller that pre-empts slow calls), else an
    exception, with its traceback."""
    if type(exc) is SlowCall:
        return Failure(party, name, FailureKind.TIMEOUT, str(exc))
    kind = FailureKind.TIMEOUT if isinstance(exc, NegotiatorTimeout) else FailureKind.EXCEPTION
    return Failure(party, name, kind, f"{type(exc).__name__}: {exc}", format_traceback(exc))


class AgentDriver(Mechanism):
    """Runs ``rules`` from ``setup`` with one :class:`Seat` per party.

    Args:
        rules: the protocol's rules.
        setup: what the play is set up from (passed to ``rules.initial``).
        seats: one seat per party, in party order; None for a party played from outside
            the driver (a person on a web page): the driver never asks it nor waits for
            it, and its actions come through :meth:`act`.
        names: the parties' names (recorded in failures).
        seed: the rules' seed.
        clock: seconds from a fixed origin (``time.perf_counter``; a virtual clock in
            tests); the rules get seconds since the play started.
        sleep: how to wait ``s`` seconds while the rules ask nobody but the play goes on
            (:meth:`Rules.due` says until when): ``time.sleep``, or a virtual clock's
            jump. Rules that always ask someone until the end never wait.

    :meth:`step` lets every party the rules name at its start act once (one party in a
    turn-taking protocol; every party in a simultaneous round), so a step is what it
    was for the session classes this driver replaced.
    """

    def __init__(
        self,
        rules: Rules[Any, Any, Any],
        setup: Any,
        seats: Sequence[Seat | None],
        names: Sequence[str],
        seed: int = 0,
        clock: Callable[[], float] = _time.perf_counter,
        sleep: Callable[[float], None] = _time.sleep,
    ) -> None:
        self.info = rules.info
        self.rules = rules
        self.setup = setup
        self.seats: tuple[Any, ...] = tuple(seats)  # a Seat, or None (played from outside)
        self._outside = (
            frozenset([k for k, seat in enumerate(self.seats) if seat is None])
            if self.seats
            else _NOBODY
        )
        self.names = tuple(names)
        self.seed = seed
        self.state = rules.initial(setup, seed)
        self.phase = Phase.CREATED
        self._clock = clock
        self._sleep = sleep
        self._t0 = 0.0
        self._result: Any = None
        self._steps = 0

    @property
    def result(self) -> Any:
        """The rules' result once the play is over, else None."""
        return self._result

    @property
    def steps(self) -> int:
        """Steps taken so far (each lets the parties the rules named act once)."""
        return self._steps

    def start(self) -> bool:
        """Enter :attr:`Phase.RUNNING` and start every seat; True if a failure ended the play
        (the rules say whether it does)."""
        self.phase = Phase.RUNNING
        self._t0 = self._clock()
        for k, seat in enumerate(self.seats):
            if seat is None:
                continue
            try:
                seat.start(self.state)
            except BaseException as exc:  # noqa: BLE001 - an agent's failure, recorded
                if isinstance(exc, KeyboardInterrupt) and user_interrupted():
                    raise  # the user's Ctrl-C stops the run; an agent's does not
                self._fail(k, exc, 0.0)
                if self.rules.is_over(self.state):
                    self._finish()
                    return True
        return False

    def run(self) -> Any:
        """Step until the play is over and return the result."""
        step = self.step
        while self._result is None:
            step()
        return self._result

    def step(self) -> Any:
        """Let the parties the rules name act once; the result if the play ended."""
        if self._result is not None:
            return self._result
        if self.phase is Phase.CREATED and self.start():
            return self._result
        rules, clock, t0 = self.rules, self._clock, self._t0
        state, _ = rules.tick(self.state, clock() - t0)
        parties = rules.to_act(state)
        if not parties:
            self.state = state
            if rules.is_over(state):
                return self._finish()
            return self._wait(state)
        if self._outside:  # only the parties the driver plays: the others act through act()
            parties = tuple(k for k in parties if k not in self._outside)
            if not parties:
                self.state = state
                return None
        self._steps += 1
        seats, apply = self.seats, rules.apply
        for k in parties:
            try:
                action = seats[k].act(state, k)
            except IllegalAction as exc:
                return self._refused(state, k, exc)
            except BaseException as exc:  # noqa: BLE001 - an agent's failure, recorded
                if isinstance(exc, KeyboardInterrupt) and user_interrupted():
                    raise
                return self._crashed(state, k, exc)
            try:
                state, _ = apply(state, k, action, clock() - t0)
            except IllegalAction as exc:
                state = self._invalid(state, k, exc)
            if rules.is_over(state):
                self.state = state
                return self._finish()
        self.state = state
        return None

    def act(self, party: int, action: Any) -> Any:
        """An action of ``party``, played from outside the driver (its seat is None), at
        the clock's now; :class:`IllegalAction` if the rules refuse it (nothing changes).
        The result if it ended the play, else None."""
        if self._result is not None:
            raise IllegalAction(party, action, "the play is over")
        if self.phase is Phase.CREATED and self.start():
            raise IllegalAction(party, action, "the play is over")
        rules, now = self.rules, self._clock() - self._t0
        state, _ = rules.tick(self.state, now)
        self.state = state
        self.state, _ = rules.apply(state, party, action, now)
        return self._finish() if rules.is_over(self.state) else None

    def _wait(self, state: Any) -> Any:
        """Nobody is asked but the play goes on: wait until the rules' next change."""
        due = self.rules.due(state)
        if due is None:  # nothing will ever change: the rules are stuck, end the play
            return self._finish()
        left = due - (self._clock() - self._t0)
        if left > 0:
            self._sleep(left)
        return None

    # What a failing agent does to the play (shared with the drivers' fast paths). Each
    # leaves the new state in ``self.state``; the result if the play ended, else None.
    def _refused(self, state: Any, k: int, exc: IllegalAction) -> Any:
        """An answer that is no action: too late is the deadline's, else a failure."""
        rules, clock, t0 = self.rules, self._clock, self._t0
        state, _ = rules.tick(state, clock() - t0)
        if not rules.is_over(state):
            failure = Failure(k, self.names[k], FailureKind.INVALID, exc.reason)
            state, _ = rules.fail(state, k, failure, clock() - t0)
        self.state = state
        return self._finish() if rules.is_over(state) else None

    def _crashed(self, state: Any, k: int, exc: BaseException) -> Any:
        """The agent raised: its failure (the rules say whether it ends the play)."""
        self.state = state
        self._fail(k, exc, self._clock() - self._t0)
        return self._finish() if self.rules.is_over(self.state) else None

    def _invalid(self, state: Any, k: int, exc: IllegalAction) -> Any:
        """The rules refused the action: the party's failure; the new state."""
        failure = Failure(k, self.names[k], FailureKind.INVALID, exc.reason)
        state, _ = self.rules.fail(state, k, failure, self._clock() - self._t0)
        return state

    def _fail(self, k: int, exc: BaseException, now: float) -> None:
        self.state, _ = self.rules.fail(self.state, k, failure_of(k, self.names[k], exc), now)

    def _finish(self) -> Any:
        """The play is over: read the result and tell every seat."""
        self.phase = Phase.ENDED
        result = self._result = self.rules.result(self.state)
        for seat in self.seats:
            if seat is None:
                continue
            try:
                seat.end(result)
            except BaseException as exc:  # noqa: BLE001 - a failing end hook changes nothing
                if isinstance(exc, KeyboardInterrupt) and user_interrupted():
                    raise
                continue
        return result
