"""One sandbox for every agent an organiser does not trust (issue 22).

Every place that runs an entrant's code (negotiation tournaments, SCML worlds, HAN
games, the leagues' agent drivers) runs it here: a child process, inside a bubblewrap
sandbox in ``os`` mode (its own user, PID, network, IPC, UTS and mount namespaces; only
the runtime, the agent's own code, a private scratch and, where allowed, its own
learning data visible), under hard CPU, memory, file, process and file-size limits set
before its code is imported, talking over length-prefixed JSON frames with a size cap
and a deadline on every frame. The organiser's side never unpickles or evaluates what
an agent sends.

Layer: imports :mod:`accord.core` only; it sits below :mod:`accord.tournament`.

Use::

    from accord.sandbox import Limits, start_sandbox, AgentFailure
    box = start_sandbox("accord.drivers.negotiator_host:OfferNegotiatorHost", "my_agent:Mine",
                        code_paths=["/entries/alice"], limits=Limits(cpu_seconds=60))
    try:
        answer = box.call("propose", payload, timeout=5)
    except AgentFailure as failure:   # AgentTimeout, AgentCrashed, AgentProtocolError,
        record(failure.kind, failure.reason)  # AgentRaised
    finally:
        box.close()

A league writes a *host* (see :mod:`accord.sandbox.host`) that runs inside the sandbox,
builds the agent and maps ops to its methods. ``docs/sandbox.md`` says what is
guaranteed and what is not.

    >>> from accord.sandbox import sandbox_available
    >>> sandbox_available() is None or "sandbox" in sandbox_available()
    True
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from accord.sandbox.host import Host, HostContext, Then
from accord.sandbox.limits import (
    PROCESS_GIVES_UP,
    AgentCrashed,
    AgentFailure,
    AgentProtocolError,
    AgentRaised,
    AgentTimeout,
    Limits,
    SandboxMode,
    SandboxUnavailable,
)

if TYPE_CHECKING:
    from accord.sandbox.locate import agent_code
    from accord.sandbox.process import Sandbox, sandbox_available, start_sandbox

# imported on first use: the sandboxed process imports this package (its host, frames
# and limits live here) and never starts a sandbox or looks for an agent's code
_LAZY = {
    "Sandbox": "accord.sandbox.process",
    "sandbox_available": "accord.sandbox.process",
    "start_sandbox": "accord.sandbox.process",
    "agent_code": "accord.sandbox.locate",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'accord.sandbox' has no attribute {name!r}")


__all__ = [
    "PROCESS_GIVES_UP",
    "AgentCrashed",
    "AgentFailure",
    "AgentProtocolError",
    "AgentRaised",
    "AgentTimeout",
    "Host",
    "HostContext",
    "Limits",
    "Sandbox",
    "SandboxMode",
    "SandboxUnavailable",
    "Then",
    "agent_code",
    "require_mode",
    "sandbox_available",
    "start_sandbox",
]


def require_mode(mode: SandboxMode | str) -> SandboxMode:
    """The mode, checked before work starts: ``os`` where bubblewrap cannot run raises
    :class:`SandboxUnavailable` with one line saying why and how to fix it.

    >>> require_mode("process")
    <SandboxMode.PROCESS: 'process'>
    """
    parsed = SandboxMode.parse(mode)
    if parsed is SandboxMode.OS:
        from accord.sandbox.process import sandbox_available

        reason = sandbox_available()
        if reason is not None:
            raise SandboxUnavailable(reason)
    return parsed
