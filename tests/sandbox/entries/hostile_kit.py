"""What the hostile entrants of this folder share, imported as any entrant imports a
helper: a sandbox shows the modules beside the entrant's own (``accord.sandbox.locate``),
or the whole folder when it is the entrant's code path."""

from __future__ import annotations

import os
import pickle
import struct
import time
from typing import Any


def answer_fd() -> int:
    """The launcher's answer pipe, found as an agent would: in /proc/self/cmdline, or in
    a sandbox forked from a zygote (whose command line is the zygote's), fd 4."""
    with open("/proc/self/cmdline", "rb") as f:
        text = f.read().decode()
    if "main(" not in text:
        return 4
    return int(text.rsplit("main(", 1)[1].split(")", 1)[0].split(",")[1])


class Shell:
    """Runs ``touch mark`` wherever it is unpickled (the organiser must never be that place)."""

    def __init__(self, mark: str) -> None:
        self.mark = mark

    def __reduce__(self) -> Any:
        return (os.system, (f"touch {self.mark}",))


def send_raw(kind: str, body: bytes, length: int | None = None) -> None:
    """Write a frame straight onto the answer pipe, past the host: its header says
    ``length`` bytes (default: the body's) of ``kind`` ("J" JSON, "P" pickle)."""
    size = len(body) if length is None else length
    os.write(answer_fd(), struct.pack(">IB", size, ord(kind)) + body)


def fork_bomb(most: int, linger: float) -> tuple[int, int | None]:
    """Fork up to ``most`` children that each sleep ``linger`` s: how many were forked,
    and the errno that stopped it (None: nothing did)."""
    n = 0
    try:
        while n < most:
            if os.fork() == 0:
                time.sleep(linger)
                os._exit(0)
            n += 1
    except OSError as exc:
        return n, exc.errno
    return n, None


def send_pickle(mark: str, kind: str = "P") -> None:
    """A pickle frame that would ``touch mark`` if the organiser unpickled it."""
    send_raw(kind, pickle.dumps(Shell(mark)))
