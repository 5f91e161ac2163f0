"""Zygotes: one pre-started sandbox per set of mounts that forks the sandboxes of a run.

Starting an ``os`` sandbox costs about 0.09 s of CPU (bubblewrap, the interpreter,
numpy and Accord: two thirds of it importing numpy), paid again by every sandbox: a
tournament gives each agent one sandbox per side (:mod:`accord.tournament.admission`),
12 for four agents on a 3-party scenario. A :class:`Zygote` pays it once: a bubblewrap
sandbox with the same mounts and limits as the sandboxes it makes, in which only
Accord's code runs (the interpreter, numpy, Accord, the host's module; **never an
agent's code**: an agent module imported there could leave its children a shared
page, a socket or a hook). Each :meth:`Zygote.spawn` forks a child that confines
itself before the agent is imported (:mod:`accord.sandbox.forkserver`): its own user,
mount, network, IPC, UTS, cgroup and PID namespaces, its own ``/proc``, scratch
``/tmp``, ``/dev/shm`` and ``/dev/pts``, a read-only root, no capabilities, not
dumpable, ``no_new_privs`` and the seccomp filter. The child is then a
:class:`~accord.sandbox.Sandbox` like one bubblewrap started: the same channel, limits
and failures (:class:`ForkedProcess` stands in for its process).

Zygotes are kept per process, one per host, agent code mounts and limits
(:func:`zygote_for`), and closed by :func:`close_zygotes` (at exit too). Where the kernel
does not let a sandbox make namespaces (the ``drop`` strategy of a root organiser
without unprivileged user namespaces), :func:`zygote_for` gives None and sandboxes start
as before, one bubblewrap each.
"""

from __future__ import annotations

import array
import atexit
import contextlib
import dataclasses
import json
import os
import select
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from typing import Any

from accord.sandbox.limits import Limits, StderrTail, preexec

__all__ = ["ForkedProcess", "Zygote", "close_zygotes", "forking_unavailable", "zygote_for"]

_TRIAL = r"""
def _trial():
    import ctypes, os
    libc = ctypes.CDLL(None, use_errno=True)
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        why = b"ok"
        try:
            uid, gid = os.getuid(), os.getgid()
            if libc.unshare(0x7E020000) != 0:
                raise OSError(ctypes.get_errno(), "unshare")
            for name, text in (("setgroups", "deny"), ("uid_map", "%d %d 1" % (uid, uid)),
                               ("gid_map", "%d %d 1" % (gid, gid))):
                with open("/proc/self/" + name, "w") as f:
                    f.write(text)
            inner = os.fork()
            if inner == 0:
                for args in ((None, b"/", None, 0x44000, None),
                             (b"tmpfs", b"/tmp", b"tmpfs", 6, b"size=1m"),
                             (b"proc", b"/proc", b"proc", 14, None)):
                    if libc.mount(*args) != 0:
                        os._exit(ctypes.get_errno() or 1)
                os._exit(0)
            _, status = os.waitpid(inner, 0)
            if status:
                why = ("mount: " + os.strerror(os.WEXITSTATUS(status))).encode()
        except OSError as exc:
            why = str(exc).encode()[:300]
        os.write(w, why)
        os._exit(0)
    os.close(w)
    os.waitpid(pid, 0)
    why = os.read(r, 400).decode(errors="replace")
    os.close(r)
    return why
"""
"""The zygote's first act, before it imports anything of Accord (numpy is most of its
start-up): fork a child that makes the namespaces and mounts a forked sandbox needs and
say whether it could, so the organiser learns within a few milliseconds whether to fork
(stdlib only; new user, mount, network, IPC, UTS, cgroup and PID namespaces, then a
private ``/tmp`` and ``/proc``)."""
_ZYGOTE_BOOT = (
    _TRIAL
    + "import json, os, socket, sys\n"
    + "why = _trial(); ctl = socket.socket(fileno={ctl})\n"
    + "ctl.send(json.dumps({{'t': 'forkable'}} if why == 'ok' else {{'t': 'fatal', 'error': "
    + "'cannot fork confined sandboxes here (' + why + ')'}}).encode()); ctl.detach()\n"
    + "if why != 'ok': os._exit(3)\n"
    + "sys.path[:] = {path!r} + [p for p in sys.path if p not in {path!r}]\n"
    + "import accord._bytecode as b; b.install({pyc!r}); del b\n"
    + "from accord.sandbox.forkserver import serve; serve({ctl})\n"
)
_NPROC_SHARE = 64
"""A zygote's ``RLIMIT_NPROC`` outside is this many times a sandbox's: each child sets
its own limit in its own user namespace, so one child's fork bomb never uses up the
processes its siblings may start."""


