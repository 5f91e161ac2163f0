"""Sandboxed agents in negotiation tournaments (``--sandbox os|process``).

:class:`SandboxedNegotiator` stands in for the agent inside the session; the agent lives
in an :mod:`accord.sandbox` process, built there by
:class:`~accord.drivers.negotiator_host.OfferNegotiatorHost` (trusted code that runs
beside it; the agent driver's seats use the same host), started by
:func:`~accord.drivers.seats.start_entrant` with the interface :data:`OFFERS`. One sandbox serves one agent in one worker process and lives
across that worker's sessions (a fresh negotiator object per session, as in-process),
so the cost of starting it is paid once per agent per worker; one that failed is
replaced for the next session. Each call sends the view's new state (the organiser's
pickle: it trusts itself); each answer comes back as JSON and is checked before the
session sees it (an outcome is a list of scalars, a response one of its codes).

Limits: CPU seconds per session (the soft ``RLIMIT_CPU`` moved on at every session's
start; the hard one bounds the process's life, after which it is replaced), memory
(address space beyond the interpreter's own, see :data:`BASE_MB`), the call timeout;
a failure (raised, crashed, hung, broke the channel) ends only that agent's session, as
a recorded failure.

    >>> from accord.tournament.config import AgentSpec
    >>> plan({"B": AgentSpec("B", "boulware")}, "auto")
    {}
    >>> plan({"B": AgentSpec("B", "boulware")}, "process")
    {'B': <SandboxMode.PROCESS: 'process'>}
"""

from __future__ import annotations

import atexit
import contextlib
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from accord.core.errors import AccordError, ConfigError
from accord.core.negotiator import Negotiator, NegotiatorView, Response
from accord.core.outcomes import Outcome
from accord.core.protocols.result import SessionResult
from accord.core.utilities import UtilityFunction
from accord.drivers.seats import BASE_MB, Interface, start_entrant
from accord.sandbox import (
    PROCESS_GIVES_UP,
    AgentCrashed,
    AgentFailure,
    AgentRaised,
    AgentTimeout,
    Limits,
    Sandbox,
    SandboxMode,
    agent_code,
    require_mode,
)
from accord.tournament.admission import holds_of
from accord.tournament.config import AgentSpec

__all__ = [
    "BASE_MB",
    "OFFERS",
    "SANDBOX_CHOICES",
    "IsolatedAgentError",
    "SandboxedNegotiator",
    "Started",
    "TournamentLimits",
    "check_outcome",
    "check_response",
    "close_sandboxes",
    "describe_plan",
    "failure_reason",
    "plan",
    "preflight",
]

SANDBOX_CHOICES = ("auto", "os", "process", "none")
_GRACE = 0.25  # seconds past the time limit before a call is given up
_STARTUP = 30.0  # seconds for on_start/on_end (not timed calls)
_LIVES = 50  # a sandbox's process may use this many sessions' CPU before it is replaced
HOST = "accord.drivers.negotiator_host:OfferNegotiatorHost"
_PRELOAD = ("accord.tournament.agents",)  # the built-in agents, imported once per zygote


class IsolatedAgentError(AccordError):
    """The sandboxed agent raised, crashed or broke a limit (the message says which)."""


@dataclass(frozen=True)
class TournamentLimits:
    """Per-agent limits of a sandboxed agent in a tournament.

    Args:
        cpu_seconds: CPU time the agent may use in one session.
        memory_mb: megabytes of address space beyond the interpreter's (:data:`BASE_MB`).
        call_timeout: seconds one call may take (the session's time limit).
    """

    cpu_seconds: float = 60.0
    memory_mb: int = 2048
    call_timeout: float = 10.0

    def sandbox(self) -> Limits:
        """The :class:`~accord.sandbox.Limits` of the agent's process."""
        return Limits(
            cpu_seconds=self.cpu_seconds * _LIVES,
            memory_mb=BASE_MB + self.memory_mb,
            call_timeout=self.call_timeout + _GRACE,
            startup_timeout=max(_STARTUP, self.call_timeout),
        )


