"""The schedule: every session of a tournament as a frozen, seeded spec.

For every repetition, every scenario (with ``n`` profiles) and every group of ``n``
competitors, the group plays each cyclic rotation of the profiles: in rotation ``r`` the
party in position ``i`` (turn order) gets profile ``(i + r) mod n``. Groups are ordered
tuples (``pairing="product"``: who moves first matters) or unordered ones
(``"combinations"``); without self-play no agent appears twice in a group.

Sessions are listed repetition by repetition (so repetition ``r`` can learn from the
ones before it). Each has a stable id (a hash of scenario, agents, profiles and
repetition) and a seed derived from the tournament seed and that id, so a session
gives the same result wherever and whenever it runs.

    >>> from accord.tournament.config import TournamentConfig
    >>> cfg = TournamentConfig(["a=accord.agents.timebased:Boulware",
    ...                         "b=accord.agents.timebased:Conceder"], ["builtin:tiny"], reps=2)
    >>> specs = schedule(cfg)
    >>> len(specs)  # 4 ordered pairs x 2 rotations x 2 repetitions
    16
    >>> specs[1].agents, specs[1].profiles
    (('a', 'a'), (1, 0))
"""

from __future__ import annotations

import hashlib
import itertools
import json
from collections.abc import Mapping
from dataclasses import dataclass, field

from accord.core.scenario import Scenario
from accord.tournament.config import TournamentConfig
from accord.tournament.scenarios import resolve_scenarios


@dataclass(frozen=True)
class SessionSpec:
    """One scheduled session. ``agents[i]`` acts in position ``i`` with ``profiles[i]``."""

    index: int
    scenario: str
    agents: tuple[str, ...]
    profiles: tuple[int, ...]
    rep: int
    rotation: int
    seed: int
    id: str = field(default="")

    def __post_init__(self) -> None:
        if not self.id:
            object.__setattr__(
                self, "id", session_id(self.scenario, self.agents, self.profiles, self.rep)
            )

    def to_dict(self) -> dict[str, object]:
        """JSON-ready form."""
        return {
            "id": self.id,
            "index": self.index,
            "scenario": self.scenario,
            "agents": list(self.agents),
            "profiles": list(self.profiles),
            "rep": self.rep,
            "rotation": self.rotation,
            "seed": self.seed,
        }


def session_id(scenario: str, agents: tuple[str, ...], profiles: tuple[int, ...], rep: int) -> str:
    """Stable 16-hex-digit id of a session.

    >>> session_id("s", ("a", "b"), (0, 1), 0)
    '311cd71b5d67802d'
    """
    key = json.dumps([scenario, list(agents), list(profiles), rep], separators=(",", ":"))
    return hashlib.sha1(key.encode()).hexdigest()[:16]


def session_seed(tournament_seed: int, sid: str) -> int:
    """A 63-bit seed for session ``sid`` of a tournament seeded with ``tournament_seed``."""
    digest = hashlib.sha256(f"{tournament_seed}/{sid}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def schedule(
    config: TournamentConfig, scenarios: Mapping[str, Scenario] | None = None
) -> list[SessionSpec]:
    """Every session of ``config`` in order (repetition-major). Deterministic."""
    scen = (
        scenarios
        if scenarios is not None
        else resolve_scenarios(config.scenarios, config.discretize)
    )
    names = [a.name for a in config.agents]
    specs: list[SessionSpec] = []
    for rep in range(config.reps):
        for s in scen.values():
            n = s.n_parties
            for group in _groups(names, n, config.pairing, config.self_play):
                for r in range(n) if config.rotate else (0,):
                    profiles = tuple((i + r) % n for i in range(n))
                    sid = session_id(s.name, group, profiles, rep)
                    specs.append(
                        SessionSpec(
                            index=len(specs),
                            scenario=s.name,
                            agents=group,
                            profiles=profiles,
                            rep=rep,
                            rotation=r,
                            seed=session_seed(config.seed, sid),
                            id=sid,
                        )
                    )
    return specs


def _groups(names: list[str], n: int, pairing: str, self_play: bool) -> list[tuple[str, ...]]:
    if pairing == "product":
        groups = list(itertools.product(names, repeat=n))
    elif self_play:
        groups = list(itertools.combinations_with_replacement(names, n))
    else:
        groups = list(itertools.combinations(names, n))
    if not self_play:
        groups = [g for g in groups if len(set(g)) == n]
    return groups
