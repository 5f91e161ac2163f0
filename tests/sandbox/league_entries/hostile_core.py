"""The red-team catalogue shared by the leagues' hostile entrants (GENIUS, Colored
Trails, Diplomacy): what any Python program can try, in one place.

``redteam_targets`` and ``hostile_kit`` (put beside this module by the test, so they are
mounted with it; the kit is ``tests/sandbox/entries/hostile_kit.py``)
names what to go after: the organiser's pid, its results file, a bundled scenario file,
a port it listens on and a mark file a crafted pickle would create. Each entrant calls
:func:`next_move` on every call of its league: the first call runs every probe below
and raises ``RuntimeError("contained: ...")`` (or ``"ESCAPED: ..."`` naming what got
out), the second raises ``KeyboardInterrupt``, the third ``SystemExit(4)``; later calls
play normally. :func:`pickle_frame` and :func:`partial_frame` break the channel itself.
"""

from __future__ import annotations

import contextlib
import glob
import mmap
import os
import resource
import signal
import socket
import threading
import time

import redteam_targets as T  # type: ignore[import-not-found]
from hostile_kit import send_pickle, send_raw


def pickle_frame() -> None:
    """A crafted pickle on the answer pipe (the organiser must never load it)."""
    send_pickle(T.MARK)
    time.sleep(60)


def partial_frame() -> None:
    """A frame header and one byte, then silence (the frame's deadline must hold)."""
    send_raw("J", b"{", 100)
    time.sleep(60)


def _files() -> bool:
    got = False
    with contextlib.suppress(OSError), open(T.SCENARIO, "rb") as f:  # only read: it is
        got = bool(f.read(16))  # the repository's own file, should the sandbox ever fail
    for path in (T.RESULTS, *glob.glob("/proc/*/cwd/*.sqlite")):  # the test's own copy
        with contextlib.suppress(OSError), open(path, "r+b") as f:
            f.write(b"pwned")
            got = True
    return got


def _procspy() -> bool:
    for what in ("environ", "mem", "cmdline"):
        with contextlib.suppress(OSError), open(f"/proc/{T.PID}/{what}", "rb") as f:
            f.read(16)
            return True
    for cmd in glob.glob("/proc/[0-9]*/cmdline"):  # the organiser runs under pytest
        with contextlib.suppress(OSError), open(cmd, "rb") as f:
            if any(a.rsplit(b"/", 1)[-1] == b"pytest" for a in f.read().split(b"\0")):
                return True
    return False


def _procwrite() -> bool:
    with contextlib.suppress(OSError), open(f"/proc/{T.PID}/mem", "r+b"):
        return True
    return False


def _signal() -> bool:
    with contextlib.suppress(OSError):
        os.kill(T.PID, signal.SIGCONT)  # harmless if it ever arrives
        return True
    return False


def _network() -> bool:
    s = socket.socket()
    s.settimeout(2)
    try:
        s.connect(("127.0.0.1", T.PORT))
        return True
    except OSError:
        return False
    finally:
        s.close()


def _lift() -> bool:
    lifted = False
    for name in ("RLIMIT_AS", "RLIMIT_CPU", "RLIMIT_NPROC", "RLIMIT_NOFILE", "RLIMIT_FSIZE"):
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(getattr(resource, name), (-1, -1))
            lifted = True
    return lifted


def _memhog() -> bool:
    try:  # 16 GB of address space (mapped, not touched: quick either way)
        blocks = [mmap.mmap(-1, 256 << 20) for _ in range(64)]
    except (MemoryError, OSError):
        return False
    for b in blocks:
        b.close()
    return True


def _threads() -> bool:
    threading.Thread(target=lambda: time.sleep(3600), daemon=False).start()
    return False  # not an escape: later calls must not mind it


def _forkbomb() -> bool:
    children = []
    try:
        while len(children) < 2000:
            pid = os.fork()
            if pid == 0:
                time.sleep(60)
                os._exit(0)
            children.append(pid)
    except OSError:
        pass
    for pid in children:  # leave room for the calls that follow
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
    return len(children) >= 2000


PROBES = {
    "files": _files, "procspy": _procspy, "procwrite": _procwrite, "signal": _signal,
    "network": _network, "lift": _lift, "memhog": _memhog, "threads": _threads,
    "forkbomb": _forkbomb,
}  # fmt: skip


class Catalogue:
    """Counts an entrant's calls and makes each one the catalogue's next move."""

    def __init__(self) -> None:
        self.calls = 0

    def next_move(self) -> None:
        """Raise this call's attack; return on the calls after the catalogue."""
        self.calls += 1
        if self.calls == 1:
            escaped = [name for name, probe in PROBES.items() if probe()]
            if escaped:
                raise RuntimeError(f"ESCAPED: {escaped}")
            raise RuntimeError(f"contained: {len(PROBES)} probes, none got out")
        if self.calls == 2:
            raise KeyboardInterrupt
        if self.calls == 3:
            raise SystemExit(4)