def plan(agents: Mapping[str, AgentSpec], choice: str) -> dict[str, SandboxMode]:
    """Which agents run sandboxed, and how: ``auto`` sandboxes (``os``) every agent whose
    code lies outside the installed packages and Accord (a submitted agent, named by
    path); ``os``/``process`` sandbox every agent; ``none`` none. Raises
    :class:`~accord.sandbox.SandboxUnavailable` (one line) where ``os`` cannot run."""
    if choice not in SANDBOX_CHOICES:
        raise ConfigError(f"sandbox must be one of {SANDBOX_CHOICES}, got {choice!r}")
    if choice == "none":
        return {}
    if choice == "auto":
        chosen = {n: SandboxMode.OS for n, a in agents.items() if _submitted(a.type)}
    else:
        chosen = dict.fromkeys(agents, SandboxMode.parse(choice))
    if chosen:
        require_mode(next(iter(chosen.values())))
    return chosen


def describe_plan(sandboxed: Mapping[str, SandboxMode]) -> list[str]:
    """Notes for the output: which agents run where, and what ``process`` gives up."""
    if not sandboxed:
        return []
    modes = sorted({m.value for m in sandboxed.values()})
    names = ", ".join(sorted(sandboxed))
    notes = [f"sandbox {'/'.join(modes)} for {names}; other agents run in-process"]
    if any(m.weaker for m in sandboxed.values()):
        notes.append(PROCESS_GIVES_UP)
    return notes


def _submitted(agent: str) -> bool:
    """True if the agent's code lies outside the installed packages and Accord."""
    try:
        return bool(agent_code(agent).mounts)
    except ConfigError as exc:  # a missing package: say which extra provides it, if one
        from accord.agents.registry import install_hint

        raise ConfigError(f"{exc}{install_hint(agent)}") from None


# -- the organiser's side ----------------------------------------------------------------
_idle: dict[tuple[str, str, SandboxMode, TournamentLimits, str | None], list[Sandbox]] = {}
_busy: set[Sandbox] = set()
_sids = iter(range(1, 1 << 62))


def _acquire(
    spec: AgentSpec,
    mode: SandboxMode,
    limits: TournamentLimits,
    data_dir: Any = None,
    fits: Callable[[Sandbox], int] | None = None,
) -> Sandbox:
    """An idle sandbox of ``spec`` in this worker (started if none): one per party, so
    an agent that meets itself runs in two processes that cannot see each other.
    ``data_dir``: its learning-data directory (a learning tournament's), mounted in its
    sandbox only (:mod:`accord.sandbox.datadir`). ``fits``: how well an idle one fits
    (0: it may not be taken; the highest is taken; :mod:`accord.tournament.admission`)."""
    key = (spec.name, spec.type, mode, limits, None if data_dir is None else str(data_dir))
    idle = _idle.setdefault(key, [])
    for box in [b for b in idle if not b.alive]:
        idle.remove(box)
        box.close()
    scores = [1 if fits is None else fits(b) for b in idle]
    if scores and max(scores) > 0:
        box = idle.pop(len(scores) - 1 - scores[::-1].index(max(scores)))  # the last best
        _busy.add(box)
        return box
    box = start_entrant(
        OFFERS,
        spec.type,
        limits=limits.sandbox(),
        mode=mode,
        data_dir=None if data_dir is None else str(data_dir),
        extra={"key": list(key[:3])},
        fork=True,  # from a zygote: a fraction of the start-up, the same isolation
        preload=_PRELOAD,
    )
    box.key = key  # type: ignore[attr-defined]
    _busy.add(box)
    return box


def _release(box: Sandbox) -> None:
    """Give a sandbox back for this worker's next session (closed if it failed)."""
    _busy.discard(box)
    if box.alive:
        _idle.setdefault(box.key, []).append(box)  # type: ignore[attr-defined]
    else:
        box.close()


