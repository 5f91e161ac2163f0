"""Many sandboxed sessions at once: one request per sandbox carries all its pending calls.

A sandboxed call is a round trip between two processes, and each one waits for the other
process to be scheduled: that wait, not the work, is what a sandboxed tournament spends
its time on. :class:`Hub` runs many sessions of a tournament at once, each in a
greenlet of its own, and lets every sandbox serve many of them (up to ``per_box``
live sessions each, a fresh negotiator object per session as always). When a session
calls a sandboxed agent its greenlet is parked; once every live session waits, each
sandbox with calls to answer gets ONE frame holding all of them, answers them in order
(each on its own: its own errors, its own timing) and sends back one frame. Round trips
then grow with the longest session times the number of sandboxes, not with the number
of calls. The sandboxes work in parallel while the organiser plays the other sessions.
Sessions admitted at the start begin phased by the profile their first party plays
(:func:`_phase`): in a tournament rotating profiles each sandbox (one side) is then
called by its sessions at the same moments, so a request carries more calls (the
144-session bench: about 2,000 requests, not 3,200).

What each call keeps, exactly as one at a time (:func:`~accord.tournament.session.run_session`):

* JSON only, every answer's shape checked (an outcome is a list of scalars, a response
  one of its codes, an entry of the batch one of its forms);
* its time limit: the agent's process times each call and the organiser fails a call
  slower than the limit (a ``timeout``). The organiser also times each call itself: a
  batch still running at half its shortest budget is watched call by call (its host
  reports each call's end on a pipe of its own, :meth:`~accord.sandbox.Sandbox.progress`;
  a quick batch costs nothing more), and a call past its own budget with no call
  reported done since kills that agent's process and fails only that agent's sessions,
  as timeouts. So a hanging call is caught near its own limit (at most half the
  shortest budget later, when it is one of the first calls) whatever shares its batch:
  a ``start`` or ``end`` with its 30 s budget, or a hundred other calls. The trusted
  deadline of a batch stays the sum of its calls' budgets: a hostile agent can fake
  progress (and wake the organiser once per call of the batch at most) or lie about
  one call's time inside a batch, never past that deadline;
* its CPU time: counted per session in the agent's process (a session past its limit
  fails alone); the process's own CPU limit is moved to what the batch's sessions have
  left, and its hard limit bounds the process's life, as before;
* a crashed or hostile sandbox (a signal, a broken limit, a malformed frame) fails the
  sessions it was playing, recorded against it; a new sandbox serves its next ones;
* outcomes: a session's outcome does not depend on what runs beside it, so the same
  seeds give the same sessions as one at a time (tests compare them, session by session).

What a sandbox holds (its admission, :mod:`accord.tournament.admission`): an agent's
process holds several of its sessions at once (never two parties of one session: an
agent meeting itself gets two processes), and anything it was given stays there for the
agent's code to find (``gc.get_objects()``, module globals). So a session goes only to a
sandbox that was never given, over its whole life, a profile an opponent plays in it,
and whose sessions' opponents never played the profile the agent plays in it: a
sandbox holds one side of each scenario, and an agent that plays every side gets one
sandbox per side (started when first needed; a session whose sandbox is full waits).
At any moment a sandbox holds only profiles its agent was given as its own, never one
its opponents play: a hostile agent learns no opponent's utility from its process, now
or from an earlier session. It does see its other sessions on the same side (their
opponents' offers), as it would remember them one at a time; its memory limit is
shared by them. Sessions are admitted in :func:`~accord.tournament.admission.order_key`
order (each agent's sessions on one side together); the order changes no result.
Sessions whose deadline is in seconds run one at a time (their time is wall time).

    >>> Hub.usable(0.0)  # a deadline in seconds: one session at a time
    False
"""

from __future__ import annotations

import math
import pickle
import select
import time
from collections import deque
from collections.abc import Iterator, Sequence
from typing import Any

from greenlet import greenlet

