"""Which sandbox may play a session: a sandbox never sees a profile its agent's opponents play.

When a sandbox plays many of its agent's sessions (:mod:`accord.tournament.multiplex`),
everything it is given stays in one process: the agent's code can read its other
sessions' views (``gc.get_objects()``, module globals) and keep anything it was given
for later. So the organiser decides what a sandbox may be given, once for its whole
life, by profile: a :class:`Holds` records every profile its agent was given (its own)
and every profile an opponent played in those sessions (theirs). A session fits a
sandbox only if its agent's profile there is not one of theirs, and no opponent's
profile in it is one of its own. Then, at any moment, a sandbox holds only what its
agent was given as its own, and never a profile that an opponent plays in any session
it plays (now or earlier in its life): a hostile agent learns nothing of an opponent's
utility from its own process. Profiles are compared by content (:func:`profile_id`), so
the same profile reached through two scenario names is one profile. An opponent whose
profile equals the agent's own in that session hides nothing from it and is allowed.

In a tournament that rotates profiles, an agent plays every side of a scenario, so it
gets one sandbox per side (a 3-party scenario: three per agent), never one holding
two sides. :func:`order_key` orders sessions so that each agent's sessions on one side
come together (a worker's share of the schedule then needs fewer sandboxes); the order
changes no result (each session has its own seed).

    >>> h = Holds()
    >>> h.fits("u0", frozenset({"u1"}))
    True
    >>> h.add("u0", frozenset({"u1"}))
    >>> h.fits("u0", frozenset({"u1", "u2"})), h.fits("u1", frozenset({"u0"}))
    (True, False)
    >>> h.fits("u2", frozenset({"u0"}))  # an opponent would play a profile it was given
    False
"""

from __future__ import annotations

import hashlib
import pickle
import weakref
from collections.abc import Collection, Iterable, Mapping
from typing import Any

from accord.core.scenario import Scenario
from accord.tournament.schedule import SessionSpec

__all__ = [
    "Holds",
    "ProfileIds",
    "holds_of",
    "order_key",
    "profile_id",
    "profile_ids",
    "sides_per_agent",
]

_HOLDS: weakref.WeakKeyDictionary[Any, Holds] = weakref.WeakKeyDictionary()
_IDS: list[ProfileIds] = []  # the last few runs' (one per mapping of scenarios)


def profile_id(utility: Any, pickled: bytes | None = None) -> str:
    """A profile's identity by content: a digest of its pickle (``pickled`` if given).

    >>> from accord.formats import load_scenario
    >>> a, b = load_scenario("lunch"), load_scenario("lunch")
    >>> profile_id(a.utilities[0]) == profile_id(b.utilities[0]) != profile_id(a.utilities[1])
    True
    """
    data = pickle.dumps(utility, protocol=pickle.HIGHEST_PROTOCOL) if pickled is None else pickled
    return hashlib.blake2b(data, digest_size=16).hexdigest()


class ProfileIds:
    """The :func:`profile_id` of each ``(scenario, profile index)``, computed once."""

    def __init__(self, scenarios: Mapping[str, Scenario]) -> None:
        self.scenarios = scenarios
        self._ids: dict[tuple[str, int], str] = {}

    def __call__(self, scenario: str, profile: int) -> str:
        key = (scenario, profile)
        got = self._ids.get(key)
        if got is None:
            got = self._ids[key] = profile_id(self.scenarios[scenario].utilities[profile])
        return got

    def sides(self, spec: SessionSpec) -> list[tuple[str, frozenset[str]]]:
        """Per party of ``spec``: its profile and its opponents' (less its own)."""
        ids = [self(spec.scenario, p) for p in spec.profiles]
        every = frozenset(ids)
        return [(own, every - {own}) for own in ids]


def profile_ids(scenarios: Mapping[str, Scenario]) -> ProfileIds:
    """The :class:`ProfileIds` of ``scenarios``, kept for the run's next sessions (one
    at a time, each session asks for its sides).

    >>> from accord.formats import load_scenario
    >>> sc = {"lunch": load_scenario("lunch")}
    >>> profile_ids(sc) is profile_ids(sc)
    True
    """
    for ids in _IDS:
        if ids.scenarios is scenarios:
            return ids
    ids = ProfileIds(scenarios)
    _IDS[:] = [ids, *_IDS[:3]]
    return ids


class Holds:
    """What one sandbox was given over its life: its agent's profiles and theirs."""

    __slots__ = ("mine", "theirs")

    def __init__(self) -> None:
        self.mine: set[str] = set()
        self.theirs: set[str] = set()

    def fits(self, own: str, others: frozenset[str]) -> bool:
        """Whether a session where the agent plays ``own`` against ``others`` may go here."""
        return own not in self.theirs and self.mine.isdisjoint(others)

    def rank(self, own: str, others: frozenset[str]) -> int:
        """0 if such a session may not go here (:meth:`fits`), 2 if it was given ``own``
        before, else 1 (a sandbox reused from an earlier run: the best one first)."""
        if not self.fits(own, others):
            return 0
        return 2 if own in self.mine else 1

    def add(self, own: str, others: frozenset[str]) -> None:
        """The sandbox is given such a session (for good: it may remember it)."""
        self.mine.add(own)
        self.theirs |= others


def holds_of(box: Any) -> Holds:
    """The :class:`Holds` of a sandbox (it travels with the sandbox from run to run)."""
    got = _HOLDS.get(box)
    if got is None:
        got = _HOLDS[box] = Holds()
    return got


def order_key(spec: SessionSpec, ids: ProfileIds) -> tuple[Any, ...]:
    """A sort key putting each agent's sessions on one side of a scenario together:
    the repetition, the scenario, then each agent with its profile, by agent name.

    >>> from accord.tournament.schedule import SessionSpec
    >>> s = SessionSpec(0, "lunch", ("b", "a"), (0, 1), 0, 0, 0)
    >>> order_key(s, lambda scenario, p: f"u{p}")  # type: ignore[arg-type]
    (0, 'lunch', (('a', 'u1'), ('b', 'u0')))
    """
    pairs = sorted(
        (a, ids(spec.scenario, p)) for a, p in zip(spec.agents, spec.profiles, strict=True)
    )
    return (spec.rep, spec.scenario, tuple(pairs))


def sides_per_agent(
    specs: Iterable[SessionSpec], ids: ProfileIds, agents: Collection[str]
) -> dict[str, int]:
    """How many sandboxes each of ``agents`` needs to play ``specs`` at once: the most
    profiles it plays in one scenario (a sandbox takes one side of each scenario).

    >>> from accord.tournament.schedule import SessionSpec
    >>> specs = [SessionSpec(0, "s", ("a", "b"), (0, 1), 0, 0, 0),
    ...          SessionSpec(1, "s", ("b", "a"), (0, 1), 0, 1, 0)]
    >>> sides_per_agent(specs, lambda scenario, p: f"u{p}", ["a"])  # type: ignore[arg-type]
    {'a': 2}
    """
    seen: dict[tuple[str, str], set[str]] = {}
    for spec in specs:
        for a, p in zip(spec.agents, spec.profiles, strict=True):
            if a in agents:
                seen.setdefault((a, spec.scenario), set()).add(ids(spec.scenario, p))
    out = dict.fromkeys(agents, 0)
    for (a, _), profiles in seen.items():
        out[a] = max(out[a], len(profiles))
    return out
