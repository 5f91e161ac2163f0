"""A fresh interpreter process for every participant's agent: no state carried over.

The 2017 rules forbid an agent to carry anything from one participant to the next.
A new instance per participant (:class:`~accord.leagues.han.match.Fresh`) does not
stop state kept on the class or in a module (class attributes, module globals); a new
process does. :class:`IsolatedAgent` stands in for the agent in the game: the real
agent is built *by name* in a child process started fresh (``forkserver``: forked from
a clean server process that never ran a game, ``spawn`` where that is missing), so
its module is imported anew or copied clean, and nothing an earlier participant's game
left in a class or a module is visible. Each event goes to the child with the view's
news (the offer on the table, the time, the events heard since the last call); the
child answers with the agent's events, which the game checks as usual.

Failures are the agent's, never the game's: an exception in ``on_event`` is recorded
and the game goes on (as in-process); a child that dies, cannot be started or does not
answer within ``timeout`` seconds (it is then killed) raises :class:`AgentGone`, which
the match records and answers by ending the game with both BATNAs (outcome ``left``).

    >>> agent = IsolatedAgent("fair")
    >>> agent.name, agent.alive
    ('fair', True)
    >>> agent.close(); agent.alive
    False
"""

from __future__ import annotations

import contextlib
import multiprocessing as mp
import signal
import threading
from multiprocessing.connection import Connection
from typing import Any

from accord.core.errors import AccordError
from accord.leagues.han.api import AgentGone, GameView, HanAgent
from accord.leagues.han.events import Event
from accord.tournament.isolation import _start_method
from accord.tournament.lifeline import die_with_parent

__all__ = ["AgentGone", "IsolatedAgent", "isolated_factory"]

TIMEOUT = 5.0
"""Seconds one ``on_event`` call may take before the agent's process is killed."""
STARTUP = 30.0
"""Seconds for the child to start, import the agent and build it."""


class IsolatedAgent(HanAgent):
    """The agent named ``agent`` (an example's name or ``pkg.module:Class``) run in a
    process of its own, started when this object is made, for one participant."""

    def __init__(self, agent: str, timeout: float = TIMEOUT) -> None:
        super().__init__()
        self.name = agent
        self.timeout = timeout
        start = _start_method()
        ctx: Any = mp.get_context(start)
        if start == "forkserver":  # the server imports Accord once; children fork from it
            ctx.set_forkserver_preload(
                ["accord.leagues.han.isolation", "accord.leagues.han.tournament"]
            )
        parent, child = ctx.Pipe()
        self._proc = ctx.Process(target=_child_main, args=(child, agent), daemon=True)
        self._proc.start()
        child.close()
        self._conn: Connection = parent
        self._sent = 0  # events of view.heard already sent
        self._dead: str | None = None
        self._first = True
        self._lock = threading.Lock()  # one call at a time on the pipe (server threads)

    @property
    def alive(self) -> bool:
        return self._dead is None and self._proc.is_alive()

    def bind(self, view: GameView) -> None:
        super().bind(view)
        self._sent = len(view.heard)
        with contextlib.suppress(AgentGone, AgentError):  # on_event will say it is gone
            self._call("bind", view)

    def reseed(self, seed: int) -> None:
        with contextlib.suppress(AgentGone, AgentError):
            self._call("reseed", seed)

    def on_event(self, event: Event) -> list[Event]:
        v = self.view
        news = list(v.heard[self._sent :])
        self._sent = len(v.heard)
        out: list[Event] = self._call("event", (event, v.offer, v.elapsed, news))
        return out

    def close(self) -> None:
        """Stop the child process (idempotent)."""
        if self._proc.is_alive():
            self._proc.kill()
        self._proc.join(1.0)
        self._conn.close()
        if self._dead is None:
            self._dead = "the agent's process was closed"

    def _call(self, op: str, payload: Any) -> Any:
        with self._lock:
            return self._call_locked(op, payload)

    def _call_locked(self, op: str, payload: Any) -> Any:
        if self._dead is not None:
            raise AgentGone(self._dead)
        wait = max(self.timeout, STARTUP) if self._first else self.timeout
        self._first = False
        try:
            self._conn.send((op, payload))
            ready = self._conn.poll(wait)
        except (BrokenPipeError, EOFError, OSError):
            ready = True
        if not ready:
            self._proc.kill()
            self._proc.join(1.0)
            self._dead = f"{self.name} did not answer within {wait:g} s; its process was killed"
            raise AgentGone(self._dead)
        try:
            kind, out = self._conn.recv()
        except (EOFError, OSError):
            raise AgentGone(self._death()) from None
        if kind == "ok":
            return out
        if kind == "gone":
            self._dead = str(out)
            self._proc.join(1.0)
            raise AgentGone(str(out))
        raise AgentError(str(out))

    def _death(self) -> str:
        self._proc.join(1.0)
        code = self._proc.exitcode
        if code is not None and code < 0:
            self._dead = f"{self.name}'s process died from {signal.Signals(-code).name}"
        else:
            self._dead = f"{self.name}'s process exited unexpectedly (exit code {code})"
        return self._dead


class AgentError(AccordError):
    """The isolated agent's ``on_event`` (or ``reseed``) raised; the game goes on."""


def isolated_factory(agent: str, timeout: float = TIMEOUT) -> Any:
    """A factory of :class:`IsolatedAgent` for ``agent`` (checked here, in this process).

    >>> isolated_factory("nobody")
    Traceback (most recent call last):
    ...
    accord.core.errors.ConfigError: unknown HAN agent 'nobody'; known: fair, tough, ledger, liar or pkg.module:Class
    """
    from accord.leagues.han.naming import agent_class

    cls = agent_class(agent)

    def make() -> IsolatedAgent:
        return IsolatedAgent(agent, timeout)

    make.__name__ = cls.__name__
    return make


def _child_main(conn: Connection, name: str) -> None:
    """The child: build the agent by name, then answer calls until the pipe closes."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    die_with_parent()
    agent: HanAgent | None = None
    error = ""
    try:
        from accord.leagues.han.naming import agent_class

        agent = agent_class(name)()
    except Exception as exc:  # noqa: BLE001 - reported to the parent as a failure
        error = f"could not build agent {name!r}: {type(exc).__name__}: {exc}"
    view: GameView | None = None
    while True:
        try:
            op, payload = conn.recv()
        except (EOFError, OSError):
            return
        if agent is None:
            conn.send(("gone", error))
            return
        try:
            out: Any = None
            if op == "bind":
                view = payload
                agent.bind(payload)
            elif op == "reseed":
                reseed = getattr(agent, "reseed", None)
                if callable(reseed):
                    reseed(payload)
            else:
                event, offer, elapsed, news = payload
                assert view is not None
                view.offer, view.elapsed = offer, elapsed
                view.heard.extend(news)
                out = agent.on_event(event)
            try:
                conn.send(("ok", out))
            except Exception as exc:  # noqa: BLE001 - e.g. an answer that cannot be pickled
                conn.send(("error", f"on_event returned what cannot be sent: {exc!r}"))
        except Exception as exc:  # noqa: BLE001 - the agent's bug, reported to the parent
            with contextlib.suppress(Exception):
                what = "on_event" if op == "event" else op
                conn.send(("error", f"{type(agent).__name__}.{what} raised {exc!r}"))
