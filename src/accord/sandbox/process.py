"""One sandboxed agent process: :class:`Sandbox` and :func:`start_sandbox`.

The organiser's side of the channel: it starts the process (under bubblewrap in ``os``
mode), sends requests as frames, reads answers with a deadline on every frame, checks
each answer's shape, and turns every way an agent can fail into one typed
:class:`~accord.sandbox.limits.AgentFailure`. Nothing the agent sends is unpickled or
evaluated. The child's stdout is discarded and its stderr drained into a capped tail
(shown with a crash), so a flood can neither block nor corrupt anything.

    >>> box = start_sandbox("accord.sandbox.host:EchoHost", "echo", mode="process")
    >>> box.call("echo", {"x": [1, 2]})
    {'x': [1, 2]}
    >>> box.close()
"""

from __future__ import annotations

import contextlib
import functools
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from accord.sandbox.bwrap import (
    BYTECODE,
    SCRATCH,
    bwrap_command,
    bytecode_root,
    next_uid,
    os_strategy,
    runtime_paths,
    stage_and_drop,
)
from accord.sandbox.datadir import DATA_IN, open_data, save_data
from accord.sandbox.frames import NOTHING, FrameReader, FrameTimeout, PeerClosed, write_frame
from accord.sandbox.limits import (
    AgentCrashed,
    AgentFailure,
    AgentProtocolError,
    AgentRaised,
    AgentTimeout,
    Limits,
    SandboxMode,
    SandboxUnavailable,
    StderrTail,
    rlimits_of,
)
from accord.sandbox.limits import preexec as _preexec
from accord.sandbox.seccomp import seccomp_fd

if TYPE_CHECKING:
    from accord.sandbox.zygote import ForkedProcess

__all__ = ["Sandbox", "probe", "sandbox_available", "start_sandbox"]

Serve = Callable[[str, Any], Any]
_BOOT = (
    "import sys; sys.path[:] = {path!r} + [p for p in sys.path if p not in {path!r}]; "
    "import accord._bytecode as b; b.install({pyc!r}); del b; "
    "from accord.sandbox.launcher import main; main({rfd}, {wfd})"
)
_TAIL = 8192  # bytes of the agent's stderr kept for crash reports
_SIGNALS = {
    signal.SIGXCPU: "the CPU-time limit of {cpu:g} s was exceeded",
    signal.SIGXFSZ: "the file-size limit of {fsize} MB was exceeded",
    signal.SIGKILL: "killed (SIGKILL: the CPU hard limit, or the kernel)",
    signal.SIGSEGV: "a segmentation fault",
    signal.SIGSYS: "a system call of another ABI, refused by the seccomp filter",
}