from accord.core.negotiator import NegotiatorView, Response
from accord.core.outcomes import Outcome
from accord.core.protocols.driver import SlowCall
from accord.core.protocols.result import SessionResult
from accord.core.utilities import UtilityFunction
from accord.drivers.negotiator_host import LONG_OPS, REPORT_AFTER
from accord.sandbox import (
    AgentFailure,
    AgentProtocolError,
    AgentRaised,
    AgentTimeout,
    Sandbox,
    SandboxMode,
)
from accord.tournament.admission import Holds, ProfileIds, holds_of, order_key
from accord.tournament.config import AgentSpec
from accord.tournament.isolation import (
    IsolatedAgentError,
    SandboxedNegotiator,
    TournamentLimits,
    _acquire,
    _release,
    check_response,
    failure_reason,
)
from accord.tournament.session import (
    Game,
    RunContext,
    SessionRecord,
    Task,
    lost_session,
    prepare_session,
)
from accord.tournament.workers import Death

__all__ = [
    "PER_BOX",
    "Hub",
    "MultiplexedNegotiator",
    "lost_group",
    "run_group",
    "run_multiplexed",
]

PER_BOX = 256
"""Live sessions one sandbox serves at most. Its memory limit is shared by them: once
its process maps more than half of what its first session left, it takes no more
sessions than it holds then."""


class _Slot:
    """One sandbox of one agent in the hub: its live sessions and its pending calls."""

    __slots__ = (
        "box", "key", "live", "cap", "base", "queue", "inflight", "budget", "error", "retired",
        "done", "since", "due", "watch", "began",
    )  # fmt: skip

    def __init__(self, box: Sandbox, key: Any) -> None:
        self.box = box
        self.key = key
        self.live = 0
        self.cap = PER_BOX  # live sessions it may hold (lowered when its memory fills)
        self.base: float | None = None  # megabytes its process mapped at its first start
        self.queue: list[_Call] = []
        self.inflight: list[_Call] = []
        self.budget = 0.0
        self.error: BaseException | None = None  # what its later calls raise, once failed
        self.retired = False  # past half its CPU life: no new sessions
        self.done = 0  # calls of the batch in flight its host reported done
        self.since: float | None = None  # when the running call began, at the latest
        self.due = math.inf  # when to look at its progress next
        self.watch = False  # a slow batch: wake at each call it reports done
        self.began = 0.0  # when the batch's first call began, at the latest

    @property
    def usable(self) -> bool:
        return self.error is None and not self.retired and self.box.alive

    @property
    def holds(self) -> Holds:
        """What its sandbox was given over its life (it travels with the sandbox)."""
        return holds_of(self.box)


_Call = tuple[greenlet, tuple[Any, ...], float]
"""A call in a sandbox's queue: its session, its wire form and its budget."""


