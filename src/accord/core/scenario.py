"""A scenario: an outcome space plus one utility function per party (profile).

>>> from accord.core.outcomes import CategoricalIssue, OutcomeSpace
>>> from accord.core.utilities import LinearAdditiveUtility
>>> space = OutcomeSpace([CategoricalIssue("x", ["a", "b"])])
>>> u = LinearAdditiveUtility(space, [1.0], [{"a": 1.0, "b": 0.5}])
>>> Scenario("tiny", space, (u, u)).n_parties
2
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from accord.core.errors import InvalidScenario
from accord.core.outcomes import OutcomeSpace
from accord.core.utilities import UtilityFunction


@dataclass(frozen=True)
class Scenario:
    """A named negotiation problem: the space and each party's utility (in role order)."""

    name: str
    space: OutcomeSpace
    utilities: tuple[UtilityFunction, ...]
    profile_names: tuple[str, ...] = field(default=())

    def __post_init__(self) -> None:
        if len(self.utilities) < 2:
            raise InvalidScenario(
                f"scenario {self.name!r} needs at least 2 profiles, got {len(self.utilities)}"
            )
        for k, u in enumerate(self.utilities):
            if u.space != self.space:
                raise InvalidScenario(
                    f"scenario {self.name!r}: profile {k} is defined on another outcome space"
                )
        if not self.profile_names:
            names = tuple(f"profile{k + 1}" for k in range(len(self.utilities)))
            object.__setattr__(self, "profile_names", names)
        elif len(self.profile_names) != len(self.utilities):
            raise InvalidScenario(
                f"scenario {self.name!r}: {len(self.profile_names)} profile names for "
                f"{len(self.utilities)} profiles"
            )

    @property
    def n_parties(self) -> int:
        """Number of profiles (parties)."""
        return len(self.utilities)

    def with_utilities(self, utilities: Sequence[UtilityFunction]) -> Scenario:
        """The same scenario with other utilities (e.g. a rotation of the profiles)."""
        return Scenario(self.name, self.space, tuple(utilities), self.profile_names)