class Sandbox:
    """One agent in a process of its own, started at once (ready at the first call).

    Args:
        host: ``"pkg.module:HostClass"``, trusted code that builds the agent inside.
        agent: what the host builds (a built-in name or ``pkg.module:Class``).
        code_paths: directories put on the agent's ``sys.path`` (mounted read-only).
        code_mounts: further files or directories of the agent's code, mounted
            read-only but not put on ``sys.path`` (say a package inside a bigger folder).
        data_dir: the agent's own learning-data directory where allowed: in ``os`` mode a
            tmpfs of ``limits.data_mb`` filled from it and copied back when the sandbox
            ends (:mod:`accord.sandbox.datadir`); in ``process`` mode the directory itself.
        limits: see :class:`~accord.sandbox.limits.Limits`.
        mode: ``"os"`` (bubblewrap) or ``"process"`` (weaker; see ``PROCESS_GIVES_UP``).
        extra: JSON-able settings passed to the host as ``context.extra``.
        fork: in ``os`` mode without ``data_dir``, fork the sandbox from this process's
            zygote for the host, code and limits (:mod:`accord.sandbox.zygote`: the same
            isolation, a fraction of the start-up) where the kernel allows it.
        preload: Accord modules the zygote imports once for its children (say the
            tournament's built-in agents); never an agent's own modules.
    """

    def __init__(
        self,
        host: str,
        agent: str,
        *,
        code_paths: Sequence[str] = (),
        code_mounts: Sequence[str] = (),
        data_dir: str | None = None,
        limits: Limits | None = None,
        mode: SandboxMode | str = SandboxMode.OS,
        extra: dict[str, Any] | None = None,
        fork: bool = False,
        preload: Sequence[str] = (),
    ) -> None:
        self.host, self.agent = host, agent
        self.limits = limits or Limits()
        self.mode = SandboxMode.parse(mode)
        self.failure: AgentFailure | None = None
        self.startup_seconds: float | None = None
        self._closed = False
        self._stderr: StderrTail | None = None  # once the process runs
        self._tmp: str | None = None
        self._data: tuple[int, str] | None = None  # the tmpfs's fd, and its host directory
        self._data_dir = (
            os.path.realpath(data_dir)
            if data_dir is not None and self.mode is SandboxMode.OS
            else None
        )
        started = time.monotonic()
        req_r, req_w = os.pipe()
        ans_r, ans_w = os.pipe()
        prog_r, prog_w = os.pipe()  # one byte a call the host reports done (see progress)
        zygote = None
        if fork and self.mode is SandboxMode.OS and data_dir is None:
            from accord.sandbox.zygote import zygote_for

            zygote = zygote_for(host, code_paths, code_mounts, self.limits, preload)
        if zygote is not None:
            from accord.sandbox.forkserver import PROG

            try:
                self._proc: subprocess.Popen[bytes] | ForkedProcess = zygote.spawn(
                    req_r, ans_w, prog_w
                )
            except OSError:  # the zygote is gone: this one starts on its own
                zygote = None
        if zygote is not None:
            for fd in (req_r, ans_w, prog_w):
                os.close(fd)
            self._start(started, req_w, ans_r, prog_r)
            self._configure(host, agent, code_paths, data_dir, None, SCRATCH, PROG, None, extra)
            return
        _, path = runtime_paths()
        inner = [
            os.path.realpath(sys.executable), "-I", "-S", "-B", "-c",
            _BOOT.format(
                path=path,
                pyc=BYTECODE if self.mode is SandboxMode.OS and bytecode_root() else bytecode_root(),
                rfd=req_r,
                wfd=ans_w,
            ),
        ]  # fmt: skip
        drop = None
        fds = [req_r, ans_w, prog_w]
        mounts = None
        run_as: int | None = None  # bwrap's own uid (root organiser, "uid-userns")
        first: Callable[[], None] | None = None
        nproc_outside = True
        if self.mode is SandboxMode.OS:
            strategy = os_strategy()
            if os.geteuid() == 0:
                uid = next_uid()
                if strategy == "drop":
                    drop = (uid, uid)
                else:
                    run_as = uid
            else:  # the organiser's uid: counted inside the user namespace only
                nproc_outside = False
            mounts = bwrap_command(
                inner,
                code_paths=code_paths,
                code_mounts=code_mounts,
                data_dir=data_dir,
                scratch_bytes=self.limits.file_size_mb * 1024 * 1024,
                drop_root=drop is not None,
                seccomp=seccomp_fd(),
                staged=run_as is not None,
                data_bytes=self.limits.data_mb << 20,
                bytecode=bytecode_root(),
            )
            if run_as is not None:
                first = stage_and_drop(mounts.stage, run_as)
            args, scratch, cwd = mounts.args, SCRATCH, None
            fds += mounts.fds
        else:
            self._tmp = tempfile.mkdtemp(prefix="accord-agent-")
            args, scratch, cwd = inner, self._tmp, self._tmp
        try:
            self._proc = subprocess.Popen(
                args,
                pass_fds=fds,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                cwd=cwd,
                preexec_fn=_preexec(self.limits, nproc_outside, first),  # noqa: PLW1509
                start_new_session=True,
            )
        finally:
            os.close(req_r)
            os.close(ans_w)
            os.close(prog_w)
            if mounts is not None:
                mounts.close()
        self._start(started, req_w, ans_r, prog_r)
        self._configure(host, agent, code_paths, data_dir, mounts, scratch, prog_w, drop, extra)

    def _start(self, started: float, req_w: int, ans_r: int, prog_r: int) -> None:
        """The organiser's ends of the channel, and the thread draining stderr."""
        self._w = req_w
        os.set_blocking(req_w, False)
        self._reader = FrameReader(ans_r, self.limits.max_frame_bytes)
        self._progress = prog_r
        os.set_blocking(prog_r, False)
        self._done = 0  # calls reported done since the last submit
        self._progress_closed = False
        self._started = started
        self._lock = threading.Lock()
        assert self._proc.stderr is not None
        self._stderr = StderrTail(self._proc.stderr, _TAIL)
        self._ready = False
        self._deadline, self._op, self._limit = 0.0, "", 0.0

    def _configure(
        self,
        host: str,
        agent: str,
        code_paths: Sequence[str],
        data_dir: str | None,
        mounts: Any,
        scratch: str,
        progress_fd: int,
        drop: tuple[int, int] | None,
        extra: dict[str, Any] | None,
    ) -> None:
        """Send the launcher its configuration, the first frame."""
        config = {
            "host": host,
            "agent": agent,
            "code_paths": [os.path.realpath(p) for p in code_paths],
            "data_dir": os.path.realpath(data_dir) if data_dir is not None else None,
            "data_in": DATA_IN if data_dir is not None and mounts is not None else None,
            "data_mb": self.limits.data_mb,
            "scratch": scratch,
            "progress_fd": progress_fd,
            "drop": drop,
            "rlimits": rlimits_of(self.limits),
            "extra": extra or {},
        }
        deadline = self._started + self.limits.startup_timeout
        with contextlib.suppress(FrameTimeout, PeerClosed):  # the first call says why
            write_frame(self._w, config, deadline, trusted_pickle=True)

    # -- public API ---------------------------------------------------------------------
    @property
    def alive(self) -> bool:
        """True while the process may still answer."""
        return self.failure is None and not self._closed and self._proc.poll() is None

    @property
    def pid(self) -> int:
        return self._proc.pid

    def call(
        self,
        op: str,
        payload: Any = None,
        timeout: float | None = None,
        *,
        serve: Serve | None = None,
        trusted_pickle: bool = False,
    ) -> Any:
        """Send ``op`` with ``payload``; the host's JSON answer.

        ``serve(name, args)`` answers the host's questions during the call (its answer
        may be any picklable object when ``trusted_pickle``; raise
        :class:`AgentProtocolError` there to reject a question and kill the agent).
        ``timeout`` (default ``limits.call_timeout``) bounds the whole call.
        Raises an :class:`AgentFailure`; after any but :class:`AgentRaised` the process
        is gone and every later call raises the same kind of failure.
        """
        with self._lock:
            return self._call(op, payload, timeout, serve, trusted_pickle)

    def receive(self, op: str, timeout: float | None = None) -> Any:
        """The next answer without sending a request: the second frame of a call whose
        host returned a :class:`~accord.sandbox.host.Then` (``op`` names it in errors).
        Same deadline, checks and failures as :meth:`call`."""
        with self._lock:
            return self._call(op, None, timeout, None, False, send=False)

    # -- one request in flight, answered later (for callers that serve many sandboxes) --
    def submit(
        self, op: str, payload: Any, timeout: float, *, trusted_pickle: bool = False
    ) -> None:
        """Send ``op`` without waiting for its answer: collect it with
        :meth:`poll_answer` once :attr:`answer_fd` is readable, before :attr:`deadline`
        (``timeout`` seconds from now, plus what is left of the start-up time if the
        process is not ready yet). One request at a time; no ``serve`` questions.
        Raises an :class:`AgentFailure` if the request cannot be sent."""
        if self.failure is not None:
            raise type(self.failure)(self.failure.reason, self.failure.agent_traceback)
        if self._closed:
            raise AgentCrashed("the sandbox was closed")
        now = time.monotonic()
        start = now if self._ready else max(now, self._started + self.limits.startup_timeout)
        self._deadline, self._op, self._limit = start + timeout, op, timeout
        self._read_progress()  # what an earlier request reported is not this one's
        self._done = 0
        try:
            write_frame(
                self._w,
                {"op": op, "payload": payload},
                self._deadline,
                trusted_pickle=trusted_pickle,
            )
        except (FrameTimeout, PeerClosed) as exc:
            self._failed(exc, f"{op}() could not be sent within {timeout:g} s")

    def abandon(self, failure: AgentFailure) -> None:
        """Kill the process for ``failure`` (an answer its caller found malformed): later
        calls raise the same kind of failure."""
        if self.failure is None:
            self._kill()
            self.failure = failure

    @property
    def answer_fd(self) -> int:
        """The pipe the answers arrive on (poll it for reading)."""
        return self._reader.fd

    @property
    def deadline(self) -> float:
        """When the submitted request's answer is due (``time.monotonic()``)."""
        return self._deadline

    @property
    def ready(self) -> bool:
        """True once the process has said it started (its first answer can come)."""
        return self._ready

    def progress(self) -> int:
        """How many parts of the :meth:`submit` ted request the host has reported done
        (:meth:`HostContext.report <accord.sandbox.host.HostContext.report>`), so a
        caller can time each part on its own. Never waits. The agent's own code can
        fake it: trust it only up to :attr:`deadline`."""
        self._read_progress()
        return self._done

    @property
    def progress_fd(self) -> int | None:
        """The pipe :meth:`progress` reads (poll it to wake at each report), or None
        once the host closed it (a closed pipe would wake a poll at once, forever)."""
        return None if self._progress_closed else self._progress

    def _read_progress(self) -> None:
        if self._progress_closed:
            return
        try:
            while chunk := os.read(self._progress, 65536):
                self._done += len(chunk)
                if len(chunk) < 65536:
                    return
            self._progress_closed = True  # end of file: the host closed its end
        except BlockingIOError:
            return
        except OSError:
            self._progress_closed = True

    def poll_answer(self) -> tuple[bool, Any]:
        """``(True, answer)`` once the answer of the :meth:`submit` ted request has
        arrived whole, ``(False, None)`` if not yet (never waits). Same checks and
        failures as :meth:`call`; past :attr:`deadline` an :class:`AgentTimeout`."""
        try:
            while True:
                msg = self._reader.try_read()
                if msg is NOTHING:
                    if time.monotonic() > self._deadline:
                        raise FrameTimeout
                    return False, None
                if not self._ready:
                    self._check_ready(msg)
                    continue
                return True, _value(msg)
        except AgentRaised:
            raise
        except (FrameTimeout, PeerClosed, AgentFailure) as exc:
            self._failed(
                exc,
                f"{self._op}() did not answer within {self._limit:g} s"
                if self._ready
                else f"the agent did not start within {self.limits.startup_timeout:g} s",
            )

    def shut(self) -> None:
        """Tell the process to end, without waiting for it; :meth:`close` must follow
        (closing many sandboxes, shut them all first: their exits overlap)."""
        if self._closed or self._w < 0:
            return
        if self._ready and self.failure is None and self._proc.poll() is None:
            with contextlib.suppress(FrameTimeout, PeerClosed, OSError):
                write_frame(self._w, {"op": "__close__"}, time.monotonic() + 0.2)
        os.close(self._w)
        self._w = -1

    def close(self) -> None:
        """End the process (idempotent; quick: the launcher exits when the pipe closes)."""
        if self._closed:
            return
        self.shut()
        self._closed = True
        try:
            self._proc.wait(1.0)
        except subprocess.TimeoutExpired:
            self._kill()
        os.close(self._reader.fd)
        os.close(self._progress)
        if not isinstance(self._proc, subprocess.Popen):
            self._proc.close()
        if self._tmp is not None:
            shutil.rmtree(self._tmp, ignore_errors=True)
        if self._data is not None:
            fd, where = self._data
            self._data = None
            try:
                save_data(fd, Path(where), self.limits.data_mb << 20)
            except OSError:
                pass  # the stored copy stays as it was
            finally:
                os.close(fd)

    def stderr_tail(self) -> str:
        """The last few kilobytes the agent wrote to stderr."""
        return "" if self._stderr is None else self._stderr.text()

    def __enter__(self) -> Sandbox:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- plumbing -----------------------------------------------------------------------
    def _call(
        self,
        op: str,
        payload: Any,
        timeout: float | None,
        serve: Serve | None,
        pickled: bool,
        *,
        send: bool = True,
    ) -> Any:
        if self.failure is not None:
            raise type(self.failure)(self.failure.reason, self.failure.agent_traceback)
        if self._closed:
            raise AgentCrashed("the sandbox was closed")
        if not self._ready:
            self._wait_ready()
        limit = timeout if timeout is not None else self.limits.call_timeout
        deadline = time.monotonic() + limit
        try:
            if send:
                write_frame(
                    self._w, {"op": op, "payload": payload}, deadline, trusted_pickle=pickled
                )
            while True:
                msg = self._reader.read(deadline)
                if (
                    serve is not None
                    and isinstance(msg, dict)
                    and msg.get("t") == "ask"
                    and isinstance(msg.get("name"), str)
                ):
                    try:
                        reply = {"value": serve(msg["name"], msg.get("args"))}
                    except AgentFailure:
                        raise
                    except Exception as exc:  # noqa: BLE001 - a bad question: the agent's
                        reply = {"error": f"{type(exc).__name__}: {exc}"[:2000]}
                    write_frame(self._w, reply, deadline, trusted_pickle=pickled)
                    continue
                return _value(msg)
        except AgentRaised:
            raise
        except (FrameTimeout, PeerClosed, AgentFailure) as exc:
            self._failed(exc, f"{op}() did not answer within {limit:g} s")

    def _wait_ready(self) -> None:
        deadline = self._started + self.limits.startup_timeout
        while not self._ready:
            try:
                msg = self._reader.read(deadline)
            except (FrameTimeout, PeerClosed, AgentFailure) as exc:
                self._failed(
                    exc, f"the agent did not start within {self.limits.startup_timeout:g} s"
                )
            self._check_ready(msg)

    def _check_ready(self, msg: Any) -> None:
        """The first message: ``ready``, or why the agent could not start."""
        kind = msg.get("t") if isinstance(msg, dict) else None
        if kind == "confined" and self._data_dir is not None and self._data is None:
            # its data is in place and none of its code has run: hold the tmpfs now
            fd = open_data(self._proc.pid, self._data_dir)
            if fd is not None:
                self._data = (fd, self._data_dir)
            return  # "ready" comes next
        if kind == "fatal":
            self._fail(
                AgentCrashed(
                    f"could not start the agent {self.agent!r}: {_text(msg.get('error'), 2000)}",
                    _text(msg.get("traceback"), 8000),
                )
            )
        if kind != "ready":
            self._fail(AgentProtocolError(f"the agent sent {msg!r:.120} instead of starting"))
        self._ready = True
        self.startup_seconds = time.monotonic() - self._started

    def _fail(self, exc: AgentFailure) -> NoReturn:
        self._kill()
        self.failure = exc
        raise exc

    def _failed(self, exc: Exception, timed_out: str) -> NoReturn:
        """Kill the process for what went wrong on its channel and raise it as an
        :class:`AgentFailure`: a frame past its deadline is an :class:`AgentTimeout`
        (``timed_out`` says what was late), a closed pipe the crash that closed it, a
        malformed frame itself."""
        if isinstance(exc, FrameTimeout):
            self._fail(AgentTimeout(f"{timed_out}; the process was killed"))
        if isinstance(exc, AgentFailure):
            self._fail(exc)
        self._fail(self._crash())

    def _kill(self) -> None:
        if self._proc.poll() is None:
            try:
                if isinstance(self._proc, subprocess.Popen):
                    os.killpg(self._proc.pid, signal.SIGKILL)
                else:  # forked by a zygote: its PID namespace goes with its first process
                    self._proc.kill()
            except (ProcessLookupError, PermissionError):
                self._proc.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):  # a process in D state
            self._proc.wait(5.0)

    def _crash(self) -> AgentCrashed:
        try:
            code = self._proc.wait(2.0)
        except subprocess.TimeoutExpired:
            self._kill()
            return AgentCrashed("the agent closed its channel; the process was killed")
        sig = (
            -code if code < 0 else (code - 128 if self.mode is SandboxMode.OS and code > 128 else 0)
        )
        tail = self.stderr_tail()
        if sig > 0:
            try:
                name = signal.Signals(sig).name
            except ValueError:
                name = f"signal {sig}"
            why = _SIGNALS.get(sig, "").format(  # type: ignore[call-overload]
                cpu=self.limits.cpu_seconds, fsize=self.limits.file_size_mb
            )
            return AgentCrashed(
                f"the agent process died from {name}" + (f" ({why})" if why else ""), tail
            )
        if "MemoryError" in tail:
            return AgentCrashed(
                f"the agent process ran out of memory (limit {self.limits.memory_mb} MB) "
                f"and exited with code {code}",
                tail,
            )
        return AgentCrashed(f"the agent process exited unexpectedly (exit code {code})", tail)


