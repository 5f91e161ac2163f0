"""The cheap checks of a results file path, before anything heavy is imported.

>>> check_results_file("no/such.sqlite")
Traceback (most recent call last):
...
accord.core.errors.ConfigError: results file 'no/such.sqlite' does not exist
"""

from __future__ import annotations

from pathlib import Path

from accord.core.errors import ConfigError

SQLITE_HEADER = b"SQLite format 3\x00"


def check_results_file(path: str | Path) -> Path:
    """``path`` as a :class:`~pathlib.Path` if it is a SQLite file; else one clear error."""
    p = Path(path)
    if not p.is_file():
        what = "is a folder, not a file" if p.is_dir() else "does not exist"
        raise ConfigError(f"results file {str(p)!r} {what}")
    with p.open("rb") as f:
        head = f.read(16)
    if head != SQLITE_HEADER:
        raise ConfigError(
            f"{p} is not an Accord tournament results file: expected a SQLite "
            f"database (written by 'accord tournament'), got a file starting {head[:8]!r}"
        )
    return p
