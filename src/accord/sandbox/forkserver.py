"""Inside a zygote: the trusted loop that forks sandboxes (see :mod:`accord.sandbox.zygote`).

The zygote is a bubblewrap sandbox like any other (same mounts, limits, read-only
root) that runs **only Accord's code**: the interpreter, numpy, Accord and the host's
module are imported once, then each request on its control socket forks one child that
becomes a sandbox of its own before any agent code runs:

1. the child (``A``) keeps only its channel's pipes, enters a new user namespace (it
   maps only its own uid) with new mount, network, IPC, UTS, cgroup and PID namespaces,
   and forks ``B``, the first process of the new PID namespace; ``A`` waits for it and
   reports how it ended (its pid as a pidfd first, so the organiser can kill it);
2. ``B`` mounts its own ``/proc`` (it sees only its own processes), a fresh scratch
   ``/tmp``, ``/dev/shm`` and ``/dev/pts``, forbids further user namespaces, becomes
   undumpable, drops every capability, sets ``no_new_privs`` and installs the seccomp
   filter of :mod:`accord.sandbox.seccomp`;
3. ``B`` forks ``C``, which runs the launcher (:func:`accord.sandbox.launcher.main`:
   it sets the limits and imports the agent), and ends as ``C`` ends.

So two children of one zygote share nothing writable (each has its own scratch, no
writable root or ``/dev``), no network or IPC namespace (abstract sockets, SysV IPC,
POSIX queues), and cannot see, signal or read each other's processes. Only this module
and the launcher run before the filter; the zygote itself never imports an agent.
"""

from __future__ import annotations

import array
import contextlib
import ctypes
import fcntl
import gc
import importlib
import json
import os
import re
import signal
import socket
import struct
import traceback
from typing import Any

from accord.core.errors import AccordError
from accord.sandbox.frames import encode
from accord.sandbox.seccomp import filter_program, native_arch

REQ, ANS, PROG, STATUS = 3, 4, 5, 6
"""The fds of a child's channel (requests, answers, progress) and, in ``A`` only, its
status socket; stderr is the organiser's pipe, stdin and stdout ``/dev/null``."""
_NEWNS, _NEWCGROUP, _NEWUTS, _NEWIPC = 0x20000, 0x2000000, 0x4000000, 0x8000000
_NEWUSER, _NEWPID, _NEWNET = 0x10000000, 0x20000000, 0x40000000
_MS_NOSUID, _MS_NODEV, _MS_NOEXEC, _MS_BIND, _MS_REC, _MS_PRIVATE = 2, 4, 8, 0x1000, 0x4000, 0x40000
_PR_SET_PDEATHSIG, _PR_SET_DUMPABLE, _PR_CAPBSET_DROP = 1, 4, 24
_PR_SET_NO_NEW_PRIVS, _PR_SET_SECCOMP, _PR_CAP_AMBIENT = 38, 22, 47
_SECCOMP_MODE_FILTER, _CAP_AMBIENT_CLEAR_ALL = 2, 4
_LIBC = ctypes.CDLL(None, use_errno=True)


class SetupError(AccordError):
    """A step of a child's confinement failed (the child then ends before any agent code)."""


def _check(result: int, what: str) -> None:
    if result != 0:
        err = ctypes.get_errno()
        raise SetupError(f"{what}: {os.strerror(err)}")