class MultiplexedNegotiator(SandboxedNegotiator):
    """A sandboxed agent's stand-in whose calls go through a :class:`Hub` (batched with
    other sessions' calls to the same sandbox); it times its own calls."""

    def __init__(
        self,
        hub: Hub,
        spec: AgentSpec,
        limits: TournamentLimits,
        utility: UtilityFunction,
        memory: Any,
        mode: SandboxMode = SandboxMode.OS,
    ) -> None:
        super().__init__(spec, limits, utility, memory, mode)
        self.hub = hub
        self._fast = limits.call_timeout  # an answer this quick needs no more checks
        self._budgets = {op: self._timeout(op) for op in ("start", "propose", "respond", "end")}
        self._budgets["counter"] = 2 * self._budgets["respond"]  # and its counter-offer
        self.slot: _Slot | None = None

    def on_start(self, view: NegotiatorView) -> None:
        mapped = self._call("start", view, self._setup(view, self.hub.pickled(self._utility)))
        slot = self.slot
        if slot is not None and isinstance(mapped, int | float):
            if slot.base is None:  # what the process maps with its first session
                slot.base = mapped
            if mapped > (slot.base + slot.box.limits.memory_mb) / 2:  # half of the rest used
                slot.cap = min(slot.cap, max(1, slot.live))

    # respond as SandboxedNegotiator's, in one step (propose is its own)
    def respond(self, view: NegotiatorView, offer: Outcome) -> Response:
        entry = self._entry("counter" if self.counters else "respond", view, offer)
        answer = check_response(self._value("respond", entry))
        if answer is _REJECT and len(entry) == 4:
            self._pending = (view.step, entry[3])  # the counter-offer's entry
        return answer

    def _turn(self, view: NegotiatorView) -> Any:
        return view.step

    def _counter_offer(self, follow: Any) -> Any:
        return self._value("propose", follow)  # its entry came with the REJECT's

    def _stale(self, pending: tuple[Any, Any]) -> None:
        pass  # already read with the REJECT: nothing is left in the channel

    def on_end(self, view: NegotiatorView, result: SessionResult) -> None:
        slot = self.slot
        if self._dead is None and slot is not None and slot.usable:
            try:
                used = self._call("end", view, self.hub.pickled(result))
            except (IsolatedAgentError, SlowCall):
                return
            # no new sessions for a process that used half its CPU life (ended when idle)
            if isinstance(used, int | float) and used > slot.box.limits.cpu_seconds / 2:
                slot.retired = True

    def close(self) -> None:
        """Leave the hub's sandbox (the hub keeps it for other sessions; idempotent)."""
        slot, self.slot = self.slot, None
        self._pending = None
        if slot is not None:
            self.hub.leave(slot)

    def _entry(self, op: str, view: NegotiatorView, arg: Any) -> list[Any]:
        """Send one call through the hub; its raw entry (see ``OfferNegotiatorHost._batch``)."""
        if self._dead is not None:
            raise IsolatedAgentError(self._dead)
        offers = view.offers
        n = len(offers)
        new = offers[self._sent : n] if n > self._sent else ()
        self._sent = n
        slot = self.slot
        assert slot is not None, "the hub gives every session's agent a sandbox"
        try:
            wire = (op, self._sid, view.state(), new, arg)
            return self.hub.call(slot, wire, self._budgets[op])
        except SlowCall:
            self._dead = "the process was killed for a timeout"
            raise
        except IsolatedAgentError as exc:
            self._dead = str(exc)
            raise

    def _call(self, op: str, view: NegotiatorView, arg: Any = None) -> Any:
        return self._value(op, self._entry(op, view, arg))

    def _value(self, op: str, entry: Any) -> Any:
        """The answer in ``entry``, its time and its errors checked (a slow call is a
        timeout, an exception the agent raised its failure)."""
        if type(entry) is list and 3 <= len(entry) <= 4 and entry[1] == 0:  # the usual
            seconds = entry[0]
            if type(seconds) is float and 0.0 <= seconds <= self._fast:
                return entry[2]
        if not (
            isinstance(entry, list)
            and len(entry) >= 2
            and isinstance(entry[0], int | float)
            and not isinstance(entry[0], bool)
            and math.isfinite(entry[0])
            and entry[1] in (0, 1, 2)
        ):
            self._dead = f"{op}() answered {entry!r:.80}, not an entry of a batch"
            raise IsolatedAgentError(self._dead)
        seconds, kind = entry[0], entry[1]
        budget = self._timeout(op)  # the limit and its grace, as one call at a time has
        limit = self.limits.call_timeout if op in ("propose", "respond") else budget
        if kind == 1 and len(entry) == 5 and seconds <= budget:  # it raised in time
            raise IsolatedAgentError(str(entry[3])[:2000])
        if kind == 2 and seconds <= budget:
            self._dead = (
                f"the agent process exceeded its CPU-time limit "
                f"(CPU-time limit of {self.limits.cpu_seconds:g} s exceeded in this session)"
            )
            raise IsolatedAgentError(self._dead)
        if seconds > limit:
            raise SlowCall(f"{op} took {seconds:.3f} s; the limit is {limit:.3f} s")
        if kind == 0 and len(entry) in (3, 4):
            return entry[2]
        self._dead = f"{op}() answered {entry!r:.80}, not an entry of a batch"
        raise IsolatedAgentError(self._dead)