class ForkedProcess:
    """The organiser's handle on a sandbox forked by a zygote, with the part of
    :class:`subprocess.Popen`'s interface :class:`~accord.sandbox.Sandbox` uses:
    ``pid`` (in this PID namespace), ``poll``, ``wait``, ``kill`` and ``stderr``. Its
    exit code is what the zygote's child reports (``128 + n`` for a death by signal
    ``n``, as bubblewrap reports it); it is killed through a pidfd."""

    def __init__(self, status: socket.socket, stderr_fd: int) -> None:
        self._owner = os.getpid()  # a process forked from this one (a worker) only sees it
        self._status = status
        self._pidfd: int | None = None
        self._pid = 0
        self.returncode: int | None = None
        self.stderr = open(stderr_fd, "rb")  # noqa: SIM115 - drained by a thread
        self._lock = threading.Lock()

    @property
    def pid(self) -> int:
        """Its pid here (0 until the zygote has said it, or if it could not)."""
        self._read(0.0)
        return self._pid

    def _read(self, timeout: float) -> None:
        """Read what the zygote's child reported (its pidfd, then its exit), waiting up
        to ``timeout`` seconds for the exit. In a process forked from the one that
        started it, it is gone at once (as :class:`subprocess.Popen` says of a process
        that is not one's child): the forked process must not use it, nor end it."""
        if os.getpid() != self._owner:
            self.returncode = 0 if self.returncode is None else self.returncode
            return
        with self._lock:
            deadline = time.monotonic() + timeout
            if self._status.fileno() < 0 and self.returncode is None:  # closed unread
                self.returncode = 128 + signal.SIGKILL
            while self.returncode is None:
                left = max(0.0, deadline - time.monotonic())
                ready = _readable(self._status, left)
                if not ready:
                    return
                fds = array.array("i")
                try:
                    msg, anc, _, _ = self._status.recvmsg(256, socket.CMSG_SPACE(fds.itemsize))
                except OSError:
                    msg, anc = b"", []
                for level, kind, data in anc:
                    if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                        fds.frombytes(data[: len(data) - (len(data) % fds.itemsize)])
                if fds:
                    self._pidfd = fds[0]
                    for extra in fds[1:]:
                        os.close(extra)
                    self._pid = _pid_of(self._pidfd)
                    continue
                if msg.startswith(b"exit "):
                    self.returncode = int(msg[5:])
                elif not msg:  # the zygote's child is gone without a word
                    self.returncode = 128 + signal.SIGKILL
                self._close_pidfd()

    def poll(self) -> int | None:
        self._read(0.0)
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        self._read(3600.0 if timeout is None else timeout)
        if self.returncode is None:
            raise subprocess.TimeoutExpired("forked sandbox", timeout or 0.0)
        return self.returncode

    def kill(self) -> None:
        """SIGKILL to the sandbox's first process (its PID namespace goes with it)."""
        if self.returncode is not None or os.getpid() != self._owner:
            return
        if self._pidfd is None:
            self._read(0.0)
            deadline = time.monotonic() + 5.0
            while self._pidfd is None and self.returncode is None and time.monotonic() < deadline:
                time.sleep(0.005)
                self._read(0.0)
        if self._pidfd is not None:
            with contextlib.suppress(OSError):
                signal.pidfd_send_signal(self._pidfd, signal.SIGKILL)

    def _close_pidfd(self) -> None:
        if self._pidfd is not None:
            os.close(self._pidfd)
            self._pidfd = None

    def close(self) -> None:
        """Release the handle's descriptors (after the process has ended)."""
        with self._lock:
            self._close_pidfd()
            self._status.close()
        # stderr: the thread draining it reads to its end (the process has ended) and
        # the file is closed when it is collected


