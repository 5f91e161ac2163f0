"""Hosts: trusted Accord code that runs inside the sandbox beside the agent.

A league writes one host class per kind of agent it runs. The launcher builds it, in the
sandbox, after the limits are set and before anything else: ``Host(agent, context)``,
where ``agent`` is the string the organiser passed (a built-in name or
``pkg.module:Class``: the host imports and builds it) and ``context`` a
:class:`HostContext`. Then every ``Sandbox.call(op, payload)`` becomes
``host.handle(op, payload)``; what it returns goes back as JSON (so return only JSON
values: dicts with string keys, lists, strings, numbers, booleans, None). An exception
in ``handle`` (the agent's, usually) goes back as
:class:`~accord.sandbox.limits.AgentRaised` with its traceback; the process lives on.

A host may ask the organiser something during a call (a league's "world" API, say) with
``context.ask(name, args)``; the organiser's ``serve`` callback answers it. Payloads
from the organiser may be any picklable object when the organiser sends them with
``trusted_pickle=True`` (the organiser trusts itself); answers are always JSON.

Example: a host that forwards ``"double"`` to an agent object::

    class DoublerHost(Host):
        def __init__(self, agent: str, context: HostContext) -> None:
            super().__init__(agent, context)
            self.agent = import_object(agent, "agent")()

        def handle(self, op: str, payload: Any) -> Any:
            if op == "double":
                return self.agent.double(payload)
            raise UsageError(f"unknown op {op!r}")

Run it with ``start_sandbox("mypkg.hosts:DoublerHost", "agents.doubler:Doubler",
code_paths=[...])``. See ``docs/sandbox.md``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from accord.core.errors import UsageError

__all__ = ["Asker", "Host", "HostContext", "Then", "describe_exception", "from_organiser"]


class Asker(Protocol):
    def __call__(self, name: str, args: Any) -> Any: ...


@dataclass
class HostContext:
    """What a host gets besides the agent's name.

    Attributes:
        agent: the agent string (built-in name or ``pkg.module:Class``).
        scratch: the agent's private writable directory (a tmpfs in ``os`` mode).
        data_dir: its own learning-data directory where the league allows one, else None.
        ask: call the organiser: ``ask(name, args)`` returns the organiser's answer.
        report: ``report(n)`` tells the organiser that ``n`` more parts of the current
            request are done (a batch's calls: the organiser times each on its own, see
            :meth:`~accord.sandbox.Sandbox.progress`); one small write, never blocks.
    """

    agent: str
    scratch: str
    data_dir: str | None
    ask: Asker
    extra: dict[str, Any] = field(default_factory=dict)
    report: Callable[[int], None] = field(default=lambda n: None)


@dataclass(frozen=True)
class Then:
    """What ``handle`` returns to answer now and then run ``follow`` at once: ``value``
    goes back as this call's answer, and ``follow()``'s (or its exception) as a second
    frame, which the organiser reads with :meth:`~accord.sandbox.Sandbox.receive` as the
    answer of a call it knows comes next (a counter-offer after a rejection, say): one
    request instead of two, each answer still timed and checked on its own."""

    value: Any
    follow: Callable[[], Any]


def from_organiser(data: bytes) -> Any:
    """Inside the sandbox: an object the organiser sent pickled inside a payload (a
    utility pickled once for many sessions, say). Only this direction carries pickles:
    the organiser trusts itself and never unpickles what a sandbox sends."""
    import pickle

    return pickle.loads(data)


def describe_exception(exc: BaseException) -> str:
    """``"Type: message"`` of an exception raised in a sandbox, at most 2,000 characters,
    even when its ``__str__`` raises.

    >>> describe_exception(ValueError("no"))
    'ValueError: no'
    """
    try:
        text = str(exc)
    except BaseException:  # noqa: BLE001 - an exception whose __str__ raises
        text = "<unprintable>"
    return f"{type(exc).__name__}: {text}"[:2000]


class Host:
    """Base class of hosts (subclass it; see the module docstring)."""

    def __init__(self, agent: str, context: HostContext) -> None:
        self.agent_name = agent
        self.context = context

    def handle(self, op: str, payload: Any) -> Any:
        """Answer one call from the organiser (JSON out)."""
        raise NotImplementedError

    def close(self) -> None:
        """Called once before the process ends normally (errors are ignored)."""


class EchoHost(Host):
    """A host for tests and benchmarks: ``echo`` returns the payload; the agent string
    names a built-in behaviour or ``pkg.module:function`` called as ``function(op,
    payload, context)`` for any other op (hostile test agents use that)."""

    def __init__(self, agent: str, context: HostContext) -> None:
        super().__init__(agent, context)
        self.fn: Any = None
        if ":" in agent:
            from accord.core.imports import import_object

            self.fn = import_object(agent, "agent")

    def handle(self, op: str, payload: Any) -> Any:
        if op == "echo":
            return payload
        if op == "ask":
            return self.context.ask("question", payload)
        if self.fn is None:
            raise UsageError(f"unknown op {op!r}")
        return self.fn(op, payload, self.context)
