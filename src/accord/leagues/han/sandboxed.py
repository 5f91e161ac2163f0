"""A HAN agent in the OS sandbox: the names the league used before :mod:`accord.leagues.han.isolation`
ran every game's agent in :mod:`accord.sandbox` (``os`` mode) by default.

An agent running as the organiser's user could read the organiser's files (an
organiser's game file holds both sides' values) and the memory of its processes; in the
OS sandbox it sees only the runtime, Accord's code and its own code. There is one
implementation: :class:`SandboxedAgent` is an
:class:`~accord.leagues.han.isolation.IsolatedAgent` in ``os`` mode.

    >>> sandboxed_factory("nobody")
    Traceback (most recent call last):
    ...
    accord.core.errors.ConfigError: unknown HAN agent 'nobody'; known: fair, tough, ledger, liar or pkg.module:Class
"""

from __future__ import annotations

from typing import Any

from accord.leagues.han.isolation import (
    TIMEOUT,
    HanHost,
    IsolatedAgent,
    decode_event,
    encode_event,
    isolated_factory,
)
from accord.sandbox import Limits, SandboxMode

__all__ = ["HanHost", "SandboxedAgent", "decode_event", "encode_event", "sandboxed_factory"]


class SandboxedAgent(IsolatedAgent):
    """The agent named ``agent`` in an OS sandbox of its own, for one participant."""

    def __init__(self, agent: str, timeout: float = TIMEOUT, limits: Limits | None = None) -> None:
        super().__init__(agent, timeout, SandboxMode.OS, limits)


def sandboxed_factory(agent: str, timeout: float = TIMEOUT) -> Any:
    """A factory of agents in the OS sandbox (the name checked here, never imported)."""
    return isolated_factory(agent, timeout, SandboxMode.OS)
