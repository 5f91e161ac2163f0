"""The native scenario file: one JSON document that round-trips exactly.

Layout (``version`` 1)::

    {"format": "accord.scenario", "version": 1, "name": "lunch", "description": "...",
     "issues": OutcomeSpace.to_list(),
     "profiles": [{"name": "alice", "utility": UtilityFunction.to_dict()}, ...]}

Floats are written with Python's shortest round-trip repr, and utilities are rebuilt
without rescaling, so reading a written file gives the same utilities bit for bit.

    >>> from accord.core.outcomes import CategoricalIssue, OutcomeSpace
    >>> from accord.core.utilities import LinearAdditiveUtility
    >>> space = OutcomeSpace([CategoricalIssue("x", ["a", "b"])])
    >>> u = LinearAdditiveUtility(space, [1.0], [{"a": 1.0, "b": 0.3}], reservation=0.2)
    >>> s = Scenario("tiny", space, (u, u), ("p", "q"))
    >>> back = scenario_from_dict(scenario_to_dict(s))
    >>> back.profile_names, back.utilities[1](("b",)), back.utilities[0].reservation
    (('p', 'q'), 0.3, 0.2)
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from accord.core.errors import FormatError, InvalidScenario
from accord.core.outcomes import OutcomeSpace
from accord.core.scenario import Scenario
from accord.core.utilities import UtilityFunction, utility_from_dict
from accord.formats.geniusweb import read_json
from accord.formats.legacy import genius_additive_from_dict

FORMAT = "accord.scenario"
VERSION = 1


def utility_from_native(space: OutcomeSpace, data: Mapping[str, Any]) -> UtilityFunction:
    """A utility from its ``to_dict`` form (core types and ``genius_additive``)."""
    if data.get("type") == "genius_additive":
        return genius_additive_from_dict(space, data)
    return utility_from_dict(space, data)


def scenario_to_dict(scenario: Scenario, description: str | None = None) -> dict[str, Any]:
    """The JSON-ready native form of a scenario."""
    out: dict[str, Any] = {"format": FORMAT, "version": VERSION, "name": scenario.name}
    if description:
        out["description"] = description
    out["issues"] = scenario.space.to_list()
    out["profiles"] = [
        {"name": n, "utility": u.to_dict()}
        for n, u in zip(scenario.profile_names, scenario.utilities, strict=True)
    ]
    return out


def _fail(source: str, where: str, message: str) -> FormatError:
    return FormatError(f"{source}: {where}: {message}")


def scenario_from_dict(data: Any, source: str = "<native scenario>") -> Scenario:
    """Inverse of :func:`scenario_to_dict`; errors name ``source`` and the JSON location."""
    if not isinstance(data, dict):
        raise _fail(source, "document", f"expected a JSON object, got {type(data).__name__}")
    if data.get("format") != FORMAT:
        raise _fail(source, "format", f"expected {FORMAT!r}, got {data.get('format')!r}")
    if data.get("version") != VERSION:
        raise _fail(source, "version", f"expected {VERSION}, got {data.get('version')!r}")
    name = data.get("name")
    if not isinstance(name, str):
        raise _fail(source, "name", f"expected a string, got {name!r}")
    issues = data.get("issues")
    if not isinstance(issues, list):
        raise _fail(source, "issues", f"expected a list of issues, got {type(issues).__name__}")
    try:
        space = OutcomeSpace.from_list(issues)
    except (InvalidScenario, KeyError, TypeError, ValueError) as e:
        raise _fail(source, "issues", _reason(e)) from None
    profiles = data.get("profiles")
    if not isinstance(profiles, list):
        raise _fail(source, "profiles", f"expected a list, got {type(profiles).__name__}")
    utilities: list[UtilityFunction] = []
    names: list[str] = []
    for k, p in enumerate(profiles):
        where = f"profiles[{k}]"
        if not isinstance(p, dict) or not isinstance(p.get("utility"), dict):
            raise _fail(source, where, 'expected {"name": ..., "utility": {...}}')
        try:
            utilities.append(utility_from_native(space, p["utility"]))
        except (InvalidScenario, KeyError, TypeError, ValueError) as e:
            raise _fail(source, f"{where}.utility", _reason(e)) from None
        names.append(str(p.get("name", f"profile{k + 1}")))
    try:
        return Scenario(name, space, tuple(utilities), tuple(names))
    except InvalidScenario as e:
        raise _fail(source, "profiles", str(e)) from None


def _reason(e: Exception) -> str:
    if isinstance(e, KeyError):
        return f"missing key {e.args[0]!r}"
    return str(e)


def _dump(obj: Any, level: int = 0) -> str:
    """Indented JSON that keeps short lists (and each pair of a value table) on one line."""
    pad = "  " * (level + 1)
    if isinstance(obj, dict):
        if not obj:
            return "{}"
        items = [f"{pad}{json.dumps(str(k))}: {_dump(v, level + 1)}" for k, v in obj.items()]
        return "{\n" + ",\n".join(items) + "\n" + "  " * level + "}"
    if isinstance(obj, list):
        flat = json.dumps(obj, ensure_ascii=False)
        if len(flat) + len(pad) <= 96 and not any(isinstance(x, dict) for x in obj):
            return flat
        if not obj:
            return "[]"
        items = [pad + _dump(x, level + 1) for x in obj]
        return "[\n" + ",\n".join(items) + "\n" + "  " * level + "]"
    return json.dumps(obj, ensure_ascii=False)


def native_text(scenario: Scenario, description: str | None = None) -> str:
    """The native file text of a scenario."""
    return _dump(scenario_to_dict(scenario, description)) + "\n"


def write_native(scenario: Scenario, path: str | Path, description: str | None = None) -> Path:
    """Write ``scenario`` to a native ``.json`` file."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(native_text(scenario, description), encoding="utf-8")
    return p


def read_native(path: str | Path) -> Scenario:
    """Read a native scenario file."""
    p = Path(path)
    return scenario_from_dict(read_json(p), str(p))


def native_description(path: str | Path) -> str:
    """The ``description`` of a native file ("" when absent)."""
    data = read_json(Path(path))
    return str(data.get("description", "")) if isinstance(data, dict) else ""
