"""Hostile behaviours for the sandbox's red-team tests, run by ``EchoHost``.

Each is called as ``run(op, payload, context)`` inside the sandbox. They use only what
any Python program can: /proc, the fds of their own process, the network, signals.
"""

from __future__ import annotations

import os
import resource
import signal
import socket
import sys
import threading
import time
from typing import Any

from hostile_kit import fork_bomb, send_pickle, send_raw


def run(op: str, payload: Any, context: Any) -> Any:  # noqa: C901, PLR0911, PLR0912 - a menu
    if op in ("pickle", "pickle_in_json"):  # the second: a pickle where JSON is expected
        send_pickle(os.environ.get("HOSTILE_MARK", "/tmp/pwned"), "P" if op == "pickle" else "J")
        time.sleep(30)
    if op == "partial":
        send_raw("J", b"{", 100)
        time.sleep(60)
    if op == "oversize":
        send_raw("J", b"{", 1 << 30)
        time.sleep(60)
    if op == "notjson":
        send_raw("J", b"\x80abc")
        time.sleep(60)
    if op == "shape":
        send_raw("J", b"[1,2,3]")
        time.sleep(60)
    if op == "flood":
        chunk = b"x" * (1 << 20)
        for _ in range(payload):
            os.write(1, chunk)
            os.write(2, chunk)
        return "flooded"
    if op == "kbint":
        raise KeyboardInterrupt
    if op == "sysexit":
        raise SystemExit(3)
    if op == "exit":
        os._exit(7)
    if op == "cpu":
        while True:
            pass
    if op == "sleep":
        time.sleep(payload)
        return "slept"
    if op == "thread":

        def spin() -> None:
            while True:
                time.sleep(0.01)

        threading.Thread(target=spin, daemon=False).start()
        return threading.active_count()
    if op == "mem":
        blob = bytearray(payload * 1024 * 1024)
        return len(blob)
    if op == "lift":
        out = {}
        for name in ("RLIMIT_AS", "RLIMIT_CPU", "RLIMIT_NPROC", "RLIMIT_NOFILE", "RLIMIT_FSIZE"):
            res = getattr(resource, name)
            try:
                resource.setrlimit(res, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
                out[name] = "lifted"
            except (ValueError, OSError) as exc:
                out[name] = type(exc).__name__
        return out
    if op == "fork":
        n, error = fork_bomb(10_000, 60)
        return {"forked": n, "error": error}
    if op == "files":  # paths to read and write: the organiser's results, scenarios, ...
        out = {}
        for path in payload:
            try:
                with open(path, "rb") as f:
                    out[path] = f"read {len(f.read(100))} bytes"
            except OSError as exc:
                out[path] = type(exc).__name__
            try:
                with open(path, "ab") as f:
                    f.write(b"x")
                out[path] += "; wrote"
            except OSError as exc:
                out[path] += "; " + type(exc).__name__
        return out
    if op == "proc":  # the organiser's pid: its memory, fds, a signal
        pid = payload
        out = {}
        for what in ("mem", "fd", "environ", "cmdline"):
            try:
                if what == "fd":
                    out[what] = str(len(os.listdir(f"/proc/{pid}/fd")))
                else:
                    with open(f"/proc/{pid}/{what}", "rb") as f:
                        out[what] = f"read {len(f.read(64))}"
            except OSError as exc:
                out[what] = type(exc).__name__
        try:
            os.kill(pid, signal.SIGTERM)
            out["kill"] = "sent"
        except OSError as exc:
            out["kill"] = type(exc).__name__
        out["pids"] = sorted(p for p in os.listdir("/proc") if p.isdigit())
        return out
    if op == "killall":  # only ever run in the os sandbox: -1 is every process it can see
        os.kill(-1, signal.SIGKILL)
        return "sent"
    if op == "net":
        out = {}
        for host, port in payload:
            s = socket.socket()
            s.settimeout(2)
            try:
                s.connect((host, port))
                out[f"{host}:{port}"] = "connected"
            except OSError as exc:
                out[f"{host}:{port}"] = type(exc).__name__
            finally:
                s.close()
        return out
    if op == "who":
        return {
            "uid": os.getuid(),
            "cwd": os.getcwd(),
            "root": sorted(os.listdir("/")),
            "path": sys.path,
        }
    if op == "bigfile":
        with open("big.bin", "wb") as f:
            for _ in range(payload):
                f.write(b"x" * (1 << 20))
        return "written"
    if op == "then":  # answer now, then a second frame (the organiser's receive)
        from accord.sandbox import Then

        def follow() -> Any:
            if payload == "raise":
                raise RuntimeError("follow failed")
            return {"second": payload}

        return Then({"first": payload}, follow)
    if op in ("denied", "status"):  # the seccomp probes of hostile_syscalls, here too
        import hostile_syscalls

        return hostile_syscalls.run(op, payload, context)
    if op == "then_set":  # a first answer that is not JSON: no second frame follows
        from accord.sandbox import Then

        return Then({1, 2}, lambda: "never sent")
    raise ValueError(f"unknown op {op!r}")