def _value(msg: Any) -> Any:
    """The value of an answer frame; :class:`AgentRaised` for an exception the host
    sent back, :class:`AgentProtocolError` for any other message."""
    kind = msg.get("t") if isinstance(msg, dict) else None
    if kind == "ok" and "value" in msg:
        return msg["value"]
    if kind == "raised":
        raise AgentRaised(
            _text(msg.get("error"), 2000),
            _text(msg.get("traceback"), 8000),
            _text(msg.get("type"), 100),
        )
    raise AgentProtocolError(f"the agent sent a message of the wrong shape: {msg!r:.120}")


def _text(x: Any, cap: int) -> str:
    return (x if isinstance(x, str) else repr(x))[:cap]


def start_sandbox(
    host: str,
    agent: str,
    *,
    code_paths: Sequence[str] = (),
    code_mounts: Sequence[str] = (),
    data_dir: str | None = None,
    limits: Limits | None = None,
    mode: SandboxMode | str = SandboxMode.OS,
    extra: dict[str, Any] | None = None,
    fork: bool = False,
    preload: Sequence[str] = (),
) -> Sandbox:
    """A started :class:`Sandbox`; in ``os`` mode raises :class:`SandboxUnavailable` (one
    line: why and how to fix it) where bubblewrap cannot run. ``fork``, ``preload``: see
    :class:`Sandbox`."""
    mode = SandboxMode.parse(mode)
    if mode is SandboxMode.OS:
        reason = sandbox_available()
        if reason is not None:
            raise SandboxUnavailable(reason)
    return Sandbox(
        host,
        agent,
        code_paths=code_paths,
        code_mounts=code_mounts,
        data_dir=data_dir,
        limits=limits,
        mode=mode,
        extra=extra,
        fork=fork,
        preload=preload,
    )


