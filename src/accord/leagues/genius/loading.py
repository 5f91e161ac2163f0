"""Find a domain: a bundled one by name, a native JSON file or a GENIUS BIU/QO folder.

>>> bundled_domains()
['england_zimbabwe', 'job_candidate']
"""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

from accord.core.errors import InvalidScenario
from accord.leagues.genius.domain import Domain
from accord.leagues.genius.genius_xml import Missing, read_biu_folder

__all__ = ["bundled_domains", "load_domain"]


def bundled_domains() -> list[str]:
    """Names of the domains shipped with the league."""
    folder = resources.files("accord.leagues.genius") / "domains"
    return sorted(p.name[:-5] for p in folder.iterdir() if p.name.endswith(".json"))


def load_domain(source: str | Path, missing: Missing = "refuse") -> Domain:
    """A bundled domain by name, a native JSON file or a GENIUS BIU/QO folder.

    ``missing``: for a GENIUS folder, what to do when a profile lacks its status quo,
    opt-out or time effect (see :func:`~accord.leagues.genius.genius_xml.read_biu_folder`).
    """
    if isinstance(source, str) and source in bundled_domains():
        text = (resources.files("accord.leagues.genius") / "domains" / f"{source}.json").read_text(
            encoding="utf-8"
        )
        return Domain.from_dict(json.loads(text), source)
    path = Path(source)
    if path.is_dir():
        return read_biu_folder(path, missing)
    if path.is_file():
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except json.JSONDecodeError as exc:
            raise InvalidScenario(f"{path}: not valid JSON ({exc})") from exc
        return Domain.from_dict(data, str(path))
    raise InvalidScenario(
        f"no domain {str(source)!r}: not a bundled domain ({', '.join(bundled_domains())}), "
        "a native JSON file or a GENIUS folder"
    )
