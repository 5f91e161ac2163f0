"""A real Ray head for tests: ``ray start --head --block`` with token authentication, pinned
to loopback, on free ports, in a short temporary directory; stopped by killing exactly the
processes it started (never ``ray stop``, which stops every Ray on the machine)."""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import psutil

SRC = Path(__file__).resolve().parents[2] / "src"
_PORTS = (
    "port",
    "node-manager-port",
    "object-manager-port",
    "dashboard-port",
    "dashboard-agent-listen-port",
    "dashboard-agent-grpc-port",
    "runtime-env-agent-port",
    "metrics-export-port",
)
_AUTH = ("RAY_AUTH_MODE", "RAY_AUTH_TOKEN", "RAY_AUTH_TOKEN_PATH", "RAY_ADDRESS")


@dataclass(frozen=True)
class Head:
    address: str  # 127.0.0.1:PORT
    token_file: Path
    dir: Path  # the head's temporary directory (also HOME of the test's clients)
    process: subprocess.Popen[bytes]

    def client_env(self) -> dict[str, str]:
        """An environment for a client process: no token, no ~/.ray, Accord importable."""
        env = {k: v for k, v in os.environ.items() if k not in _AUTH}
        env["HOME"] = str(self.dir)
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(SRC), env.get("PYTHONPATH")]))
        env["COLUMNS"] = "80"
        return env

    def processes(self) -> list[psutil.Process]:
        """Every live process this head started (its process group, or naming its dir)."""
        out = []
        for p in psutil.process_iter(["pid", "cmdline"]):
            try:
                if p.status() == psutil.STATUS_ZOMBIE:
                    continue
                if os.getpgid(p.pid) == self.process.pid or str(self.dir) in " ".join(
                    p.info["cmdline"] or ()
                ):
                    out.append(p)
            except (psutil.Error, ProcessLookupError):
                continue
        return out


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _ray_command() -> list[str]:
    exe = Path(sys.executable).with_name("ray")
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "ray.scripts.scripts"]


def _short_base() -> str:
    """TMPDIR, or /tmp when TMPDIR is too long for Ray's Unix sockets (< 108 bytes with
    the session and socket names Ray appends: CI runs with a 150-character TMPDIR)."""
    base = tempfile.gettempdir()
    return base if len(base) <= 30 else "/tmp"


@contextlib.contextmanager
def ray_head(cpus: int = 2, timeout: float = 60.0) -> Iterator[Head]:
    """Start a head with ``RAY_AUTH_MODE=token`` on 127.0.0.1, yield it, then kill it."""
    d = Path(tempfile.mkdtemp(prefix="acr", dir=_short_base()))
    token = d / "token"
    token.write_text(secrets.token_hex(16))
    ports = {name: _free_port() for name in _PORTS}
    env = {k: v for k, v in os.environ.items() if k not in _AUTH}
    env.update(
        RAY_AUTH_MODE="token",
        RAY_AUTH_TOKEN_PATH=str(token),
        RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER="0",  # keep 127.0.0.1 (Ray swaps it otherwise)
        HOME=str(d),
        PYTHONPATH=os.pathsep.join(filter(None, [str(SRC), os.environ.get("PYTHONPATH")])),
    )
    cmd = [
        *_ray_command(),
        "start",
        "--head",
        "--block",
        "--node-ip-address=127.0.0.1",
        f"--temp-dir={d / 'r'}",
        f"--num-cpus={cpus}",
        "--include-dashboard=false",
        "--disable-usage-stats",
        *(f"--{name}={port}" for name, port in ports.items()),
    ]
    log = (d / "head.log").open("wb")
    proc = subprocess.Popen(
        cmd, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
    )
    head = Head(f"127.0.0.1:{ports['port']}", token, d, proc)
    try:
        deadline = time.monotonic() + timeout
        while b"Ray runtime started" not in (d / "head.log").read_bytes():
            if proc.poll() is not None or time.monotonic() > deadline:
                tail = (d / "head.log").read_text(errors="replace")[-2000:]
                raise RuntimeError(f"ray start --head did not come up:\n{tail}")
            time.sleep(0.2)
        yield head
    finally:
        victims = head.processes()
        for p in victims:
            with contextlib.suppress(psutil.Error):
                p.send_signal(signal.SIGKILL)
        psutil.wait_procs(victims, timeout=10)
        proc.wait(timeout=10)
        log.close()
        shutil.rmtree(d, ignore_errors=True)
