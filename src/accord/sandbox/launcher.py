"""The sandboxed process's main loop (trusted code; runs before any agent code).

Started as ``python -I -S -B -c <bootstrap>`` with two pipe fds: it reads its
configuration (the first frame), drops to the sandbox's own uid where the organiser
runs as root, checks the limits hold, builds the host (which imports the agent) and then
answers frames until the organiser closes the pipe. A watchdog thread ends the process
as soon as the organiser's end of the pipe closes, whatever the agent is doing.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import importlib
import os
import resource
import select
import signal
import sys
import threading
import traceback
from collections.abc import Callable
from typing import Any

from accord.core.errors import StateError, UsageError
from accord.sandbox.datadir import copy_in
from accord.sandbox.frames import encode, read_trusted
from accord.sandbox.host import Host, HostContext, Then, describe_exception

_PR_SET_NO_NEW_PRIVS = 38
_RLIMITS = ("RLIMIT_CPU", "RLIMIT_AS", "RLIMIT_NOFILE", "RLIMIT_NPROC", "RLIMIT_FSIZE")


def main(rfd: int, wfd: int) -> None:
    """Serve the organiser on ``rfd`` (requests) and ``wfd`` (answers)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # only the organiser's Ctrl-C counts
    os.set_blocking(rfd, True)
    os.set_blocking(wfd, True)
    threading.Thread(target=_watchdog, args=(rfd,), daemon=True).start()
    config = read_trusted(rfd)
    if config is None:
        os._exit(0)
    send = _sender(wfd)
    try:
        _confine(config)
        if config.get("data_in"):
            send({"t": "confined"})  # no agent code has run: the organiser opens its data
        host = _build(config, send, rfd)
    except BaseException as exc:  # noqa: BLE001 - reported to the organiser, then exit
        send({"t": "fatal", "error": describe_exception(exc), "traceback": traceback.format_exc()})
        os._exit(3)
    send({"t": "ready"})
    while True:
        msg = read_trusted(rfd)
        if msg is None or msg.get("op") == "__close__":
            try:
                host.close()
            finally:
                os._exit(0)
        then = _serve(send, functools.partial(host.handle, msg["op"], msg.get("payload")))
        if then is not None:  # answered; now the call the organiser knows comes next
            _serve(send, then)


def _serve(send: Any, run: Callable[[], Any]) -> Callable[[], Any] | None:
    """Send ``run()``'s answer (or its exception) as one frame; a :class:`Then`'s
    ``follow`` is returned to be served next."""
    follow = None
    try:
        value = run()
        if isinstance(value, Then):
            value, follow = value.value, value.follow
        frame = _answer(value)
    except BaseException as exc:  # noqa: BLE001 - SystemExit, KeyboardInterrupt too
        frame = {
            "t": "raised",
            "type": type(exc).__name__,
            "error": describe_exception(exc),
            "traceback": traceback.format_exc()[-8000:],
        }
    send(frame)
    return follow if isinstance(frame, bytes) else None


def _answer(value: Any) -> bytes | dict[str, Any]:
    """The answer's frame, encoded once (or the error to send if it is not JSON)."""
    try:
        return encode({"t": "ok", "value": value})
    except (TypeError, ValueError, RecursionError) as exc:
        return {
            "t": "raised",
            "type": "TypeError",
            "error": f"the agent's answer cannot be sent as JSON: {exc}"[:500],
            "traceback": "",
        }


def _sender(wfd: int) -> Any:
    lock = threading.Lock()

    def send(obj: Any) -> None:
        data = obj if isinstance(obj, bytes) else encode(obj)
        with lock:
            view = memoryview(data)
            while view:
                n = os.write(wfd, view)
                view = view[n:]

    return send


def _report(fd: int, n: int) -> None:
    """``n`` bytes on the progress pipe (lost if it is full or closed: the organiser
    then sees less progress, never more)."""
    with contextlib.suppress(OSError):
        os.write(fd, b"." * n)


def _watchdog(rfd: int) -> None:
    """End the process when the organiser's end of the request pipe closes."""
    poller = select.poll()
    poller.register(rfd, 0)  # POLLHUP and POLLERR are always reported
    while True:
        for _, events in poller.poll():
            if events & (select.POLLHUP | select.POLLERR | select.POLLNVAL):
                os._exit(0)


def _confine(config: dict[str, Any]) -> None:
    """Drop to the sandbox's uid (organiser running as root), forbid new privileges and
    check every limit is set hard, before any agent code is imported."""
    drop = config.get("drop")
    if drop:
        uid, gid = drop
        os.setgroups([])
        os.setgid(gid)
        os.setuid(uid)
        if os.getuid() == 0 or os.geteuid() == 0:
            raise StateError("could not drop root privileges")
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
    for name, (soft, hard) in config.get("rlimits", {}).items():
        if name not in _RLIMITS:
            continue
        res = getattr(resource, name)
        if resource.getrlimit(res) != (soft, hard):
            resource.setrlimit(res, (soft, hard))
    scratch = config["scratch"]
    os.makedirs(scratch, exist_ok=True)
    os.chdir(scratch)
    if config.get("data_in") and config.get("data_dir"):
        try:
            copy_in(config["data_in"], config["data_dir"])
        except OSError as exc:
            raise StateError(
                f"the agent's stored learning data does not fit its data directory "
                f"({exc.strerror}); the cap is {config.get('data_mb')} MB"
            ) from None


def _build(config: dict[str, Any], send: Any, rfd: int) -> Host:
    for path in reversed(config.get("code_paths", [])):
        sys.path.insert(0, path)
    module, _, cls = config["host"].partition(":")
    host_type = getattr(importlib.import_module(module), cls)

    def ask(name: str, args: Any) -> Any:
        send({"t": "ask", "name": name, "args": args})
        reply = read_trusted(rfd)
        if reply is None:
            os._exit(0)
        if "error" in reply:
            raise UsageError(str(reply["error"]))
        return reply.get("value")

    context = HostContext(
        agent=config["agent"],
        scratch=config["scratch"],
        data_dir=config.get("data_dir"),
        ask=ask,
        extra=config.get("extra", {}),
    )
    progress = config.get("progress_fd")
    if isinstance(progress, int):
        os.set_blocking(progress, False)
        context.report = functools.partial(_report, progress)
    host: Host = host_type(config["agent"], context)
    return host
