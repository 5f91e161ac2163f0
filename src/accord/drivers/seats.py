"""A sandboxed entrant as a seat of the agent driver, for any ``Rules``.

The organiser's side, :class:`SandboxSeat`, sends the entrant what the rules let its
party see (``observe``) and what it may do (``legal``) as JSON, and turns the JSON answer
into an action with ``rules.action_from_json``: every answer is checked against
``legal()`` before it touches the play, and nothing the entrant sends is unpickled or
evaluated. A late answer is a timeout (:class:`~accord.core.protocols.driver.SlowCall`),
any other failure of the sandbox (a crash, an exception, garbage) the entrant's failure;
the agent driver records either through ``rules.fail``.

The entrant's side is a :class:`~accord.sandbox.host.Host`.
:class:`~accord.drivers.negotiator_host.OfferNegotiatorHost` (the negotiation
tournament's host too) runs any core :class:`~accord.core.negotiator.Negotiator`
(``propose``/``respond``) at the offer protocols (AOP, the SCML variant, the ultimatum
game) from those JSON messages alone: it rebuilds the outcome space, the party's own
utility and a read-only view.

    seat = SandboxSeat.launch(rules, party=1, agent="boulware", limits=Limits(cpu_seconds=60))
    AgentDriver(rules, setup, [in_process_seat, seat], names).run()

Every entrant of every league is started here, by :func:`start_entrant`, and nowhere
else (``tests/sandbox/test_one_sandbox.py`` checks it): the negotiation tournament's
agents, SCML factories, HAN players, Diplomacy negotiators, GENIUS and Colored Trails
agents. A league contributes only an :class:`Interface`, the description of its agents'
calls: the host that runs them in the sandbox and, for every op, the check of its JSON
answer. The leagues whose agents keep their own call shapes (GENIUS, Colored Trails) go
through :func:`launch_entrant`: :func:`sandbox_mode` says which mode a named agent runs
in (a built-in one in-process, ``pkg.module:Class`` in the sandbox) and
:func:`launch_entrant` starts it and gives back a :class:`RemoteEntrant`, the one
organiser-side stand-in those leagues' adapters call through (league data out, JSON
answers back, checked there).

    >>> sandbox_mode("boulware"), sandbox_mode("entries.mine:Mine"), sandbox_mode("a.b:C", "none")
    (None, 'os', None)
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from accord.core.errors import ConfigError, UsageError
from accord.core.imports import is_import_path
from accord.core.protocols.driver import SlowCall
from accord.core.protocols.rules import Rules
from accord.sandbox import (
    AgentFailure,
    AgentTimeout,
    Limits,
    Sandbox,
    SandboxMode,
    agent_code,
    start_sandbox,
)

__all__ = [
    "BASE_MB",
    "CALL_TIMEOUT",
    "SANDBOX_MODES",
    "Interface",
    "RemoteEntrant",
    "SandboxSeat",
    "launch_entrant",
    "sandbox_mode",
    "start_entrant",
]

HOST = "accord.drivers.negotiator_host:OfferNegotiatorHost"
SANDBOX_MODES = ("os", "process", "none", "off")
"""``os`` (the default for agents named by path), ``process`` (weaker: see
:data:`accord.sandbox.PROCESS_GIVES_UP`), ``none`` (in this process: trusted code only;
the name every league uses) or ``off`` (the same)."""
BASE_MB = 320
"""Megabytes of address space for the interpreter, numpy and Accord: what a league adds
to an agent's own memory limit (the tournament's, SCML's) to get its process's."""
CALL_TIMEOUT = 10.0
"""Seconds one call of a sandboxed entrant may take, unless the league says otherwise."""


Check = Callable[[Any], Any]
"""The check of one op's JSON answer: the answer as the organiser uses it, or an
exception (the league's own) saying what was expected and what arrived."""


@dataclass(frozen=True)
class Interface:
    """A league's agent interface, as the organiser sees it: ``host`` (the
    :class:`~accord.sandbox.Host` that runs the entrant in the sandbox, as
    ``pkg.module:Class``) and ``answers``, every op the organiser may call with the check
    of its JSON answer (None: the answer is used as it came, or not at all).

        >>> iface = Interface("mine.hosts:MyHost", {"double": int, "ping": None})
        >>> iface.check("double", 4), iface.check("ping", "anything")
        (4, 'anything')
        >>> iface.check("triple", 1)
        Traceback (most recent call last):
        ...
        accord.core.errors.UsageError: mine.hosts:MyHost answers double, ping; not 'triple'
    """

    host: str
    answers: Mapping[str, Check | None]

    def check(self, op: str, answer: Any) -> Any:
        """``answer`` to ``op`` checked (the check's result)."""
        try:
            check = self.answers[op]
        except KeyError:
            raise UsageError(f"{self.host} answers {', '.join(self.answers)}; not {op!r}") from None
        return answer if check is None else check(answer)


SEAT = Interface(HOST, {"start": None, "act": None, "end": None})
"""A seat's calls (any ``Rules``): ``act``'s answer is checked against ``legal()`` by
``rules.action_from_json``, which needs the state, so not here."""


def start_entrant(
    interface: Interface,
    agent: str,
    *,
    mode: SandboxMode | str = SandboxMode.OS,
    limits: Limits | None = None,
    code_paths: Sequence[str] | None = None,
    data_dir: str | None = None,
    extra: dict[str, Any] | None = None,
    fork: bool = False,
    preload: Sequence[str] = (),
) -> Sandbox:
    """Start entrant ``agent`` (a built-in name or ``pkg.module:Class``) in a sandbox of
    ``mode`` under ``interface``'s host: the one place an entrant is started. Its own
    code (``code_paths``, or found by :func:`~accord.sandbox.agent_code`) is all of it
    that is visible there; ``data_dir`` its learning data, where the league allows.
    ``fork``: forked from a zygote where it can be (``preload``: Accord modules the
    zygote imports; see :class:`~accord.sandbox.Sandbox`)."""
    if code_paths is None:
        code = agent_code(agent)
        paths, mounts = code.paths, code.mounts
    else:
        paths, mounts = tuple(code_paths), ()
    return start_sandbox(
        interface.host,
        agent,
        code_paths=paths,
        code_mounts=mounts,
        data_dir=data_dir,
        limits=limits,
        mode=mode,
        extra=extra,
        fork=fork,
        preload=preload,
    )


def sandbox_mode(name: str, mode: str = "os") -> str | None:
    """The sandbox mode agent ``name`` runs in: None (in this process) for a built-in
    agent or with ``none``/``off``; a clear error for an unknown mode."""
    if mode not in SANDBOX_MODES:
        raise ConfigError(f"sandbox must be one of {', '.join(SANDBOX_MODES)}; got {mode!r}")
    return mode if is_import_path(name) and mode not in ("none", "off") else None


class RemoteEntrant:
    """The organiser's handle on one entrant in a sandbox, for one play: its ``label``
    (the name it gave, or the one it was started by), a per-call ``timeout`` and
    :meth:`call`. The organiser sends its own data (a pickle: it trusts itself); the
    entrant's answers are JSON, each checked by the league's ``interface``."""

    def __init__(self, box: Sandbox, label: str, timeout: float, interface: Interface) -> None:
        self.box = box
        self.label = label
        self.timeout = timeout
        self.interface = interface

    def call(self, op: str, payload: Any) -> Any:
        """The entrant's answer to ``op``, checked by the interface (an
        :class:`AgentFailure` if the sandbox fails; the check's error if the answer is
        not what ``op`` answers)."""
        answer = self.box.call(op, payload, timeout=self.timeout, trusted_pickle=True)
        return self.interface.check(op, answer)

    def close(self) -> None:
        """Stop the entrant's sandbox (idempotent)."""
        self.box.close()


def launch_entrant(
    interface: Interface,
    name: str,
    mode: str = "os",
    limits: Limits | None = None,
    call_timeout: float = CALL_TIMEOUT,
) -> RemoteEntrant:
    """Start entrant ``name`` (``pkg.module:Class``) under ``interface`` in a sandbox of
    ``mode``, with ``limits`` (default: ``call_timeout`` a call, 60 s to start), and ask
    its name (the host answers the ``name`` op; a missing or odd one keeps ``name``)."""
    limits = limits or Limits(call_timeout=call_timeout, startup_timeout=60.0)
    box = start_entrant(interface, name, mode=mode, limits=limits, fork=True)
    try:
        said = box.call("name", None)
    except Exception:
        box.close()
        raise
    label = said if isinstance(said, str) and 0 < len(said) <= 80 else name
    return RemoteEntrant(box, label, limits.call_timeout, interface)


class SandboxSeat:
    """One party's entrant in a sandbox (``box``: anything with ``call(op, payload,
    timeout)`` and ``close()``, such as :class:`accord.sandbox.Sandbox`)."""

    def __init__(
        self,
        rules: Rules[Any, Any, Any],
        party: int,
        box: Any,
        name: str,
        timeout: float | None = None,
    ) -> None:
        self.rules = rules
        self.party = party
        self.box = box
        self.name = name
        self.timeout = timeout

    @classmethod
    def launch(
        cls,
        rules: Rules[Any, Any, Any],
        party: int,
        agent: str,
        *,
        host: Interface | str = SEAT,
        code_paths: Sequence[str] = (),
        limits: Limits | None = None,
        mode: str = "os",
        timeout: float | None = None,
    ) -> SandboxSeat:
        """Start ``agent`` (a built-in name or ``pkg.module:Class``) in a sandbox."""
        interface = host if isinstance(host, Interface) else Interface(host, SEAT.answers)
        box = start_entrant(
            interface, agent, code_paths=code_paths, limits=limits, mode=mode, fork=True
        )
        return cls(rules, party, box, agent.rsplit(":", 1)[-1], timeout)

    def _call(self, op: str, payload: Any) -> Any:
        try:
            return self.box.call(op, payload, self.timeout)
        except AgentTimeout as exc:
            raise SlowCall(f"{op}: {exc}") from None

    def start(self, state: Any) -> None:
        """The play begins: the entrant sees its first observation."""
        self._call("start", {"party": self.party, "observation": self._observe(state)})

    def _observe(self, state: Any) -> dict[str, Any]:
        return self.rules.observe(state, self.party)

    def act(self, state: Any, party: int) -> Any:
        """The entrant's action, checked against ``legal()`` (IllegalAction if not)."""
        legal = self.rules.legal(state, party)
        payload = {"observation": self._observe(state), "legal": legal.to_json()}
        return self.rules.action_from_json(state, party, self._call("act", payload))

    def end(self, result: Any) -> None:
        """The play is over: the entrant sees the result; then its sandbox closes."""
        shown = result.to_dict() if hasattr(result, "to_dict") else result
        with contextlib.suppress(AgentFailure, TypeError, ValueError):
            self.box.call("end", {"result": shown}, self.timeout)
        self.box.close()
