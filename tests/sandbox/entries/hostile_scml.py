"""Hostile SCML agents for the red-team tests: each tries one escape on day 1 and reports
``contained: ...`` by raising when it fails (so it is recorded), else does harm."""

from __future__ import annotations

import contextlib
import glob
import os
import signal
import time

from hostile_kit import fork_bomb, send_pickle

from accord.leagues.scml.agents import DoNothingAgent


class Hostile(DoNothingAgent):
    def step(self) -> None:
        if self.awi.current_step == 1:
            self.attack()

    def attack(self) -> None:
        raise NotImplementedError


class Pickler(Hostile):
    def attack(self) -> None:
        send_pickle("/tmp/accord-scml-pwned")
        time.sleep(30)


class Rewriter(Hostile):
    """Looks for the world's results (any SQLite file it can reach) to rewrite them."""

    def attack(self) -> None:
        found = []
        candidates = glob.glob("/proc/*/fd/*") + glob.glob("**/*.sqlite", recursive=True)
        candidates += glob.glob("/tmp/**/*.sqlite", recursive=True)
        for path in candidates:
            with contextlib.suppress(OSError), open(path, "r+b") as f:
                if f.read(16).startswith(b"SQLite format 3"):
                    f.seek(100)
                    f.write(b"\xff" * 64)
                    found.append(path)
        if not found:
            raise RuntimeError("contained: no SQLite file reachable")


class MemWriter(Hostile):
    """Reads and writes the memory of its parent process (the world's, outside a sandbox)."""

    def attack(self) -> None:
        try:
            with open(f"/proc/{os.getppid()}/mem", "r+b") as f:
                f.read(1)
        except OSError as exc:
            raise RuntimeError(f"contained: parent memory: {type(exc).__name__}") from None


class Signaller(Hostile):
    def attack(self) -> None:
        with contextlib.suppress(OSError):
            os.kill(-1, signal.SIGKILL)  # every process it can see: only its sandbox's
        raise RuntimeError("contained: still here")


class KbInt(Hostile):
    def attack(self) -> None:
        raise KeyboardInterrupt


class SysExit(Hostile):
    def attack(self) -> None:
        raise SystemExit(2)


class ForkBomb(Hostile):
    def attack(self) -> None:
        n, error = fork_bomb(5000, 30)
        if error is not None:
            raise RuntimeError(f"contained: fork failed after {n}")
