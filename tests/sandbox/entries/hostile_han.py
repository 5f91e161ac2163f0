"""Hostile HAN agents for the red-team tests: each tries one escape at the game's start
and, when it fails, says ``contained: ...`` by raising (recorded as the agent's)."""

from __future__ import annotations

import contextlib
import glob
import os
import time

from hostile_kit import send_pickle, send_raw

from accord.leagues.han.api import HanAgent
from accord.leagues.han.events import Event, EventKind


class Hostile(HanAgent):
    def on_event(self, event: Event) -> list[Event]:
        if event.kind is EventKind.GAME_START:
            self.attack()
        return []

    def attack(self) -> None:
        raise NotImplementedError


class Pickler(Hostile):
    def attack(self) -> None:
        send_pickle("/tmp/accord-han-pwned")
        time.sleep(30)


class Partial(Hostile):
    def attack(self) -> None:
        send_raw("J", b"[", 50)
        time.sleep(30)


class Snoop(Hostile):
    def attack(self) -> None:
        found = []
        for path in glob.glob("/proc/*/fd/*") + glob.glob("/tmp/**/*.sqlite", recursive=True):
            with contextlib.suppress(OSError), open(path, "rb") as f:
                if f.read(16).startswith(b"SQLite format 3"):
                    found.append(path)
        with contextlib.suppress(OSError), open(f"/proc/{os.getppid()}/mem", "rb") as f:
            f.read(1)
            found.append("parent memory")
        if not found:
            raise RuntimeError("contained: nothing found")


class KbInt(Hostile):
    def attack(self) -> None:
        raise KeyboardInterrupt


class SysExit(Hostile):
    def attack(self) -> None:
        raise SystemExit(9)


class Exiter(Hostile):
    def attack(self) -> None:
        os._exit(6)


class Flood(Hostile):
    def attack(self) -> None:
        for _ in range(8):
            os.write(1, b"x" * (1 << 20))
            os.write(2, b"y" * (1 << 20))
        raise RuntimeError("contained: flooded")
