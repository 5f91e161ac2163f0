"""What a sandboxed agent may use (:class:`Limits`), how it is isolated
(:class:`SandboxMode`) and how it can fail (:class:`AgentFailure` and its kinds).

    >>> Limits(cpu_seconds=5).cpu_seconds
    5.0
    >>> SandboxMode.parse("os"), SandboxMode.parse("process").weaker
    (<SandboxMode.OS: 'os'>, True)
    >>> Limits(memory_mb=0)
    Traceback (most recent call last):
    ...
    accord.core.errors.ConfigError: Limits.memory_mb must be > 0, got 0
"""

from __future__ import annotations

import collections
import enum
import resource
import threading
from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import IO

from accord.core.errors import AccordError, ConfigError

__all__ = [
    "PROCESS_GIVES_UP",
    "AgentCrashed",
    "AgentFailure",
    "AgentProtocolError",
    "AgentRaised",
    "AgentTimeout",
    "Limits",
    "SandboxMode",
    "SandboxUnavailable",
    "StderrTail",
    "preexec",
    "rlimits_of",
]


@dataclass(frozen=True)
class Limits:
    """Hard limits of one sandboxed agent process (set before any of its code runs).

    Args:
        cpu_seconds: CPU time over the process's whole life (``RLIMIT_CPU``; SIGXCPU).
        memory_mb: address space of the whole process, interpreter included
            (``RLIMIT_AS``); an allocation beyond it fails with ``MemoryError``.
        open_files: file descriptors (``RLIMIT_NOFILE``).
        processes: processes and threads of the agent's user (``RLIMIT_NPROC``).
        file_size_mb: largest file it may write (``RLIMIT_FSIZE``; its scratch is also
            a tmpfs of this size in ``os`` mode).
        call_timeout: seconds one call may take, frames in and out included.
        startup_timeout: seconds to start the interpreter and build the agent.
        max_frame_bytes: largest message the agent may send.
        data_mb: size of its learning-data directory, where the league gives it one
            (a tmpfs of this size in ``os`` mode: writes beyond it fail).
    """

    cpu_seconds: float = 600.0
    memory_mb: int = 2048
    open_files: int = 256
    processes: int = 64
    file_size_mb: int = 64
    call_timeout: float = 60.0
    startup_timeout: float = 60.0
    max_frame_bytes: int = 1 << 22
    data_mb: int = 64

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, bool) or not isinstance(value, int | float) or not value > 0:
                raise ConfigError(f"Limits.{f.name} must be > 0, got {value!r}")
        object.__setattr__(self, "cpu_seconds", float(self.cpu_seconds))


class SandboxMode(enum.Enum):
    """How an agent is isolated from the organiser.

    ``os``: a child process in a bubblewrap sandbox (own user, PID, network, IPC, UTS and
    mount namespaces; only the runtime, the agent's own code and scratch visible).
    ``process``: a plain child process with the same limits and channel, explicitly
    weaker (see :data:`PROCESS_GIVES_UP`).
    """

    OS = "os"
    PROCESS = "process"

    @property
    def weaker(self) -> bool:
        """True for the mode that gives up OS isolation."""
        return self is SandboxMode.PROCESS

    @classmethod
    def parse(cls, text: str | SandboxMode) -> SandboxMode:
        """``"os"`` or ``"process"`` (a clear error otherwise)."""
        if isinstance(text, SandboxMode):
            return text
        for mode in cls:
            if mode.value == text:
                return mode
        raise ConfigError(f"sandbox mode must be 'os' or 'process', got {text!r}")


PROCESS_GIVES_UP = (
    "sandbox 'process' gives up OS isolation: the agent runs as the organiser's user and "
    "can read the organiser's files (results, scenarios, other entrants' code), "
    "/proc of other processes and the network; limits and the JSON channel still hold"
)
"""One line for outputs and stored results when an organiser chose ``--sandbox process``."""


class SandboxUnavailable(ConfigError):
    """The OS sandbox cannot run here; the message says why and how to fix it."""


