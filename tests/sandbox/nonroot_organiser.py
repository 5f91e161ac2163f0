"""The red-team checks of an organiser that is not root, run as a script by
``test_nonroot_organiser.py`` (as an unprivileged uid when the suite runs as root).

It first starts more processes of its own user than a sandbox may have, so a process
limit counted over the whole user (not the sandbox's user namespace) would stop the
sandbox from starting a thread; then it runs hostile agents through the sandbox and
a tournament with hostile entrants, and prints what it saw as one JSON line.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ENTRIES = str(HERE / "entries")
OWN_PROCESSES = 40  # more than LIMITS.processes: the user's processes must not count


def main() -> dict[str, Any]:
    from accord.sandbox import AgentTimeout, Limits, sandbox_available, start_sandbox
    from accord.sandbox.bwrap import os_strategy
    from accord.tournament.config import TournamentConfig
    from accord.tournament.runner import run_tournament

    seen: dict[str, Any] = {"uid": os.getuid(), "available": sandbox_available()}
    seen["strategy"] = os_strategy()
    sleepers = [subprocess.Popen(["sleep", "60"]) for _ in range(OWN_PROCESSES)]
    limits = Limits(processes=16, cpu_seconds=30, memory_mb=1024, call_timeout=5.0)
    try:
        results = Path("results.sqlite")
        results.write_bytes(b"SQLite format 3\x00" + b"\x00" * 100)
        host = "accord.sandbox.host:EchoHost"
        with start_sandbox(host, "hostile_fns:run", code_paths=[ENTRIES], limits=limits) as box:
            seen["echo"] = box.call("echo", [1, "x"])
            seen["threads"] = box.call("thread")
            seen["lift"] = box.call("lift")
            seen["files"] = box.call("files", [str(results.resolve())])
            seen["proc"] = box.call("proc", os.getpid())
            seen["who"] = box.call("who")["uid"]
            seen["denied"] = sorted(set(box.call("denied").values()))
            seen["status"] = box.call("status")
            seen["fork"] = box.call("fork", timeout=30)
            start = time.monotonic()
            try:
                box.call("partial", timeout=2.0)  # last: it kills the sandbox
            except AgentTimeout as exc:
                seen["partial"] = [exc.kind, time.monotonic() - start < 15]
        agents = [
            {"name": n, "type": f"hostile_negotiators:{n}", "params": {"target": os.getpid()}}
            for n in ("ProcSpy",)
        ]
        cfg = TournamentConfig(
            ("Boulware=boulware", *agents), ("builtin:tiny",), self_play=False, rotate=False,
            pairing="combinations", time_limit=1.0, memory_limit=256, sandbox="auto",
        )  # fmt: skip
        run = run_tournament(cfg, "t.sqlite")
        with sqlite3.connect("t.sqlite") as db:
            rows = db.execute("SELECT failure_agent, failure_message FROM sessions").fetchall()
        seen["tournament"] = [run.ran, run.total, sorted(rows, key=str)]
        seen["results_intact"] = results.read_bytes().endswith(b"\x00")
        # the tournament forked its sandboxes from a zygote; two forked ones collude
        from accord.sandbox.zygote import forking_unavailable

        pair = [
            start_sandbox(host, "colluders:run", code_paths=[ENTRIES], limits=limits, fork=True)
            for _ in range(2)
        ]
        pair[0].call("plant", "s3cret")
        found = pair[1].call("steal", None)
        seen["forking"] = forking_unavailable()
        seen["colluders"] = sorted(k for k, v in found.items() if "s3cret" in str(v))
        seen["forked status"] = pair[1].call("where", None)["pid"]
        for box in pair:
            box.close()
    finally:
        for p in sleepers:
            p.kill()
            p.wait()
    return seen


if __name__ == "__main__":
    sys.path.insert(0, ENTRIES)
    print(json.dumps(main()))
