"""Test kit for resumable runs: kill a run (kill -9) mid-way, count the rows it left.

:func:`kill_mid_run` starts a command in its own process group, waits until the
results file gains a few rows, kills the parent alone with ``SIGKILL`` after a random
pause, and checks that no worker of the group outlives it; :func:`count_rows` reads
how far a (possibly half-created) file got.

    >>> import sys, tempfile, pathlib
    >>> with tempfile.TemporaryDirectory() as d:
    ...     out = pathlib.Path(d) / "r.sqlite"
    ...     code = (
    ...         "import sqlite3, sys, time; c = sqlite3.connect(sys.argv[1], isolation_level=None)\\n"
    ...         "c.execute('CREATE TABLE IF NOT EXISTS t (i INTEGER)')\\n"
    ...         "while True: c.execute('INSERT INTO t VALUES (1)'); time.sleep(0.01)"
    ...     )
    ...     counts = kill_mid_run(
    ...         [sys.executable, "-c", code, str(out)], d, lambda: count_rows(out, "t"),
    ...         np.random.default_rng(0), kills=1, max_pause=0.05,
    ...     )
    ...     counts[0] >= 2
    True
"""

from __future__ import annotations

import contextlib
import os
import signal
import sqlite3
import subprocess
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np


def count_rows(path: Path, table: str) -> int:
    """Rows of ``table`` in the SQLite file ``path``; 0 while the file or table is missing."""
    if not path.exists():
        return 0
    try:
        with sqlite3.connect(path) as conn:
            return int(conn.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0])
    except sqlite3.Error:  # the file may still be being created
        return 0


def group_alive(pgid: int, wait: float) -> bool:
    """True if a process of group ``pgid`` is still alive after ``wait`` seconds."""
    end = time.time() + wait
    while time.time() < end:
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return False
        time.sleep(0.05)
    return True


def kill_mid_run(
    cmd: Sequence[str],
    cwd: str | Path,
    stored: Callable[[], int],
    rng: np.random.Generator,
    *,
    kills: int = 2,
    max_pause: float = 0.5,
    poll: float = 0.02,
    timeout: float = 60.0,
) -> list[int]:
    """Run ``cmd`` ``kills`` times, each killed with ``SIGKILL`` once ``stored()`` has grown
    by 2 (or after ``timeout`` s, or when it exits) plus a pause drawn uniformly from
    ``[0, max_pause)``. Only the parent is killed; a worker of its process group still
    alive 5 s later fails the check (``AssertionError``), after the group is cleaned up.
    Returns ``stored()`` after each kill."""
    counts = []
    for _ in range(kills):
        before = stored()
        proc = subprocess.Popen(
            list(cmd),
            cwd=cwd,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        deadline = time.time() + timeout
        while stored() < before + 2 and time.time() < deadline and proc.poll() is None:
            time.sleep(poll)
        time.sleep(float(rng.uniform(0.0, max_pause)))
        with contextlib.suppress(ProcessLookupError):
            os.kill(proc.pid, signal.SIGKILL)  # only the parent process
        proc.wait()
        orphans = group_alive(proc.pid, wait=5.0)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        if orphans:
            raise AssertionError("worker processes outlived the killed run")
        counts.append(stored())
    return counts
