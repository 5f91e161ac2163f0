"""Isolated mode: every agent of a session runs in a process of its own.

:class:`IsolatedNegotiator` stands in for the agent inside the session. The real agent
lives in a child process started fresh (``forkserver``: forked from a clean server
process, never from the session's own; ``spawn`` where that is missing), holding only
its own utility, view and memory, with a CPU-time limit (``RLIMIT_CPU``, for the whole
session) and an address-space limit (``RLIMIT_AS``, the memory it may add to what the
process already maps). Each call is sent over a pipe with the view's new state; the
stand-in waits at most the per-call timeout, then kills the child. A child that raises,
crashes, exceeds a limit or hangs therefore ends only its own session, as a recorded
failure; the tournament goes on.

The child gets a copy of the view's random generator, so an isolated agent behaves
exactly as it would in-process.
"""

from __future__ import annotations

import contextlib
import multiprocessing as mp
import signal
import tempfile
from dataclasses import dataclass
from multiprocessing.connection import Connection
from typing import Any

from accord.core.errors import AccordError
from accord.core.negotiator import Negotiator, NegotiatorView, OfferLog, Response
from accord.core.outcomes import Outcome
from accord.core.protocols.result import SessionResult
from accord.core.utilities import UtilityFunction
from accord.tournament.agents import make_negotiator
from accord.tournament.config import AgentSpec
from accord.tournament.lifeline import apply_limits, die_with_parent

_GRACE = 0.25  # seconds to wait past the time limit before killing the child
# A new interpreter that holds only what it is sent (its agent, its own utility and
# memory), never a copy of the session's process and so of the other parties' utilities.
_STARTUP = 30.0  # seconds for the child to start and run on_start/on_end (not timed calls)
_SOCKET_DIR_MAX = 70  # the forkserver's AF_UNIX socket lives in TMPDIR; paths are limited


def _start_method() -> str:
    """``forkserver`` where it exists and its socket path fits, else ``spawn``."""
    if "forkserver" not in mp.get_all_start_methods():
        return "spawn"
    return "forkserver" if len(tempfile.gettempdir()) <= _SOCKET_DIR_MAX else "spawn"


class IsolatedAgentError(AccordError):
    """The isolated agent raised, crashed or broke a limit (the message says which)."""


@dataclass(frozen=True)
class Limits:
    """Per-agent limits in isolated mode.

    Args:
        cpu_seconds: CPU time the agent may use over one session.
        memory_mb: megabytes of address space it may add to the process it starts in.
        call_timeout: seconds one call may take (the session's time limit).
    """

    cpu_seconds: float = 60.0
    memory_mb: int = 2048
    call_timeout: float = 10.0


class IsolatedNegotiator(Negotiator):
    """Runs the agent ``spec`` in a child process; forwards every call to it."""

    def __init__(
        self, spec: AgentSpec, limits: Limits, utility: UtilityFunction, memory: Any
    ) -> None:
        super().__init__(spec.name)
        self.limits = limits
        start = _start_method()
        ctx: Any = mp.get_context(start)
        if start == "forkserver":  # the server imports Accord once; children fork from it
            ctx.set_forkserver_preload(["accord.tournament.isolation", "accord.agents"])
        parent, child = ctx.Pipe()
        self._proc = ctx.Process(
            target=_child_main, args=(child, spec, limits, utility, memory), daemon=True
        )
        self._proc.start()
        child.close()
        self._conn: Connection = parent
        self._sent = 0
        self._dead: str | None = None

    # -- the negotiator API ------------------------------------------------------------
    def on_start(self, view: NegotiatorView) -> None:
        self._call("start", view, view.index, view.names, view.rng, view.deadline)

    def propose(self, view: NegotiatorView) -> Outcome | None:
        out: Outcome | None = self._call("propose", view)
        return out

    def respond(self, view: NegotiatorView, offer: Outcome) -> Response:
        out: Response = self._call("respond", view, offer)
        return out

    def on_end(self, view: NegotiatorView, result: SessionResult) -> None:
        if self._dead is None and self._proc.is_alive():
            with contextlib.suppress(IsolatedAgentError):
                self._call("end", view, result)
        self.close()

    def close(self) -> None:
        """Stop the child process (idempotent)."""
        if self._proc.is_alive():
            self._proc.kill()
        self._proc.join(1.0)
        self._conn.close()
        if self._dead is None:
            self._dead = "the agent process was closed"

    # -- plumbing ----------------------------------------------------------------------
    def _call(self, op: str, view: NegotiatorView, *extra: Any) -> Any:
        if self._dead is not None:
            raise IsolatedAgentError(self._dead)
        offers = view.offers
        new = list(offers[self._sent :])
        self._sent = len(offers)
        state = (*view.state(), new)
        limit = self.limits.call_timeout
        timeout = (max(limit, _STARTUP) if op in ("start", "end") else limit) + _GRACE
        try:
            self._conn.send((op, state, extra))
            ready = self._conn.poll(timeout)
        except (BrokenPipeError, EOFError, OSError):
            ready = True
        if not ready:
            self._proc.kill()
            self._proc.join(1.0)
            self._dead = f"{op}() did not answer within {timeout:.2f} s; the process was killed"
            return None  # the session sees the call took too long and records a timeout
        try:
            kind, payload = self._conn.recv()
        except (EOFError, OSError):
            raise IsolatedAgentError(self._death()) from None
        if kind == "ok":
            return payload
        self._dead = str(payload)
        raise IsolatedAgentError(str(payload))

    def _death(self) -> str:
        self._proc.join(1.0)
        code = self._proc.exitcode
        if code is not None and code < 0:
            sig = signal.Signals(-code).name
            why = {
                "SIGXCPU": f" (CPU-time limit of {self.limits.cpu_seconds:g} s exceeded)",
                "SIGKILL": " (killed)",
            }.get(sig, "")
            self._dead = f"the agent process died from {sig}{why}"
        else:
            self._dead = f"the agent process exited unexpectedly (exit code {code})"
        return self._dead


def _child_main(
    conn: Connection, spec: AgentSpec, limits: Limits, utility: UtilityFunction, memory: Any
) -> None:
    """The child process: build the agent, then answer calls until told to end."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    die_with_parent()
    error: str | None = None
    neg: Negotiator | None = None
    try:
        apply_limits(limits.cpu_seconds, limits.memory_mb)
        neg = make_negotiator(spec)
    except Exception as exc:  # noqa: BLE001 - reported to the parent as a failure
        error = f"could not create agent {spec.name!r}: {type(exc).__name__}: {exc}"
    offers = OfferLog()
    view: NegotiatorView | None = None
    while True:
        try:
            op, state, extra = conn.recv()
        except (EOFError, OSError):
            return
        try:
            if error is not None:
                raise IsolatedAgentError(error)
            assert neg is not None
            if op == "start":
                index, names, rng, deadline = extra
                view = NegotiatorView(utility, index, names, offers, rng, memory, deadline)
            assert view is not None
            *now, new = state
            view.update(*now)
            for k, o in new:
                offers._append(k, o)
            out: Any = None
            if op == "start":
                neg.on_start(view)
            elif op == "propose":
                out = neg.propose(view)
            elif op == "respond":
                out = neg.respond(view, extra[0])
            else:
                neg.on_end(view, extra[0])
                conn.send(("ok", None))
                return
            conn.send(("ok", out))
        except BaseException as exc:  # noqa: BLE001 - includes MemoryError, SystemExit
            with contextlib.suppress(Exception):
                conn.send(("error", f"{type(exc).__name__}: {exc}"))
            if op == "end":
                return
