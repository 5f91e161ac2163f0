"""Finding the scenarios a tournament names, and writing them into a results file.

A scenario entry is a :class:`Scenario` object, ``builtin:<name>`` (small scenarios
generated in code, always available) or any name/path ``accord.formats.load_scenario``
understands (bundled scenarios, GENIUS/GeniusWeb folders, native files).

    >>> resolve_scenario("builtin:tiny").n_parties
    2
    >>> sorted(BUILTIN)
    ['bilateral', 'tiny', 'trilateral']
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from accord.core.errors import AccordError, ConfigError
from accord.core.finder import huge_space_note
from accord.core.generate import random_linear_scenario
from accord.core.outcomes import OutcomeSpace
from accord.core.scenario import Scenario
from accord.formats.discretize import (
    DEFAULT_LEVELS,
    discretization_note,
    discretize_scenario,
    needs_discretization,
)
from accord.formats.native import utility_from_native
from accord.formats.profiles import profile_groups, select_profiles


def _builtin(name: str, issues: int, values: int, parties: int, seed: int) -> Scenario:
    base = random_linear_scenario(issues, values, parties, seed, reservation=0.2)
    return Scenario(f"builtin:{name}", base.space, base.utilities, base.profile_names)


BUILTIN: dict[str, Callable[[], Scenario]] = {
    "tiny": lambda: _builtin("tiny", 2, 3, 2, 7),
    "bilateral": lambda: _builtin("bilateral", 4, 6, 2, 11),
    "trilateral": lambda: _builtin("trilateral", 3, 5, 3, 13),
}


def resolve_scenario(entry: str | Scenario) -> Scenario:
    """The :class:`Scenario` an entry of ``TournamentConfig.scenarios`` names."""
    if isinstance(entry, Scenario):
        return entry
    if not isinstance(entry, str):
        raise ConfigError(f"a scenario entry must be a name, a path or a Scenario; got {entry!r}")
    if entry.startswith("builtin:"):
        key = entry.split(":", 1)[1]
        if key not in BUILTIN:
            raise ConfigError(f"no built-in scenario {key!r}; available: {sorted(BUILTIN)}")
        return BUILTIN[key]()
    loader = _loader()
    if loader is None:
        raise ConfigError(
            f"cannot load scenario {entry!r}: accord.formats.load_scenario is not available; "
            f"use a built-in scenario ({', '.join('builtin:' + k for k in BUILTIN)})"
        )
    try:
        scenario = loader(entry)
    except AccordError:
        raise
    except (OSError, ValueError, KeyError) as exc:
        raise ConfigError(f"cannot load scenario {entry!r}: {exc}") from exc
    if not isinstance(scenario, Scenario):
        raise ConfigError(f"loading {entry!r} gave {type(scenario).__name__}, not a Scenario")
    return scenario


def _expand(entry: str | Scenario | Mapping[str, Any]) -> list[Scenario]:
    """The scenarios of one entry: itself, or one per profile group it asks for."""
    if not isinstance(entry, Mapping):
        return [resolve_scenario(entry)]
    base = resolve_scenario(entry["scenario"])
    spec = entry.get("profiles")
    if spec is None:
        return [base]
    return [select_profiles(base, group) for group in profile_groups(base, spec)]


def resolve_scenarios(
    entries: Sequence[str | Scenario | Mapping[str, Any]],
    discretize: int | None = None,
    notes: list[str] | None = None,
) -> dict[str, Scenario]:
    """Resolve every entry; names must be unique (they key the schedule and the results).

    Scenarios with real issues or too many outcomes to enumerate are discretised with
    ``discretize`` levels (10 if None; 0 leaves them as they are); what was done is
    appended to ``notes``.

        >>> notes: list[str] = []
        >>> sorted(resolve_scenarios(["builtin:tiny"], notes=notes)), notes
        (['builtin:tiny'], [])
    """
    out: dict[str, Scenario] = {}
    levels = DEFAULT_LEVELS if discretize is None else discretize
    for e in entries:
        for s in _expand(e):
            if levels and needs_discretization(s.space):
                done = discretize_scenario(s, levels)
                note = discretization_note(s, done)
                if note and notes is not None:
                    notes.append(f"{s.name}: {note} (setting discretize)")
                s = done
            big = huge_space_note(s.utilities)
            if big and notes is not None:
                notes.append(f"{s.name}: {big}")
            _add(out, s)
    return out


def _add(out: dict[str, Scenario], s: Scenario) -> None:
    if s.name in out:
        raise ConfigError(f"two scenarios are both named {s.name!r}; scenario names must differ")
    out[s.name] = s


def bundled_scenarios() -> list[str]:
    """Names of the scenarios shipped with Accord (empty if none are available)."""
    try:
        bundled = importlib.import_module("accord.scenarios")
    except ImportError:
        return []
    lister = getattr(bundled, "list_bundled", None)
    return [str(n) for n in lister()] if callable(lister) else []


def _loader() -> Callable[[str], Any] | None:
    try:
        formats = importlib.import_module("accord.formats")
    except ImportError:  # pragma: no cover
        return None
    fn = getattr(formats, "load_scenario", None)
    return fn if callable(fn) else None


def scenario_to_dict(s: Scenario) -> dict[str, Any] | None:
    """JSON-ready form of a scenario, or None when a utility cannot be written."""
    try:
        return {
            "name": s.name,
            "issues": s.space.to_list(),
            "profiles": list(s.profile_names),
            "utilities": [u.to_dict() for u in s.utilities],
        }
    except AccordError:
        return None


def scenario_from_dict(d: dict[str, Any]) -> Scenario:
    """Inverse of :func:`scenario_to_dict`."""
    space = OutcomeSpace.from_list(d["issues"])
    us = tuple(utility_from_native(space, u) for u in d["utilities"])
    return Scenario(d["name"], space, us, tuple(d["profiles"]))