def preflight(
    agents: Sequence[AgentSpec],
    sandboxed: Mapping[str, SandboxMode],
    limits: TournamentLimits,
    data_dirs: Mapping[str, Any] | None = None,
) -> dict[str, float]:
    """Start every sandboxed agent once (kept for this process's sessions) and check, in
    its sandbox, that it can be built with its parameters: a :class:`ConfigError` naming
    the agent before any session runs if not. Other failures are left to its sessions,
    which record them. ``data_dirs``: each agent's learning-data directory (a learning
    tournament's; its sessions' sandboxes get it too). Returns each agent's start-up
    time in seconds. (:class:`Started` does the same in two steps.)"""
    return Started(agents, sandboxed, limits, data_dirs).check()


class Started:
    """Every sandboxed agent started once, without waiting (their start-ups overlap each
    other and the organiser's work); :meth:`check` then waits and checks them, as
    :func:`preflight` does, and :meth:`more` starts further sandboxes of them."""

    def __init__(
        self,
        agents: Sequence[AgentSpec],
        sandboxed: Mapping[str, SandboxMode],
        limits: TournamentLimits,
        data_dirs: Mapping[str, Any] | None = None,
    ) -> None:
        self.sandboxed, self.limits, self.dirs = sandboxed, limits, data_dirs or {}
        self.agents = {spec.name: spec for spec in agents if spec.name in sandboxed}
        self.boxes = [(spec, self._start(spec)) for spec in self.agents.values()]

    def _start(self, spec: AgentSpec) -> Sandbox:
        return _acquire(spec, self.sandboxed[spec.name], self.limits, self.dirs.get(spec.name))

    def more(self, counts: Mapping[str, int]) -> None:
        """Start ``counts[name]`` more sandboxes of each agent, for this process's sessions
        (idle until a session takes one)."""
        for name, n in counts.items():
            spec = self.agents.get(name)
            for _ in range(n if spec is not None else 0):
                _release(self._start(spec))  # type: ignore[arg-type]

    def check(self) -> dict[str, float]:
        """Wait for each agent's first sandbox and check it can build the agent (see
        :func:`preflight`); each one's start-up time in seconds."""
        started: dict[str, float] = {}
        try:
            for spec, box in self.boxes:
                try:
                    box.call("check", {"sid": 0, "spec": spec}, trusted_pickle=True)
                except AgentFailure as exc:
                    if isinstance(exc, AgentRaised) and exc.type_name in (
                        "ConfigError",
                        "CapabilityError",
                    ):
                        raise ConfigError(f"agent {spec.name!r}: {exc.reason}") from None
                    if isinstance(exc, AgentCrashed) and ": ConfigError: " in exc.reason:
                        raise ConfigError(
                            f"agent {spec.name!r}: {exc.reason.split(': ConfigError: ', 1)[1]}"
                        ) from None
                if box.startup_seconds is not None:
                    started[spec.name] = box.startup_seconds
        finally:
            self.release()
        return started

    def release(self) -> None:
        """Give the first sandboxes back to this process's pool (idempotent)."""
        boxes, self.boxes = self.boxes, []
        for _, box in boxes:
            _release(box)


def close_sandboxes() -> None:
    """End every sandbox of this process (the end of a run, or the worker's exit): all
    are told first, then each is waited for, so their exits overlap."""
    boxes = [b for idle in _idle.values() for b in idle] + list(_busy)
    _idle.clear()
    _busy.clear()
    for box in boxes:
        box.shut()
    for box in boxes:
        box.close()
    from accord.sandbox.zygote import close_zygotes

    close_zygotes(HOST)  # the tournament's own (a league's zygotes may serve its games)


atexit.register(close_sandboxes)


