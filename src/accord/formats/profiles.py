"""Choosing which profiles of a scenario negotiate.

A GENIUS folder may hold more profiles than parties (``anac2010_ItexvsCypress`` has
Cypress, Cypress100, Itex and Itex50). A profile is named by its full name or by the
part after the last ``_`` (``Itex`` for ``ItexvsCypress_Itex``), case-insensitively.
:func:`select_profiles` keeps the named ones in the order given; :func:`profile_groups`
lists the groups a tournament plays: one group, several, every pair, or (as GENIUS does)
one profile from each side.

    >>> from accord.core.generate import random_linear_scenario
    >>> s = random_linear_scenario(2, 3, 4, seed=0)
    >>> s.profile_names
    ('profile1', 'profile2', 'profile3', 'profile4')
    >>> select_profiles(s, ["profile3", "PROFILE1"]).profile_names
    ('profile3', 'profile1')
    >>> [g for g in profile_groups(s, {"sides": [["profile1", "profile2"], ["profile4"]]})]
    [('profile1', 'profile4'), ('profile2', 'profile4')]
    >>> len(profile_groups(s, "pairs"))
    6
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from typing import Any

from accord.core.errors import ConfigError
from accord.core.scenario import Scenario


def _matches(name: str, profile: str) -> bool:
    n, p = name.strip().lower(), profile.lower()
    return n == p or p.rsplit("_", 1)[-1] == n


def find_profile(scenario: Scenario, name: str) -> int:
    """Index of the profile ``name`` names (full name or the part after the last ``_``)."""
    hits = [k for k, p in enumerate(scenario.profile_names) if _matches(name, p)]
    if len(hits) == 1:
        return hits[0]
    known = ", ".join(scenario.profile_names)
    if not hits:
        raise ConfigError(f"scenario {scenario.name!r} has no profile {name!r}; profiles: {known}")
    raise ConfigError(f"profile {name!r} is ambiguous in {scenario.name!r}; profiles: {known}")


def select_profiles(scenario: Scenario, names: Sequence[str]) -> Scenario:
    """The scenario with only the named profiles, in the order given.

    The new scenario is named ``name[p1,p2]`` unless every profile is kept in order.
    """
    if isinstance(names, str):
        names = [n for n in names.replace("+", ",").split(",") if n.strip()]
    picked = [find_profile(scenario, n) for n in names]
    if len(picked) < 2:
        raise ConfigError(
            f"choose at least 2 profiles of {scenario.name!r}, got {list(names)}; "
            f"profiles: {', '.join(scenario.profile_names)}"
        )
    if len(set(picked)) != len(picked):
        raise ConfigError(f"a profile is chosen twice: {list(names)}")
    if picked == list(range(scenario.n_parties)):
        return scenario
    profiles = tuple(scenario.profile_names[k] for k in picked)
    short = ",".join(p.rsplit("_", 1)[-1] for p in profiles)
    return Scenario(
        f"{scenario.name}[{short}]",
        scenario.space,
        tuple(scenario.utilities[k] for k in picked),
        profiles,
    )


def profile_groups(scenario: Scenario, spec: Any) -> list[tuple[str, ...]]:
    """The groups of profile names ``spec`` asks for.

    ``spec`` is a list of names (one group), a list of lists (several groups),
    ``"pairs"`` (every pair of profiles) or ``{"sides": [[...], [...]]}`` (one profile
    from each side, every combination, as a GENIUS tournament does).
    """
    names = scenario.profile_names
    if spec == "pairs":
        return list(itertools.combinations(names, 2))
    if isinstance(spec, Mapping):
        if set(spec) != {"sides"} or not _list_of_lists(spec["sides"]):
            raise ConfigError(
                f"profiles of {scenario.name!r}: expected {{sides: [[...], [...]]}}, got {spec!r}"
            )
        sides = [[names[find_profile(scenario, n)] for n in side] for side in spec["sides"]]
        return [g for g in itertools.product(*sides) if len(set(g)) == len(g)]
    if _list_of_lists(spec):
        return [tuple(names[find_profile(scenario, n)] for n in g) for g in spec]
    if isinstance(spec, Sequence) and not isinstance(spec, str):
        return [tuple(names[find_profile(scenario, str(n))] for n in spec)]
    raise ConfigError(
        f"profiles of {scenario.name!r}: expected a list of names, a list of lists, 'pairs' "
        f"or {{sides: [...]}}; got {spec!r}"
    )


def _list_of_lists(x: Any) -> bool:
    return (
        isinstance(x, Sequence)
        and not isinstance(x, str)
        and bool(x)
        and all(isinstance(g, Sequence) and not isinstance(g, str) for g in x)
    )