def serve(ctl: int) -> None:
    """The zygote's main loop on its control socket ``ctl`` (a ``SOCK_SEQPACKET``)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # only the organiser's Ctrl-C counts
    sock = socket.socket(fileno=ctl)
    first = sock.recv(65536)
    if not first:
        os._exit(0)
    config = json.loads(first)
    try:
        for name in [config["host"].partition(":")[0], *config.get("preload", [])]:
            if name.startswith("accord."):  # Accord's own code only: never an agent's
                importlib.import_module(name)
    except BaseException as exc:  # noqa: BLE001 - reported to the organiser, then exit
        sock.send(json.dumps({"t": "fatal", "error": f"{type(exc).__name__}: {exc}"}).encode())
        os._exit(3)
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # children are reaped by the kernel
    gc.collect()
    gc.freeze()  # the children share these pages: no collection touches them
    sock.send(b'{"t": "ready"}')
    while True:
        fds = array.array("i")
        try:
            msg, anc, _, _ = sock.recvmsg(65536, socket.CMSG_SPACE(5 * fds.itemsize))
        except InterruptedError:
            continue
        if not msg:
            os._exit(0)  # the organiser is gone: every child goes with this PID namespace
        for level, kind, data in anc:
            if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                fds.frombytes(data[: len(data) - (len(data) % fds.itemsize)])
        if len(fds) != 5:
            for fd in fds:
                os.close(fd)
            continue
        request = json.loads(msg)
        if os.fork() == 0:
            with contextlib.suppress(BaseException):
                sock.close()
            _child(list(fds), request)  # never returns
        for fd in fds:
            os.close(fd)


def _child(fds: list[int], request: dict[str, Any]) -> None:
    """``A``: take the channel, enter new namespaces, fork ``B``, report how it ended."""
    try:
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        _LIBC.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        high = [fcntl.fcntl(fd, fcntl.F_DUPFD, 64) for fd in fds]  # clear of 0-6, then in place
        devnull = os.open("/dev/null", os.O_RDWR)
        for fd, target in zip(high, (REQ, ANS, PROG, 2, STATUS), strict=True):
            os.dup2(fd, target)
        os.dup2(devnull, 0)
        os.dup2(devnull, 1)
        os.closerange(STATUS + 1, _max_fd())
        _enter_namespaces()
        pid = os.fork()
    except BaseException as exc:  # noqa: BLE001 - the organiser reads why on its channel
        _fatal(f"{type(exc).__name__}: {exc}")
        os._exit(3)
    if pid == 0:
        _init(request)  # never returns
    for fd in (REQ, ANS, PROG):
        os.close(fd)
    status = socket.socket(fileno=STATUS)
    try:
        pidfd = os.pidfd_open(pid)
        status.sendmsg([b"pid"], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, struct.pack("i", pidfd))])
        os.close(pidfd)
    except OSError:
        pass  # the organiser then ends it by closing its channel
    exit_code = _wait(pid)
    with contextlib.suppress(OSError):
        status.send(f"exit {exit_code}".encode())
    os._exit(0)


def _init(request: dict[str, Any]) -> None:
    """``B``, the first process of the new PID namespace: confine, then fork ``C`` (the
    agent's process) and end as it ends. (The first process of a PID namespace ignores
    signals it has no handler for, the CPU limit's ``SIGXCPU`` too, so the agent is not
    it, as bubblewrap's own first process is not.)"""
    os.close(STATUS)
    try:
        _confine(int(request.get("scratch_bytes", 1 << 26)))
        pid = os.fork()
    except BaseException as exc:  # noqa: BLE001
        _fatal(f"{type(exc).__name__}: {exc}")
        os._exit(3)
    if pid == 0:
        _LIBC.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        from accord.sandbox.launcher import main

        main(REQ, ANS)
        os._exit(0)
    for fd in (REQ, ANS, PROG):
        os.close(fd)
    os._exit(_wait(pid))


def _wait(pid: int) -> int:
    """``pid``'s exit code, ``128 + n`` for a death by signal ``n`` (as bubblewrap's)."""
    while True:
        try:
            _, code = os.waitpid(pid, 0)
            break
        except InterruptedError:
            continue
    return 128 + os.WTERMSIG(code) if os.WIFSIGNALED(code) else os.WEXITSTATUS(code)


def _fatal(error: str) -> None:
    with contextlib.suppress(OSError):
        os.write(ANS, encode({"t": "fatal", "error": error, "traceback": traceback.format_exc()}))


def _max_fd() -> int:
    try:
        return max(int(n) for n in os.listdir("/proc/self/fd")) + 1
    except (OSError, ValueError):
        return 1024


def _enter_namespaces() -> None:
    """New user (mapping only this uid and gid), mount, network, IPC, UTS and cgroup
    namespaces for this process, and a new PID namespace for its next child."""
    uid, gid = os.getuid(), os.getgid()
    flags = _NEWUSER | _NEWNS | _NEWNET | _NEWIPC | _NEWUTS | _NEWCGROUP | _NEWPID
    _check(_LIBC.unshare(flags), "unshare")
    for name, text in (("setgroups", "deny"), ("uid_map", f"{uid} {uid} 1"), ("gid_map", f"{gid} {gid} 1")):  # fmt: skip
        with open(f"/proc/self/{name}", "w") as f:
            f.write(text)


def _mount(src: bytes, target: str, fstype: bytes, flags: int, data: bytes | None) -> None:
    _check(_LIBC.mount(src, target.encode(), fstype, flags, data), f"mount {target}")


def _mount_private(scratch_bytes: int) -> None:
    """``B``'s own ``/proc``, scratch ``/tmp``, ``/dev/shm`` and ``/dev/pts``."""
    _check(_LIBC.mount(None, b"/", None, _MS_REC | _MS_PRIVATE, None), "mount private")
    safe = _MS_NOSUID | _MS_NODEV
    # what bubblewrap mounted under /tmp (an agent's code, a runtime there) stays: each
    # is bound again, read-only as it was, onto the fresh scratch
    keep = [(p, os.open(p, os.O_PATH | os.O_CLOEXEC)) for p in _mounts_under("/tmp")]
    _mount(b"tmpfs", "/tmp", b"tmpfs", safe, f"mode=1777,size={scratch_bytes}".encode())
    for point, fd in keep:
        os.makedirs(os.path.dirname(point), exist_ok=True)
        if os.path.isdir(f"/proc/self/fd/{fd}"):
            os.makedirs(point, exist_ok=True)
        else:
            os.close(os.open(point, os.O_CREAT | os.O_WRONLY, 0o644))
        _mount(f"/proc/self/fd/{fd}".encode(), point, b"", _MS_BIND | _MS_REC, None)
        os.close(fd)
    _mount(b"proc", "/proc", b"proc", safe | _MS_NOEXEC, None)
    if os.path.isdir("/dev/shm"):
        _mount(b"tmpfs", "/dev/shm", b"tmpfs", safe | _MS_NOEXEC, b"mode=1777,size=1m")
    if os.path.isdir("/dev/pts"):
        _mount(b"devpts", "/dev/pts", b"devpts", _MS_NOSUID | _MS_NOEXEC, b"newinstance,ptmxmode=0666,mode=620")  # fmt: skip


def _mounts_under(root: str) -> list[str]:
    """The outermost mount points below ``root`` (``/proc/self/mountinfo``'s fifth
    field, octal escapes decoded), in the order they were mounted."""
    points: list[str] = []
    with open("/proc/self/mountinfo", "rb") as f:
        for line in f:
            raw = line.split()[4]
            point = re.sub(rb"\\([0-7]{3})", lambda m: bytes([int(m[1], 8)]), raw).decode()
            if point.startswith(root + "/") and point not in points:
                points.append(point)
    return [p for p in points if not any(p.startswith(q + "/") for q in points)]


def _confine(scratch_bytes: int) -> None:
    """``B``: its own mounts, then no way back: no further user namespaces, not
    dumpable, no capabilities, ``no_new_privs``, the seccomp filter."""
    _LIBC.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    _mount_private(scratch_bytes)
    os.setsid()
    with open("/proc/sys/user/max_user_namespaces", "w") as f:
        f.write("0")
    _check(_LIBC.prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0), "undumpable")
    for cap in range(64):
        if _LIBC.prctl(_PR_CAPBSET_DROP, cap, 0, 0, 0) != 0:
            break  # past the last capability this kernel knows
    _LIBC.prctl(_PR_CAP_AMBIENT, _CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
    header = struct.pack("=Ii", 0x20080522, 0)  # _LINUX_CAPABILITY_VERSION_3, this thread
    data = ctypes.create_string_buffer(24)  # two empty {effective, permitted, inheritable}
    _check(_LIBC.capset(ctypes.c_char_p(header), data), "capset")
    _check(_LIBC.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs")
    arch = native_arch()
    if arch is not None:
        program = filter_program(arch)
        buf = ctypes.create_string_buffer(program, len(program))
        prog = struct.pack("@HP", len(program) // 8, ctypes.addressof(buf))  # sock_fprog
        _check(_LIBC.prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.c_char_p(prog), 0, 0), "seccomp")  # fmt: skip
    if os.getuid() == 0 or os.geteuid() == 0:
        raise SetupError("a forked sandbox may not run as root")