class SandboxedNegotiator(Negotiator):
    """Forwards every call of one session to the agent ``spec`` in its sandbox."""

    def __init__(
        self,
        spec: AgentSpec,
        limits: TournamentLimits,
        utility: UtilityFunction,
        memory: Any,
        mode: SandboxMode = SandboxMode.OS,
    ) -> None:
        super().__init__(spec.name)
        self.spec, self.limits, self.mode = spec, limits, mode
        self._utility, self._memory = utility, memory
        self._box: Sandbox | None = None
        self._sid = next(_sids)
        self._sent = 0
        self._dead: str | None = None
        self.counters = False
        """True where a REJECT is followed at once by ``propose`` on the same view (the
        offer protocols' counter-offer, set by the session): the host then proposes
        right after answering, and ``propose`` only reads that answer (one request, not
        two; each answer keeps its own deadline and checks)."""
        self._pending: tuple[Any, Any] | None = None  # (turn, counter-offer to read)
        self.sides: tuple[str, frozenset[str]] | None = None
        """Its profile in the session and its opponents' (set by the session): its
        sandbox is then one that was never given an opponent's profile, and it records
        what it gives (:mod:`accord.tournament.admission`), so a sandbox reused later,
        one session at a time or many, never holds two sides of a scenario."""

    @property
    def data_dir(self) -> Any:
        """Its learning-data directory in this session (a learning tournament's), or None."""
        return getattr(self._memory, "data_dir", None)

    def _setup(self, view: NegotiatorView, utility: Any) -> dict[str, Any]:
        """What the host builds the session's negotiator and its view from."""
        return {
            "spec": self.spec,
            "utility": utility,
            "memory": self._memory,
            "index": view.index,
            "names": view.names,
            "rng": view.seed,  # its generator is made in the sandbox, if used
            "deadline": view.deadline,
            "cpu": self.limits.cpu_seconds,
        }

    def on_start(self, view: NegotiatorView) -> None:
        extra = self._setup(view, self._utility)
        sides = self.sides
        fits = None if sides is None else (lambda b: holds_of(b).rank(*sides))
        try:
            self._box = _acquire(self.spec, self.mode, self.limits, self.data_dir, fits)
        except AgentFailure as exc:
            self._dead = exc.reason
            raise IsolatedAgentError(exc.reason) from None
        if sides is not None:
            holds_of(self._box).add(*sides)  # before it is given anything of the session
        self._call("start", view, extra)

    def propose(self, view: NegotiatorView) -> Outcome | None:
        pending, self._pending = self._pending, None
        if pending is not None and pending[0] == self._turn(view):  # a counter-offer
            out = self._counter_offer(pending[1])
        else:
            if pending is not None:
                self._stale(pending)
            out = self._call("propose", view)
        if type(out) is list and _SCALARS.issuperset(map(type, out)):  # the usual: inline
            return tuple(out)
        try:
            outcome: Outcome | None = OFFERS.check("propose", out)
        except IsolatedAgentError as exc:
            self._dead = str(exc)
            raise
        return outcome

    def respond(self, view: NegotiatorView, offer: Outcome) -> Response:
        out, follow = self._respond(view, offer)
        answer: Response = OFFERS.check("respond", out)
        if answer is Response.REJECT and follow is not None:
            self._pending = (self._turn(view), follow)
        return answer

    # how the calls travel: one at a time here, batched by the hub in a subclass ----------
    def _turn(self, view: NegotiatorView) -> Any:
        """What tells a turn from the next: a counter-offer is read only in its own."""
        return (view.state(), len(view.offers))

    def _respond(self, view: NegotiatorView, offer: Outcome) -> tuple[Any, Any]:
        """``respond``'s raw answer, and what ``propose`` then reads as the counter-offer
        (None: none follows)."""
        extra: dict[str, Any] = {"offer": offer}
        if self.counters:
            extra["counter"] = True
        out = self._call("respond", view, extra)
        if out is None:  # a timed-out call: the session records the timeout
            return int(Response.REJECT), None
        return out, (True if self.counters else None)

    def _counter_offer(self, follow: Any) -> Any:
        """The raw counter-offer that followed a REJECT (``follow``: see ``_respond``)."""
        return self._send("propose", None, self._timeout("propose"), receive=True)

    def _stale(self, pending: tuple[Any, Any]) -> None:
        """A counter-offer the session did not ask for: dropped before the next call."""
        self._pending = pending  # _call reads it first

    def on_end(self, view: NegotiatorView, result: SessionResult) -> None:
        if self._dead is None and self._box is not None and self._box.alive:
            try:
                used = self._call("end", view, {"result": result})
            except IsolatedAgentError:
                return
            # replace the process before its lifetime CPU limit can end a session
            if isinstance(used, int | float) and used > self._box.limits.cpu_seconds / 2:
                self._box.close()

    def close(self) -> None:
        """Give the sandbox back for the worker's next session (idempotent)."""
        pending, self._pending = self._pending, None
        box, self._box = self._box, None
        if box is None:
            return
        if pending is not None:  # an answer never asked for: read it before reuse
            # raised: it was read; any other failure: the process is gone, not reused
            with contextlib.suppress(AgentFailure):
                box.receive("propose", self._timeout("propose"))
        _release(box)

    def _timeout(self, op: str) -> float:
        limit = self.limits.call_timeout
        return (max(limit, _STARTUP) if op in ("start", "end") else limit) + _GRACE

    def _call(self, op: str, view: NegotiatorView, extra: dict[str, Any] | None = None) -> Any:
        if self._pending is not None:  # an answer the session did not ask for: drop it
            self._pending = None
            self._send("propose", None, self._timeout("propose"), receive=True)
        new = list(view.offers[self._sent :])
        self._sent = len(view.offers)
        payload = {"sid": self._sid, "state": (*view.state(), new), **(extra or {})}
        return self._send(op, payload, self._timeout(op))

    def _send(self, op: str, payload: Any, timeout: float, *, receive: bool = False) -> Any:
        if self._dead is not None:
            raise IsolatedAgentError(self._dead)
        box = self._box
        assert box is not None
        try:
            if receive:
                return box.receive(op, timeout)
            return box.call(op, payload, timeout, trusted_pickle=True)
        except AgentTimeout:
            self._dead = f"{op}() did not answer within {timeout:.2f} s; the process was killed"
            time.sleep(0)  # the session sees the call took too long and records a timeout
            return None
        except AgentFailure as exc:
            reason = failure_reason(exc, self.limits)
            if exc.kind != "raised":
                self._dead = reason
            raise IsolatedAgentError(reason) from None


