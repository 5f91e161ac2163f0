"""An agent that learns across sessions in its data directory, and one that hunts for a
rival's, run by ``EchoHost`` as ``run(op, payload, context)``."""

from __future__ import annotations

import contextlib
import errno
import os
from pathlib import Path
from typing import Any

from accord.agents.timebased import TimeDependent


def run(op: str, payload: Any, context: Any) -> Any:
    data = context.data_dir
    if op == "count":  # what a learning agent does: read, update, write back
        path = Path(data, "seen", "count.txt")
        n = int(path.read_text()) if path.exists() else 0
        path.parent.mkdir(exist_ok=True)
        path.write_text(str(n + 1))
        return n + 1
    if op == "fill":  # more than its cap: refused in the agent only
        try:
            with open(os.path.join(data, "big.bin"), "wb") as f:
                for _ in range(payload):
                    f.write(b"x" * (1 << 20))
        except OSError as exc:
            os.remove(os.path.join(data, "big.bin"))
            return errno.errorcode.get(exc.errno or 0, str(exc.errno))
        return "filled"
    if op == "link":  # a link out of its directory: never followed when it is saved
        os.symlink("/etc/passwd", os.path.join(data, "passwd"))
        return "linked"
    if op == "peek":  # a rival's data directory, by its path on the host
        out = {}
        for path in payload:
            try:
                out[path] = f"listed {sorted(os.listdir(path))}"
            except OSError as exc:
                out[path] = type(exc).__name__
        return out
    raise ValueError(op)


class DataLearner(TimeDependent):
    """Counts its sessions in its data directory (``view.memory.data_dir``)."""

    def __init__(self, name: str | None = None) -> None:
        super().__init__(0.5, name)
        self.counted = False

    def propose(self, view: Any) -> Any:
        if not self.counted:
            self.counted = True
            path = Path(str(view.memory.data_dir), "count.txt")
            n = int(path.read_text()) if path.exists() else 0
            path.write_text(str(n + 1))
        return super().propose(view)


class DataSnoop(TimeDependent):
    """Hunts for a rival's data directory (``target``: its path on the host)."""

    def __init__(self, target: str, name: str | None = None) -> None:
        super().__init__(0.5, name)
        self.rival = target

    def propose(self, view: Any) -> Any:
        found = []
        own = str(view.memory.data_dir)
        for path in (self.rival, os.path.dirname(self.rival), os.path.dirname(own)):
            with contextlib.suppress(OSError):
                found += [n for n in os.listdir(path) if n != os.path.basename(own)]
        if found:
            return super().propose(view)
        raise RuntimeError("contained: no rival's data visible")