def probe() -> str | None:
    """Start one trivial ``os`` sandbox: None if it answers, else why not (one line)."""
    try:
        box = Sandbox("accord.sandbox.host:EchoHost", "probe", limits=Limits(startup_timeout=30))
    except OSError as exc:
        return f"bubblewrap could not start ({exc}); apt-get install bubblewrap, or --sandbox process (weaker)"
    try:
        if box.call("echo", 1) == 1:
            return None
        return "the OS sandbox answered wrongly to a probe; use --sandbox process (weaker)"
    except AgentFailure as exc:
        detail = (box.stderr_tail().strip().splitlines() or [exc.reason])[-1]
        return (
            f"bubblewrap cannot create the sandbox here ({detail[:200]}); enable unprivileged "
            "user namespaces (sysctl kernel.unprivileged_userns_clone=1) or run as root, or "
            "run with --sandbox process (weaker)"
        )
    finally:
        box.close()


@functools.cache
def sandbox_available() -> str | None:
    """None if the ``os`` sandbox can run here, else one line saying why and how to fix it.

    Cached per process (it starts one trivial sandbox to find out).
    """
    if not sys.platform.startswith("linux"):
        return (
            f"the OS sandbox needs Linux with bubblewrap (this is {sys.platform}); "
            "run with --sandbox process to accept a weaker, process-only isolation"
        )
    if shutil.which("bwrap") is None:
        return (
            "the OS sandbox needs bubblewrap, which is not installed: "
            "apt-get install bubblewrap (or run with --sandbox process, weaker)"
        )
    return probe()