class Hub:
    """Runs many sessions at once, batching each sandbox's calls (module docstring).

    Args:
        ctx: the tournament's run context (agents, limits, which are sandboxed).
        per_box: live sessions one sandbox serves at most.
    """

    def __init__(self, ctx: RunContext, per_box: int = PER_BOX) -> None:
        self.ctx = ctx
        self.per_box = max(1, per_box)
        self.slots: dict[Any, list[_Slot]] = {}
        self.round_trips = 0
        self.calls = 0
        self.watched = 0  # batches that ran long enough to be watched call by call
        self._main: greenlet | None = None
        self._closed = False
        self._deferred: list[list[tuple[greenlet, Game]]] = []  # phases 1, 2... (_phase)
        self._leaders: dict[greenlet, int] = {}  # phase 0's sessions: calls they made
        self._lead = 0  # the most calls one of them made
        self._phases = 0  # how many phases were deferred at the start
        self._pickles: dict[int, tuple[Any, bytes]] = {}
        self.ids = ProfileIds(ctx.scenarios)

    def pickled(self, obj: Any) -> bytes:
        """``obj`` pickled, once for all the calls that send it (a profile's utility to
        each of its sessions, a result to each party); the last 256 are kept."""
        key = id(obj)
        hit = self._pickles.get(key)
        if hit is not None and hit[0] is obj:
            return hit[1]
        data = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
        if len(self._pickles) >= 256:
            del self._pickles[next(iter(self._pickles))]
        self._pickles[key] = (obj, data)
        return data

    @staticmethod
    def usable(seconds: float | None) -> bool:
        """Whether sessions with a deadline of ``seconds`` (None: rounds only) may run
        at once: only when their time is not wall time."""
        return seconds is None

    # -- the sessions' side (in their greenlets) -------------------------------------------
    def call(self, slot: _Slot, wire: tuple[Any, ...], budget: float) -> list[Any]:
        """Queue a call (``(op, sid, state, new offers, arg)``) to ``slot``'s sandbox
        and park this session until its entry comes back."""
        if slot.error is not None:
            raise _again(slot.error, wire[0])
        if self._closed:
            raise _Abandoned
        assert self._main is not None
        g = greenlet.getcurrent()
        if self._deferred and g in self._leaders:
            n = self._leaders[g] = self._leaders[g] + 1
            self._lead = max(self._lead, n)
        slot.queue.append((g, wire, budget))
        entry: list[Any] = self._main.switch()
        return entry

    def leave(self, slot: _Slot) -> None:
        """A session is over with ``slot``."""
        slot.live -= 1
        if slot.live == 0 and not slot.usable:
            self._drop(slot)

    # -- the organiser's loop ---------------------------------------------------------------
    def run(self, tasks: Sequence[Task]) -> Iterator[list[SessionRecord]]:
        """Run ``tasks``, yielding the records of finished sessions in batches."""
        self._main = greenlet.getcurrent()
        todo = deque(sorted(tasks, key=lambda t: order_key(t.spec, self.ids)))
        done: list[SessionRecord] = []
        live: set[greenlet] = set()
        first = True  # the sessions admitted at once at the start are phased (_phase)
        try:
            while todo or live:
                while todo:
                    plan = self._plan(todo[0])
                    if plan is None:
                        break
                    self._begin(todo.popleft(), plan, done, live, first)
                if first:
                    self._phases, first = len(self._deferred), False
                if done:
                    yield done
                    done = []
                if not live:
                    continue
                self._next_phase(done, live)
                self._flush(done, live)
                self._wait(done, live)
            if done:
                yield done
        finally:
            self._closed = True  # an error or Ctrl-C: the parked sessions end at once
            for group in self._deferred:  # never started: nothing to end but their games
                for g, game in group:
                    live.discard(g)
                    game.close()
            self._deferred = []
            for g in list(live):
                while not g.dead:
                    g.throw(_Abandoned())
            for slots in self.slots.values():
                for slot in list(slots):  # (_drop removes it from slots)
                    self._drop(slot)
            self.slots.clear()

    def _sandboxed(self, task: Task) -> list[tuple[AgentSpec, str, frozenset[str]]]:
        """Each sandboxed party of ``task``: its agent, its profile and its opponents'."""
        agents, sandboxed = self.ctx.agents, self.ctx.sandboxed
        sides = self.ids.sides(task.spec)
        return [(agents[n], *sides[k]) for k, n in enumerate(task.spec.agents) if n in sandboxed]

    def _key(self, spec: AgentSpec) -> Any:
        return (spec.name, spec.type, self.ctx.sandboxed[spec.name], self.ctx.limits)

    def _plan(self, task: Task) -> list[_Slot | None] | None:
        """A sandbox for each sandboxed party of ``task`` (None: a new one), or None if
        the session must wait: a sandbox it fits (:mod:`~accord.tournament.admission`)
        is full. A new sandbox starts only where none of its agent's fits."""
        plan: list[_Slot | None] = []
        for spec, own, others in self._sandboxed(task):
            fitting = [
                s
                for s in self.slots.get(self._key(spec), ())
                if s.usable and s not in plan and s.holds.fits(own, others)
            ]
            fitting.sort(key=lambda s: -s.holds.rank(own, others))  # given it before: first
            free = next((s for s in fitting if s.live < min(self.per_box, s.cap)), None)
            if free is None and fitting:
                return None
            plan.append(free)
        return plan

    def _slot(self, spec: AgentSpec, own: str, others: frozenset[str], data_dir: Any) -> _Slot:
        """A new slot for ``spec``: an idle sandbox of this process it fits, or a new one
        (an agent's data directory is the same in all its sessions)."""
        key = self._key(spec)
        box = _acquire(
            spec, key[2], self.ctx.limits, data_dir, fits=lambda b: holds_of(b).rank(own, others)
        )
        slot = _Slot(box, key)
        self.slots.setdefault(key, []).append(slot)
        return slot

    def _all(self) -> list[_Slot]:
        return [s for slots in self.slots.values() for s in slots]

    def _begin(
        self,
        task: Task,
        plan: list[_Slot | None],
        done: list[SessionRecord],
        live: set[greenlet],
        phased: bool = False,
    ) -> None:
        hub = self

        def make(
            spec: AgentSpec,
            limits: TournamentLimits,
            utility: UtilityFunction,
            memory: Any,
            mode: SandboxMode,
        ) -> SandboxedNegotiator:
            return MultiplexedNegotiator(hub, spec, limits, utility, memory, mode)

        game = prepare_session(task, self.ctx, make, time_limit=False)
        if isinstance(game, SessionRecord):
            done.append(game)
            return
        sides = iter(self._sandboxed(task))
        slots = iter(plan)
        for neg in game.negotiators:
            if not isinstance(neg, MultiplexedNegotiator):
                continue
            _, own, others = next(sides)
            slot = next(slots)
            try:
                if slot is None:
                    slot = self._slot(neg.spec, own, others, neg.data_dir)
            except AgentFailure as exc:  # could not start a sandbox: that agent's failure
                neg._dead = exc.reason
                continue
            slot.holds.add(own, others)  # before it is given anything of the session
            slot.live += 1
            neg.slot = slot
        g = greenlet(_play)
        live.add(g)
        phase = _phase(task) if phased else 0
        if phase:
            self._deferred.extend([] for _ in range(phase - len(self._deferred)))
            self._deferred[phase - 1].append((g, game))
            return
        if phased:
            self._leaders[g] = 0
        self._resume(g, done, live, game)

    def _next_phase(self, done: list[SessionRecord], live: set[greenlet]) -> None:
        """Start the phased sessions (:func:`_phase`) whose turn has come: phase ``r``
        once a session of phase 0 has made its call ``r`` (or no call waits at all)."""
        while self._deferred and (
            self._lead > self._phases - len(self._deferred) + 1
            or not any(s.inflight or s.queue for s in self._all())
        ):
            for g, game in self._deferred.pop(0):
                self._resume(g, done, live, game)
        if not self._deferred:
            self._leaders.clear()

    def _resume(
        self,
        g: greenlet,
        done: list[SessionRecord],
        live: set[greenlet],
        value: Any = None,
        error: BaseException | None = None,
    ) -> None:
        out = g.throw(error) if error is not None else g.switch(value)
        if g.dead:
            live.discard(g)
            done.append(out)

    def _flush(self, done: list[SessionRecord], live: set[greenlet]) -> None:
        """Send every idle sandbox with calls waiting one frame holding all of them."""
        for slot in self._all():
            if not slot.queue or slot.inflight:
                continue
            calls, slot.queue = slot.queue, []
            slot.inflight = calls
            slot.budget = sum([c[2] for c in calls])
            self.round_trips += 1
            self.calls += len(calls)
            try:
                slot.box.submit("batch", [c[1] for c in calls], slot.budget, trusted_pickle=True)
            except AgentFailure as exc:
                self._broken(slot, exc, done, live)
                continue
            slot.done, slot.watch = 0, False
            self._started(slot, time.monotonic())

    @staticmethod
    def _started(slot: _Slot, now: float) -> None:
        """The batch's first call begins ``now`` (once its process is ready): look at
        it again at half the batch's shortest budget (most batches are answered first)."""
        slot.since = now if slot.box.ready else None
        slot.began = now
        shortest = min([c[2] for c in slot.inflight])
        slot.due = math.inf if slot.since is None else now + shortest / 2

    def _check(self, slot: _Slot, now: float) -> AgentTimeout | None:
        """Look at ``slot``'s progress (from now on at each call it reports done): the
        timeout to kill it for if the call it runs is past its own budget with no call
        reported done since, else None (and when to look again)."""
        if not slot.watch:
            slot.watch = True
            self.watched += 1
        done = slot.box.progress()
        if done != slot.done:
            slot.done, slot.since = done, now  # the next call began by now
        calls = slot.inflight
        if slot.since is None or done >= len(calls):  # the answer's deadline bounds it
            slot.due = math.inf
            return None
        # the host reports lazily in a batch's first moment (REPORT_AFTER): a later timed
        # call may have begun unreported then, and its budget counts from then on
        quiet = 0.0
        for call in calls[done:]:
            if call[1][0] in LONG_OPS:  # reported before it begins
                break
            quiet = max(quiet, call[2])
        slot.due = max(slot.since + calls[done][2], slot.began + REPORT_AFTER + quiet)
        if now < slot.due:
            return None
        return AgentTimeout(
            f"call {done + 1} of its batch of {len(calls)} ({calls[done][1][0]}) ran past "
            f"its {calls[done][2]:.3f} s"
        )

    def _wait(self, done: list[SessionRecord], live: set[greenlet]) -> None:
        """Wait for answers (or deadlines) and resume the sessions they are for."""
        busy = [s for s in self._all() if s.inflight]
        if not busy:
            return
        by_fd = {s.box.answer_fd: s for s in busy}
        poller = select.poll()
        for fd in by_fd:
            poller.register(fd, select.POLLIN)
        for s in busy:  # a slow batch: wake at each call it reports done
            if s.watch and s.done < len(s.inflight) and s.box.progress_fd is not None:
                poller.register(s.box.progress_fd, select.POLLIN)
        left = min(min(s.box.deadline, s.due) for s in busy) - time.monotonic()
        ready = {fd for fd, _ in poller.poll(max(0, math.ceil(left * 1000)))}
        now = time.monotonic()
        for fd, slot in by_fd.items():
            if fd not in ready and now <= slot.box.deadline:
                if now >= slot.due or (slot.watch and slot.box.progress_fd in ready):
                    late = self._check(slot, now)
                    if late is not None:
                        slot.box.abandon(late)
                        self._broken(slot, late, done, live)
                continue
            calls = slot.inflight
            try:
                arrived, entries = slot.box.poll_answer()
            except AgentRaised as exc:  # the host itself failed on the batch: each call's
                entries = [[0.0, 1, exc.type_name, exc.reason, ""]] * len(calls)
                arrived = True
            except AgentFailure as exc:
                self._broken(slot, exc, done, live)
                continue
            if not arrived:
                if slot.since is None and slot.box.ready:  # it has just started
                    self._started(slot, now)
                continue
            if not (isinstance(entries, list) and len(entries) == len(calls)):
                bad = AgentProtocolError(
                    f"the agent answered {len(calls)} calls with {entries!r:.80}; killed"
                )
                slot.box.abandon(bad)
                self._broken(slot, bad, done, live)
                continue
            slot.inflight = []
            for (g, *_), entry in zip(calls, entries, strict=True):
                self._resume(g, done, live, entry)

    def _broken(
        self, slot: _Slot, exc: BaseException, done: list[SessionRecord], live: set[greenlet]
    ) -> None:
        """``slot``'s process failed: every session waiting on it fails (a timeout if it
        ran out of time); its later calls fail the same way; new sessions get a new one."""
        sent = len(slot.inflight)
        calls, slot.inflight, slot.queue = slot.inflight + slot.queue, [], []
        if isinstance(exc, AgentTimeout):
            limit = self.ctx.limits.call_timeout
            what = (
                exc.reason
                if exc.reason.startswith("call ")
                else f"its batch of {sent} calls took more than their {slot.budget:.3f} s"
            )
            slot.error = SlowCall(
                f"{what} (the limit is {limit:.3f} s per call); the process was killed"
            )
        elif isinstance(exc, AgentFailure):
            slot.error = IsolatedAgentError(failure_reason(exc, self.ctx.limits))
        else:
            slot.error = exc
        for g, wire, _ in calls:
            self._resume(g, done, live, error=_again(slot.error, wire[0]))

    def _drop(self, slot: _Slot) -> None:
        slots = self.slots.get(slot.key)
        if slots is not None and slot in slots:
            slots.remove(slot)
        if slot.usable and not slot.inflight and not slot.queue:
            _release(slot.box)
        else:
            slot.box.close()


