"""Scenarios bundled with Accord (native JSON files shipped inside the package).

    >>> "lunch" in list_bundled()
    True
    >>> s = load_bundled("lunch")
    >>> round(s.utilities[0](("Hamburger", "Beer")), 12)
    0.91

The files are written from :mod:`accord.scenarios.catalog`
(``python -m accord.scenarios.catalog`` regenerates them).
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from accord.core.errors import FormatError
from accord.core.scenario import Scenario

_SUFFIX = ".json"


def _folder() -> Path:
    return Path(str(resources.files("accord.scenarios")))


def list_bundled() -> list[str]:
    """Names of the bundled scenarios, sorted."""
    return sorted(p.name[: -len(_SUFFIX)] for p in _folder().glob(f"*{_SUFFIX}"))


def bundled_path(name: str) -> Path | None:
    """The file of bundled scenario ``name`` (``None`` if there is none)."""
    if not name or "/" in name or "\\" in name or name.startswith("."):
        return None
    path = _folder() / f"{name}{_SUFFIX}"
    return path if path.is_file() else None


def load_bundled(name: str) -> Scenario:
    """Load a bundled scenario by name."""
    from accord.formats.native import read_native

    path = bundled_path(name)
    if path is None:
        raise FormatError(
            f"no bundled scenario named {name!r}; bundled: {', '.join(list_bundled())}"
        )
    return read_native(path)


def bundled_description(name: str) -> str:
    """The one-line description stored in a bundled scenario file."""
    from accord.formats.native import native_description

    path = bundled_path(name)
    return native_description(path) if path is not None else ""


__all__ = ["bundled_description", "bundled_path", "list_bundled", "load_bundled"]