def _readable(sock: socket.socket, timeout: float) -> bool:
    """Whether ``sock`` has something to read (or its end) within ``timeout`` seconds
    (``poll``: any fd number, where ``select`` stops at 1023)."""
    poller = select.poll()
    poller.register(sock.fileno(), select.POLLIN)
    return bool(poller.poll(max(0, int(timeout * 1000 + 0.999))))


def _pid_of(pidfd: int) -> int:
    try:
        with open(f"/proc/self/fdinfo/{pidfd}") as f:
            for line in f:
                if line.startswith("Pid:"):
                    return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return 0


class Zygote:
    """A started zygote for sandboxes of ``host`` with these code mounts and limits
    (see the module docstring). :meth:`spawn` never waits for it."""

    def __init__(
        self,
        host: str,
        *,
        code_paths: Sequence[str] = (),
        code_mounts: Sequence[str] = (),
        limits: Limits,
        preload: Sequence[str] = (),
    ) -> None:
        from accord.sandbox.bwrap import (
            BYTECODE,
            bwrap_command,
            bytecode_root,
            next_uid,
            os_strategy,
            runtime_paths,
            stage_and_drop,
        )

        self.limits = limits
        self._owner = os.getpid()  # processes forked from this one (workers) share it
        self.failure: str | None = None
        self._ready = False
        self._lock = threading.Lock()
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        _, path = runtime_paths()
        inner = [
            os.path.realpath(sys.executable), "-I", "-S", "-B", "-c",
            _ZYGOTE_BOOT.format(path=path, pyc=BYTECODE if bytecode_root() else None, ctl=theirs.fileno()),
        ]  # fmt: skip
        root = os.geteuid() == 0
        mounts = bwrap_command(
            inner,
            code_paths=code_paths,
            code_mounts=code_mounts,
            data_dir=None,
            scratch_bytes=1 << 20,
            drop_root=False,
            seccomp=None,
            staged=root,
            bytecode=bytecode_root(),
            forking=True,
        )
        share = dataclasses.replace(limits, processes=limits.processes * _NPROC_SHARE)
        first = stage_and_drop(mounts.stage, next_uid()) if root else None
        assert os_strategy() != "drop"
        try:
            self._proc = subprocess.Popen(
                mounts.args,
                pass_fds=[theirs.fileno(), *mounts.fds],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                preexec_fn=preexec(share, root, first),  # noqa: PLW1509
                start_new_session=True,
            )
        finally:
            theirs.close()
            mounts.close()
        self._ctl = ours
        assert self._proc.stderr is not None
        self._stderr = StderrTail(self._proc.stderr, 4096)
        ours.send(json.dumps({"host": host, "preload": list(preload)}).encode())

    def wait_ready(self, timeout: float) -> str | None:
        """None once the zygote said it can fork sandboxes (its first act, before its
        imports), else why not (it is then closed)."""
        with self._lock:
            if self._ready or self.failure is not None:
                return self.failure
            ready = _readable(self._ctl, timeout)
            try:
                said = json.loads(self._ctl.recv(65536)) if ready else {"error": "no answer"}
            except (OSError, ValueError):
                said = {}
            if said.get("t") in ("forkable", "ready"):
                self._ready = True
                return None
            tail = self._stderr.text().strip().splitlines()
            self.failure = str(said.get("error") or (tail[-1] if tail else "it exited"))[:300]
        self.close()
        return self.failure

    @property
    def alive(self) -> bool:
        """False once it failed or ended (a forked process, which cannot tell, assumes it
        lives: a spawn then fails with :class:`OSError` if it does not)."""
        if os.getpid() != self._owner:
            return self.failure is None
        return self.failure is None and self._proc.poll() is None

    def spawn(self, req_r: int, ans_w: int, prog_w: int) -> ForkedProcess:
        """Fork a sandbox whose channel is these pipe ends (the child's; the caller
        closes its copies). Raises :class:`OSError` if the zygote is gone."""
        err_r, err_w = os.pipe()
        status, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            fds = [req_r, ans_w, prog_w, err_w, theirs.fileno()]
            request = json.dumps({"scratch_bytes": self.limits.file_size_mb << 20}).encode()
            self._ctl.sendmsg(
                [request], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", fds))]
            )
        except OSError:
            os.close(err_r)
            status.close()
            raise
        finally:
            os.close(err_w)
            theirs.close()
        return ForkedProcess(status, err_r)

    def close(self) -> None:
        """End the zygote (its children end with it: they live in its PID namespace).
        In a process forked from the one that started it, only drop this one's handle."""
        with contextlib.suppress(OSError):
            self._ctl.close()
        if os.getpid() != self._owner:
            return
        try:
            self._proc.wait(1.0)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self._proc.pid, signal.SIGKILL)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self._proc.wait(5.0)