class AgentFailure(AccordError):
    """A sandboxed agent failed; ``reason`` says how, ``agent_traceback`` where (if known).

    Once an agent fails its sandbox is closed: every later call raises the same failure.
    """

    kind = "failed"

    def __init__(self, reason: str, agent_traceback: str = "") -> None:
        super().__init__(reason)
        self.reason = reason
        self.agent_traceback = agent_traceback


class AgentTimeout(AgentFailure):
    """A call (or start-up) took longer than allowed; the process was killed."""

    kind = "timeout"


class AgentCrashed(AgentFailure):
    """The process died: a signal, a broken limit (CPU, file size), an exit."""

    kind = "crashed"


class AgentProtocolError(AgentFailure):
    """The agent sent something that is not a valid frame: not JSON, oversized, the wrong
    shape, or a frame the channel does not accept (a pickle, say); it was killed."""

    kind = "protocol"


class AgentRaised(AgentFailure):
    """The agent's code raised (any exception, ``SystemExit`` and ``KeyboardInterrupt``
    included); the process lives on and may be called again."""

    kind = "raised"

    def __init__(self, reason: str, agent_traceback: str = "", type_name: str = "") -> None:
        super().__init__(reason, agent_traceback)
        self.type_name = type_name


def rlimits_of(limits: Limits) -> dict[str, tuple[int, int]]:
    """The (soft, hard) resource limits a sandboxed process gets for ``limits``, by
    ``resource`` name (CPU rounded up to whole seconds, hard one second above soft).

    >>> limits = rlimits_of(Limits(cpu_seconds=2.5, memory_mb=1))
    >>> limits["RLIMIT_CPU"], limits["RLIMIT_AS"]
    ((3, 4), (1048576, 1048576))
    """
    cpu = max(1, int(limits.cpu_seconds + 0.999))
    mem = limits.memory_mb * 1024 * 1024
    fsize = limits.file_size_mb * 1024 * 1024
    return {
        "RLIMIT_CPU": (cpu, cpu + 1),
        "RLIMIT_AS": (mem, mem),
        "RLIMIT_NOFILE": (limits.open_files, limits.open_files),
        "RLIMIT_NPROC": (limits.processes, limits.processes),
        "RLIMIT_FSIZE": (fsize, fsize),
    }


def preexec(
    limits: Limits, nproc: bool = True, first: Callable[[], None] | None = None
) -> Callable[[], None]:
    """What a sandbox's process runs between fork and exec: ``first()`` (staging the
    mounts and dropping root, say), then the hard limits of :func:`rlimits_of` and no
    core files (``nproc=False``: all but ``RLIMIT_NPROC``, which the launcher sets inside
    its user namespace)."""
    table = [
        (getattr(resource, name), value)
        for name, value in rlimits_of(limits).items()
        if nproc or name != "RLIMIT_NPROC"
    ]
    table.append((resource.RLIMIT_CORE, (0, 0)))

    def apply() -> None:  # in the child, between fork and exec: before any agent code
        if first is not None:
            first()
        for res, value in table:
            resource.setrlimit(res, value)

    return apply


class StderrTail:
    """The last ``size`` bytes (about) a child process writes to ``stream`` (its stderr),
    read by a daemon thread from the start so that the pipe never fills; for crash reports.
    """

    def __init__(self, stream: IO[bytes], size: int) -> None:
        self.size = size
        self._chunks: collections.deque[bytes] = collections.deque()
        threading.Thread(target=self._drain, args=(stream,), daemon=True).start()

    def _drain(self, stream: IO[bytes]) -> None:
        held = 0
        while True:
            try:
                chunk = stream.read1(65536)  # type: ignore[attr-defined]
            except (OSError, ValueError):  # closed under us: nothing more to keep
                return
            if not chunk:
                return
            self._chunks.append(chunk)
            held += len(chunk)
            while held > self.size and len(self._chunks) > 1:
                held -= len(self._chunks.popleft())

    def text(self) -> str:
        """What is kept, decoded (at most ``size`` characters)."""
        return b"".join(self._chunks).decode("utf-8", "replace")[-self.size :]
