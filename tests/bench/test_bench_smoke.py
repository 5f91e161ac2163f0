"""Every benchmark of bench/run_all.py still runs (tiny inputs, ours only; no time judged)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_run_all_smoke_runs_every_benchmark(tmp_path: Path) -> None:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT / "src")
    proc = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "run_all.py"), "--smoke"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        timeout=600,  # generous: a loaded shared machine; typically well under a minute
        check=False,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    listed = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "run_all.py"), "--list"],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    ).stdout
    names = [line.split()[0] for line in listed.splitlines()]
    for name in names:
        assert f"== {name} " in proc.stdout, f"{name} did not run in --smoke"
    for name in ("startup", "core", "scml_sizes", "sandbox", "speech", "study_latency"):
        assert name in names
    blocks = (ROOT / "BENCHMARKS.md").read_text(encoding="utf-8")
    for name in names:  # each one's output has its place in BENCHMARKS.md
        assert f"<!-- run_all:{name} -->" in blocks, name
