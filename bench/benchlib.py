"""Shared helpers of the benchmarks: child processes timed by CPU and wall, load, versions.

Every ratio in ``bench/`` compares two sides measured run by run, interleaved, with the
same timing method; these helpers keep that method in one place.

    >>> summary([3.0, 1.0, 2.0])
    (2.0, 1.0, 3.0)
"""

from __future__ import annotations

import os
import platform
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent


def child(
    cmd: Sequence[str], stdin: str = "", env: dict[str, str] | None = None
) -> tuple[float, float, str]:
    """Run ``cmd``; its (CPU seconds, wall seconds, stdout). CPU is user + system of the
    child by ``RUSAGE_CHILDREN`` (start-up included), so both sides are timed alike."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run(
        list(cmd), input=stdin, capture_output=True, text=True, env=env, check=False
    )
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed:\n{proc.stderr[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall, proc.stdout


def summary(xs: Sequence[float]) -> tuple[float, float, float]:
    """(median, min, max) of ``xs``."""
    return statistics.median(xs), min(xs), max(xs)


def load() -> str:
    """The 1-minute load average and the number of cores, as text."""
    return f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores"


def src_env() -> dict[str, str]:
    """An environment that imports this tree's Accord."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT / "src") + os.pathsep + env.get("PYTHONPATH", "")
    return env


def versions(peer_python: Path | None = None, peer: str = "") -> str:
    """Python, numpy and, if given, the peer package's version in its venv."""
    import numpy

    text = f"python {platform.python_version()}, numpy {numpy.__version__}"
    if peer_python is not None and peer_python.exists():
        out = subprocess.run(
            [str(peer_python), "-c", f"import importlib.metadata as m; print(m.version('{peer}'))"],
            capture_output=True,
            text=True,
            check=False,
        )
        text += f", {peer} {out.stdout.strip() or '?'} (peer venv)"
    return text


PY = sys.executable


def genius_folder(name: str) -> Path:
    """A GENIUS scenario folder by name: from ``$ACCORD_SCENARIOS``, else ``shared/scenarios``
    beside the checkout (or beside any folder above it: a worktree), else the bundled test
    copies in tests/data/scenarios (which hold the ones the smoke runs use)."""
    roots = [Path(os.environ["ACCORD_SCENARIOS"])] if os.environ.get("ACCORD_SCENARIOS") else []
    roots += [p / "shared" / "scenarios" for p in ROOT.parents if (p / "shared").is_dir()]
    roots.append(ROOT / "tests" / "data" / "scenarios")
    for root in roots:
        if (root / "genius" / name).is_dir():
            return root / "genius" / name
    raise FileNotFoundError(f"no GENIUS scenario folder {name!r} under any of {roots}")
