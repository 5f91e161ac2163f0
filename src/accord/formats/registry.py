"""One entry point for every scenario source: files, folders and bundled names.

``load_scenario`` accepts a GENIUS folder (one XML domain and N XML profiles), a
GeniusWeb folder (JSON domain and profiles), a NegMAS folder (``Scenario.dumpas``
output, YAML or JSON; see :mod:`accord.formats.negmas_files`), a native ``.json`` file,
or the name of a scenario bundled with Accord (see :func:`accord.scenarios.list_bundled`).

    >>> load_scenario("lunch").profile_names
    ('alice', 'bob')
    >>> try:
    ...     load_scenario("lunchh")
    ... except FormatError as e:
    ...     print(str(e).split(";")[1])
     did you mean 'lunch'? Bundled: car_purchase, holiday, job_offer, lunch, meeting, supply_contract
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Literal

from accord.core.errors import FormatError
from accord.core.scenario import Scenario
from accord.formats.genius import IGNORED_FILES, read_genius_folder
from accord.formats.genius_write import write_genius_folder
from accord.formats.geniusweb import PROFILE_KEY, read_geniusweb_folder
from accord.formats.native import FORMAT, read_native, write_native

SourceFormat = Literal["native", "genius", "geniusweb", "negmas"]


def detect_format(path: str | Path) -> SourceFormat:
    """Which reader handles ``path`` (an existing file or folder)."""
    p = Path(path)
    if p.is_dir():
        if any(f.name.lower() not in IGNORED_FILES for f in p.glob("*.xml")):
            return "genius"
        from accord.formats.negmas_files import is_negmas_folder

        if is_negmas_folder(p):
            return "negmas"
        jsons = sorted(p.glob("*.json"))
        if any(_json_kind(f) == "geniusweb" for f in jsons):
            return "geniusweb"
        natives = [f for f in jsons if _json_kind(f) == "native"]
        if len(natives) == 1:
            return "native"
        raise FormatError(
            f"{p}: expected GENIUS XML files, GeniusWeb JSON files, a NegMAS scenario "
            f"(Scenario.dumpas) or one native scenario file; found {sorted(f.name for f in p.iterdir())[:10]}"
        )
    if p.suffix.lower() == ".json":
        kind = _json_kind(p)
        if kind == "geniusweb":
            raise FormatError(
                f"{p}: this is a GeniusWeb file; load its folder ({p.parent}) to get the "
                "domain and every profile"
            )
        return "native"
    if p.suffix.lower() in (".yml", ".yaml"):
        raise FormatError(
            f"{p}: a single NegMAS file is not a scenario; load its folder ({p.parent}), "
            "which holds the outcome space and the utility functions"
        )
    if p.suffix.lower() == ".xml":
        raise FormatError(
            f"{p}: a single GENIUS file is not a scenario; load its folder ({p.parent}), "
            "which holds the domain and the profiles"
        )
    raise FormatError(f"{p}: expected a folder or a .json file, got a {p.suffix or 'plain'} file")


def _json_kind(path: Path) -> str:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return "unknown"
    if isinstance(data, dict) and data.get("format") == FORMAT:
        return "native"
    if isinstance(data, dict) and (PROFILE_KEY in data or "issuesValues" in data):
        return "geniusweb"
    return "unknown"


def load_scenario(source: str | Path, profiles: Sequence[str] | None = None) -> Scenario:
    """Load a scenario from a folder, a native file or a bundled scenario name.

    ``profiles`` keeps only the named profiles, in that order (see
    :func:`accord.formats.profiles.select_profiles`)::

        >>> load_scenario("lunch", profiles=["bob", "alice"]).profile_names
        ('bob', 'alice')
    """
    scenario = _load(source)
    if profiles is not None:
        from accord.formats.profiles import select_profiles

        scenario = select_profiles(scenario, profiles)
    return scenario


def _load(source: str | Path) -> Scenario:
    p = Path(source)
    if p.exists():
        kind = detect_format(p)
        if kind == "genius":
            return read_genius_folder(p)
        if kind == "geniusweb":
            return read_geniusweb_folder(p)
        if kind == "negmas":
            from accord.formats.negmas_files import read_negmas_folder

            return read_negmas_folder(p)
        if p.is_dir():
            return read_native(next(f for f in p.glob("*.json") if _json_kind(f) == "native"))
        return read_native(p)
    from accord.scenarios import bundled_path, list_bundled

    name = str(source)
    found = bundled_path(name)
    if found is not None:
        return read_native(found)
    names = list_bundled()
    close = difflib.get_close_matches(name, names, n=1)
    hint = f"did you mean {close[0]!r}? " if close else ""
    raise FormatError(
        f"no scenario file, folder or bundled scenario named {name!r}; {hint}"
        f"Bundled: {', '.join(names)}"
    )


def save_scenario(
    scenario: Scenario,
    dest: str | Path,
    format: SourceFormat = "native",
    rescale: bool = False,
    description: str | None = None,
) -> Path:
    """Write ``scenario``: a native ``.json`` file or a GENIUS folder.

    Args:
        scenario: what to write.
        dest: a ``.json`` path (native) or a folder (GENIUS; created if needed).
        format: ``"native"`` or ``"genius"`` (GeniusWeb is read-only).
        rescale: GENIUS only; write profiles even if GENIUS will rescale them.
        description: native only; a one-line description stored in the file.
    """
    if format == "native":
        path = Path(dest)
        if path.is_dir() or path.suffix.lower() != ".json":
            path = path / f"{scenario.name}.json"
        return write_native(scenario, path, description)
    if format == "genius":
        return write_genius_folder(scenario, dest, rescale=rescale)
    raise FormatError(f"cannot write format {format!r}; expected 'native' or 'genius'")
