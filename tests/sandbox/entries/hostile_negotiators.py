"""Hostile negotiators for the tournament red-team tests (built in their sandbox).

Each tries one escape in ``propose``. When the escape fails it raises
``RuntimeError("contained: ...")`` so the test sees the failure recorded against it;
when it succeeds it proposes normally (and the test, finding no failure, fails).
"""

from __future__ import annotations

import contextlib
import glob
import os
import resource
import signal
import socket
import sys
import threading
import time
from typing import Any

from hostile_kit import fork_bomb, send_pickle, send_raw

from accord.agents.timebased import TimeDependent


class Hostile(TimeDependent):
    """Base: ``target`` is what the attack needs (a path, a pid, a port)."""

    def __init__(self, target: Any = None, name: str | None = None) -> None:
        super().__init__(0.2, name)
        self.goal = target

    def propose(self, view: Any) -> Any:
        escaped = self.attack()
        if escaped:
            return super().propose(view)
        return None

    def attack(self) -> str:
        raise NotImplementedError


class Pickler(Hostile):
    def attack(self) -> str:
        send_pickle(self.goal)
        time.sleep(30)
        return ""


class Partial(Hostile):
    def attack(self) -> str:
        send_raw("J", b"{", 100)
        time.sleep(30)
        return ""


class Oversize(Hostile):
    def attack(self) -> str:
        send_raw("J", b"{", 1 << 30)
        time.sleep(30)
        return ""


class FileSnoop(Hostile):
    """``target``: the results file and a bundled scenario file (their exact paths)."""

    def attack(self) -> str:
        got = []
        for path in [*self.goal, *glob.glob("*.sqlite"), *glob.glob("/proc/*/fd/*")]:
            with contextlib.suppress(OSError), open(path, "r+b") as f:
                if f.read(16):
                    got.append(path)
        if got:
            return f"read {got}"
        raise RuntimeError("contained: no results or scenario file readable")


class ProcSpy(Hostile):
    """``target``: the organiser's pid."""

    def attack(self) -> str:
        got = []
        for pid in {self.goal, os.getppid()}:
            for what in ("mem", "environ", "fd"):
                with contextlib.suppress(OSError):
                    if what == "fd":
                        got.append(f"{pid}/fd:{len(os.listdir(f'/proc/{pid}/fd'))}")
                    else:
                        with open(f"/proc/{pid}/{what}", "rb") as f:
                            got.append(f"{pid}/{what}:{len(f.read(16))}")
        outside = [p for p in glob.glob("/proc/[0-9]*") if int(p.rsplit("/", 1)[1]) > 2]
        if got and self.goal in {int(g.split("/")[0]) for g in got} or len(outside) > 16:
            return f"saw {got} {len(outside)}"
        raise RuntimeError(f"contained: no organiser process visible ({len(outside)} pids)")


class Signaller(Hostile):
    """``target``: the organiser's pid."""

    def attack(self) -> str:
        try:
            os.kill(self.goal, signal.SIGTERM)
            return "signalled the organiser"
        except OSError as exc:
            raise RuntimeError(f"contained: kill: {type(exc).__name__}") from None


class Network(Hostile):
    """``target``: a port the organiser listens on (loopback)."""

    def attack(self) -> str:
        for host in ("127.0.0.1", "1.1.1.1"):
            s = socket.socket()
            s.settimeout(1)
            try:
                s.connect((host, self.goal if host == "127.0.0.1" else 80))
                return f"connected to {host}"
            except OSError:
                pass
            finally:
                s.close()
        raise RuntimeError("contained: no network")


class ForkBomb(Hostile):
    def attack(self) -> str:
        n, error = fork_bomb(5000, 30)
        if error is not None:
            raise RuntimeError(f"contained: fork failed after {n}")
        return f"forked {n}"


class MemHog(Hostile):
    def attack(self) -> str:
        blocks = [bytearray(256 << 20) for _ in range(64)]  # 16 GB
        return f"allocated {len(blocks)}"


class CpuHog(Hostile):
    def attack(self) -> str:
        while True:
            pass


class Lifter(Hostile):
    def attack(self) -> str:
        for res in (resource.RLIMIT_AS, resource.RLIMIT_CPU, resource.RLIMIT_NPROC):
            try:
                resource.setrlimit(res, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
                return "lifted a limit"
            except (ValueError, OSError):
                pass
        raise RuntimeError("contained: limits stay")


class Flood(Hostile):
    """Floods stdout and stderr, then negotiates normally (nothing should break)."""

    def attack(self) -> str:
        chunk = b"x" * (1 << 20)
        for _ in range(8):
            os.write(1, chunk)
            os.write(2, chunk)
        return "flooded"


class KbInt(Hostile):
    def attack(self) -> str:
        raise KeyboardInterrupt


class SysExit(Hostile):
    def attack(self) -> str:
        raise SystemExit(4)


class Exiter(Hostile):
    def attack(self) -> str:
        sys.stdout.flush()
        os._exit(5)


class Threads(Hostile):
    """Leaves a thread running, then negotiates normally."""

    started = False

    def attack(self) -> str:
        def loop() -> None:
            while True:
                time.sleep(0.05)

        if not Threads.started:  # one thread, left running for good
            Threads.started = True
            threading.Thread(target=loop, daemon=False).start()
        return "threads left"


class Burner(TimeDependent):
    """Spends ``target`` seconds of CPU in every ``propose``: no call is slow, but its
    sessions run out of CPU time after a few calls."""

    def __init__(self, target: Any = 0.2, name: str | None = None) -> None:
        super().__init__(0.2, name)
        self.burn = float(target)

    def propose(self, view: Any) -> Any:
        end = time.process_time() + self.burn
        while time.process_time() < end:
            pass
        return super().propose(view)