def failure_reason(exc: AgentFailure, limits: TournamentLimits) -> str:
    """What a failed sandbox is recorded with (a death by SIGXCPU says which limit)."""
    if "SIGXCPU" in exc.reason:
        return (
            "the agent process died from SIGXCPU "
            f"(CPU-time limit of {limits.cpu_seconds:g} s exceeded)"
        )
    return exc.reason


_SCALARS = frozenset({int, float, str, bool, type(None)})  # what JSON decodes to


def check_outcome(out: Any) -> Outcome | None:
    """An agent's JSON answer to ``propose`` as an outcome (None: it ends the session);
    :class:`IsolatedAgentError` if it is not a list of scalars.

    >>> check_outcome([1, "a"]), check_outcome(None)
    ((1, 'a'), None)
    """
    if out is None:
        return None
    if type(out) is list and _SCALARS.issuperset(map(type, out)):
        return tuple(out)
    raise IsolatedAgentError(f"propose() returned {out!r:.80}, not an outcome")


def check_response(out: Any) -> Response:
    """An agent's JSON answer to ``respond`` as a :class:`Response`;
    :class:`IsolatedAgentError` if it is not one of their codes.

    >>> check_response(1).name
    'REJECT'
    """
    if type(out) is int:  # the usual answer: no enum lookup
        answer = _RESPONSES.get(out)
        if answer is not None:
            return answer
    if isinstance(out, int) and not isinstance(out, bool) and out in (0, 1, 2):
        return Response(out)
    raise IsolatedAgentError(f"respond() returned {out!r:.80}, not a response")


_RESPONSES = {int(r): r for r in Response}

OFFERS = Interface(
    HOST,
    {
        "check": None,
        "start": None,  # the megabytes the process maps, in a batch
        "propose": check_outcome,
        "respond": check_response,
        "end": None,  # the CPU seconds the process used
        "batch": None,  # a list of entries, each checked by the hub
    },
)
"""The offer negotiators' interface: what each call of a session answers, checked."""
