"""The peers' virtualenvs: one per peer package, under bench/, made on first use.

The peers (negmas, scml) are never dependencies of Accord; each benchmark asks for the
interpreter of the venv holding its pinned peer.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def peer_python(venv: str, requirement: str) -> Path:
    """The python of ``bench/<venv>``, created with ``requirement`` installed if missing."""
    path = HERE / venv
    python = path / "bin" / "python"
    if not python.exists():
        print(f"installing {requirement} into bench/{venv} ...", flush=True)
        subprocess.run([sys.executable, "-m", "venv", str(path)], check=True)
        subprocess.run([str(python), "-m", "pip", "install", "-q", requirement], check=True)
    return python