_REJECT = Response.REJECT


class _Abandoned(BaseException):
    """Thrown into a parked session when the run stops (an error, or Ctrl-C)."""


def _phase(task: Task) -> int:
    """How many flushes a session admitted at the start waits before it begins: the
    profile its first party plays (``0`` to ``n - 1``). Its calls go to its parties in
    turn, and in a tournament rotating profiles that party plays the next profile at
    each call; so phased this way, every session calls the sandboxes of one side at once
    (each sandbox holds one side, :mod:`~accord.tournament.admission`), and each
    sandbox gets all its sessions' calls in one request, not a third of them in each of
    three. Only the order of calls across sessions changes, never a result."""
    profiles = task.spec.profiles
    return profiles[0] % len(profiles) if profiles else 0


def _play(game: Game) -> SessionRecord:
    try:
        result = game.session.run()
    finally:
        game.close()
    return game.record(result)


def _again(error: BaseException, op: str) -> BaseException:
    """A fresh exception like ``error`` for a call of ``op`` (one per session)."""
    op = "respond" if op == "counter" else op
    return type(error)(f"{op} did not answer: {error}")


def run_group(tasks: list[Task], ctx: RunContext) -> list[SessionRecord]:
    """A worker process's share: ``tasks`` run at once (see :class:`Hub`)."""
    return [r for batch in Hub(ctx).run(tasks) for r in batch]


def lost_group(tasks: list[Task], death: Death, ctx: RunContext) -> list[SessionRecord]:
    """The records of a group whose worker process died: a failure of nobody each (the
    worker runs only trusted code; its agents run in their sandboxes)."""
    nobody = Death(-1, None, death.message)
    return [lost_session(task, nobody, ctx) for task in tasks]


def run_multiplexed(
    tasks: Sequence[Task], ctx: RunContext, per_box: int = PER_BOX
) -> Iterator[list[SessionRecord]]:
    """Run ``tasks`` many at once (see :class:`Hub`), yielding records as they finish."""
    return Hub(ctx, per_box).run(tasks)