_zygotes: dict[tuple[Any, ...], Zygote] = {}
_unavailable: list[str] = []  # why forking cannot work here, once found
_LOCK = threading.Lock()


def forking_unavailable() -> str | None:
    """Why this process's sandboxes cannot be forked from zygotes (None: they can, or
    it is not known yet)."""
    return _unavailable[0] if _unavailable else None


def zygote_for(
    host: str,
    code_paths: Sequence[str],
    code_mounts: Sequence[str],
    limits: Limits,
    preload: Sequence[str] = (),
) -> Zygote | None:
    """This process's zygote for such sandboxes (started if none), or None where forked
    sandboxes cannot run here (they then start one bubblewrap each). The first zygote of
    a process is waited for (it tells whether forking works); later ones are not."""
    from accord.sandbox.bwrap import os_strategy

    if _unavailable or os_strategy() == "drop":
        return None
    with _LOCK:  # a server's threads start sandboxes too; a zygote lost would end its children
        return _zygote_for(host, code_paths, code_mounts, limits, preload)


def _zygote_for(
    host: str,
    code_paths: Sequence[str],
    code_mounts: Sequence[str],
    limits: Limits,
    preload: Sequence[str],
) -> Zygote | None:
    key = (host, tuple(code_paths), tuple(code_mounts), limits)
    zygote = _zygotes.get(key)
    if zygote is not None and not zygote.alive:
        _zygotes.pop(key).close()
        zygote = None
    if zygote is None:
        zygote = Zygote(
            host, code_paths=code_paths, code_mounts=code_mounts, limits=limits, preload=preload
        )
        first = not _zygotes and not _probed
        _zygotes[key] = zygote
        if first:
            _probed.append(True)
            why = zygote.wait_ready(limits.startup_timeout)
            if why is not None:
                _unavailable.append(why)
                _zygotes.pop(key, None)
                return None
    return zygote


_probed: list[bool] = []


def close_zygotes(host: str | None = None) -> None:
    """End every zygote of this process, or those of ``host`` (and so every sandbox
    forked from them)."""
    with _LOCK:
        keys = [k for k in _zygotes if host is None or k[0] == host]
        zygotes = [_zygotes.pop(k) for k in keys]
    for zygote in zygotes:
        zygote.close()


atexit.register(close_zygotes)
