"""Two sandboxes of one entrant trying to pass a secret to each other (red-team tests of
forked sandboxes, :mod:`accord.sandbox.zygote`), run by ``EchoHost``.

``plant`` leaves the secret on every channel two processes of one user on one machine
could share; ``steal`` looks for it on each and returns what it found, by channel.
Only what any Python program can call (ctypes for SysV shared memory).
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import socket
import threading
from typing import Any

_LIBC = ctypes.CDLL(None, use_errno=True)
_LIBC.shmat.restype = ctypes.c_void_p
_KEY = 0x5EC7E7
_FILES = ("/tmp/secret", "/dev/shm/secret", "/secret", "/dev/secret", "/var/tmp/secret")
_ABSTRACT = "\0accord-colluder"
_held: list[Any] = []  # what must stay open while the other side looks
IMPORTED_BY = os.getpid()  # the process that imported this module (never a zygote)


def _own_pids() -> set[int]:
    pids = set()
    for name in os.listdir("/proc"):
        if name.isdigit():
            pids.add(int(name))
    return pids


def plant(secret: str) -> dict[str, Any]:
    done: dict[str, Any] = {}
    for path in _FILES:
        try:
            with open(path, "w") as f:
                f.write(secret)
            done[path] = "written"
        except OSError as exc:
            done[path] = exc.strerror
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(_ABSTRACT)
    server.listen(4)
    _held.append(server)

    def answer() -> None:
        while True:
            conn, _ = server.accept()
            conn.sendall(secret.encode())
            conn.close()

    threading.Thread(target=answer, daemon=True).start()
    shm = _LIBC.shmget(_KEY, 4096, 0o1666)  # IPC_CREAT | 0666
    if shm >= 0:
        addr = _LIBC.shmat(shm, None, 0)
        ctypes.memmove(addr, secret.encode() + b"\0", len(secret) + 1)
        done["shm"] = "written"
    _held.append(os.getpid())
    done["pids"] = sorted(_own_pids())
    signal.signal(signal.SIGUSR1, lambda *_: _held.append("signalled"))
    return done


def steal(_: Any) -> dict[str, Any]:  # noqa: C901 - one attempt per channel
    found: dict[str, Any] = {}
    for path in _FILES:
        with contextlib.suppress(OSError), open(path) as f:
            found[path] = f.read()
    with contextlib.suppress(OSError):
        client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        client.settimeout(1.0)
        client.connect(_ABSTRACT)
        found["abstract socket"] = client.recv(100).decode()
    shm = _LIBC.shmget(_KEY, 0, 0)
    if shm >= 0:
        addr = _LIBC.shmat(shm, None, 0o10000)  # SHM_RDONLY
        if addr not in (None, ctypes.c_void_p(-1).value):
            found["shm"] = ctypes.string_at(addr).decode(errors="replace")
    others = _own_pids() - {os.getpid()}
    found["pids"] = sorted(_own_pids())
    for pid in others:
        with contextlib.suppress(OSError), open(f"/proc/{pid}/cmdline", "rb") as f:
            found[f"/proc/{pid}/cmdline"] = f.read().decode(errors="replace")[:200]
        with contextlib.suppress(OSError), open(f"/proc/{pid}/mem", "rb") as f:
            found[f"/proc/{pid}/mem"] = "opened"
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGUSR1)
            found[f"kill {pid}"] = "sent"
    for pid in range(2, 64):  # pids the other side might have, named blindly
        if pid in others or pid == os.getpid():
            continue
        with contextlib.suppress(OSError):
            os.kill(pid, 0)
            found[f"kill {pid}"] = "exists"
    return found


def signalled(_: Any) -> bool:
    return "signalled" in _held


def where(_: Any) -> dict[str, Any]:
    tasks = sorted(int(t) for t in os.listdir("/proc/self/task"))
    with open("/proc/self/maps") as f:  # writable pages shared with another process
        shared = [line.strip() for line in f if line.split()[1][1::2] == "ws"]
    return {
        "imported here": os.getpid() == IMPORTED_BY,
        "pid": os.getpid(),
        "tasks": tasks,
        "shared writable": shared,
    }


def die(_: Any) -> None:
    os.kill(os.getpid(), signal.SIGSEGV)


def sleep(seconds: float) -> None:
    import time

    time.sleep(seconds)


def run(op: str, payload: Any, context: Any) -> Any:
    ops = {"plant": plant, "steal": steal, "signalled": signalled, "where": where}
    return {**ops, "die": die, "sleep": sleep}[op](payload)
