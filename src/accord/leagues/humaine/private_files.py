"""Small JSON maps kept beside a server's SQLite file, readable by their owner only.

>>> import tempfile, pathlib
>>> p = pathlib.Path(tempfile.mkdtemp()) / "keys.json"
>>> write_private(p, {"person": "k1"})
>>> oct(p.stat().st_mode & 0o777), read_private(p)
('0o600', {'person': 'k1'})
>>> read_private(p.with_name("missing.json"))
{}
"""

from __future__ import annotations

import json
import os
from pathlib import Path

__all__ = ["read_private", "write_private"]


def read_private(path: Path | None) -> dict[str, str]:
    """The map stored at ``path``; empty when there is none or it cannot be read."""
    if path is None or not path.is_file():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {str(k): str(v) for k, v in data.items()} if isinstance(data, dict) else {}


def write_private(path: Path, data: dict[str, str]) -> None:
    """Write ``data`` as JSON to ``path``, readable by its owner only (0600)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        json.dump(data, f)
    os.chmod(path, 0o600)
