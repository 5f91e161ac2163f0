"""Game specs and offers of the IAGO-style human-agent league (ANAC 2017 HAN).

A game splits item counts of 3 to 5 issues (fewer than 20 items each) between an agent
and a person. An :class:`Offer` places every item of every issue with the agent, leaves
it undecided, or gives it to the person: per issue ``(agent, undecided, person)``
counts that add up to the issue's quantity. Points are linear per item and per side,
and each side's total for taking everything must be equal (the 2017 rule).

    >>> spec = EXAMPLE_1
    >>> offer = Offer.of([(0, 0, 5), (0, 0, 5), (5, 0, 0), (5, 0, 0)])
    >>> spec.points(offer, "person"), spec.points(offer, "agent")
    (35, 35)
    >>> GameSpec("bad", ("a", "b"), (1, 1), (1, 1), (1, 1), 0, 0)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    accord.core.errors.InvalidScenario: game 'bad': a game has 3 to 5 issues; got 2 ...
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from accord.core.errors import InvalidOffer, InvalidScenario

__all__ = ["EXAMPLE_1", "EXAMPLE_2", "DOMAINS", "GameSpec", "Offer", "Role", "domain"]

Role = Literal["agent", "person"]
MAX_ITEMS = 19  # "fewer than 20 items" per issue


def _count(x: object) -> int:
    """``x`` as an item count: an integer (numpy's too) or a float with no fraction."""
    if isinstance(x, bool):
        raise InvalidOffer(f"not a whole number: {x!r}")
    if isinstance(x, float):
        if not x.is_integer():
            raise InvalidOffer(f"not a whole number: {x!r}")
        return int(x)
    return operator.index(x)  # type: ignore[arg-type]


@dataclass(frozen=True)
class Offer:
    """Per issue ``(agent, undecided, person)`` item counts (the IAGO ``int[n][3]``)."""

    rows: tuple[tuple[int, int, int], ...]

    @classmethod
    def of(cls, rows: Sequence[Sequence[int]]) -> Offer:
        """An offer from any nested sequence of three whole counts per issue (not yet checked
        against a game). A count that is not a whole number (``5.5``, ``"5"``, ``true``) is
        refused, never rounded."""
        try:
            return cls(tuple((_count(a), _count(u), _count(p)) for a, u, p in rows))
        except (TypeError, ValueError, InvalidOffer) as exc:
            raise InvalidOffer(
                f"an offer is a list of [agent, undecided, person] counts per issue; got {rows!r}"
            ) from exc

    @classmethod
    def empty(cls, quantities: Sequence[int]) -> Offer:
        """Everything undecided: the board at the start."""
        return cls(tuple((0, q, 0) for q in quantities))

    @property
    def full(self) -> bool:
        """True when no item is undecided."""
        return all(u == 0 for _, u, _ in self.rows)

    def mirrored(self) -> Offer:
        """The same split with agent and person swapped."""
        return Offer(tuple((p, u, a) for a, u, p in self.rows))

    def to_list(self) -> list[list[int]]:
        return [list(r) for r in self.rows]


@dataclass(frozen=True)
class GameSpec:
    """One game: issues, quantities, per-item points of each side, BATNAs and time.

    Args:
        name: the game's name.
        issues: issue names (3 to 5).
        quantities: items per issue (1 to 19).
        agent_points: the agent's points per item of each issue.
        person_points: the person's points per item of each issue.
        agent_batna: what the agent gets with no deal.
        person_batna: what the person gets with no deal.
        total_time: seconds for the game (600 in 2017).
        warning_time: seconds left when the warning is given (60).
    """

    name: str
    issues: tuple[str, ...]
    quantities: tuple[int, ...]
    agent_points: tuple[int, ...]
    person_points: tuple[int, ...]
    agent_batna: int
    person_batna: int
    total_time: float = 600.0
    warning_time: float = 60.0

    def __post_init__(self) -> None:
        n = len(self.issues)
        why = ""
        if not 3 <= n <= 5:
            why = f"a game has 3 to 5 issues; got {n} ({', '.join(self.issues)})"
        elif len(set(self.issues)) != n:
            why = f"issue names must differ; got {list(self.issues)}"
        elif not (len(self.quantities) == len(self.agent_points) == len(self.person_points) == n):
            why = (
                f"quantities and points need one entry per issue ({n}); got "
                f"{len(self.quantities)}, {len(self.agent_points)}, {len(self.person_points)}"
            )
        elif any(not 1 <= q <= MAX_ITEMS for q in self.quantities):
            why = f"each issue has 1 to {MAX_ITEMS} items (fewer than 20); got {list(self.quantities)}"
        elif any(v < 0 for v in (*self.agent_points, *self.person_points)):
            why = "points per item are not negative"
        elif self.max_points("agent") != self.max_points("person"):
            why = (
                "each side's total for taking everything must be equal; agent "
                f"{self.max_points('agent')} != person {self.max_points('person')}"
            )
        elif self.total_time <= 0 or not 0 <= self.warning_time < self.total_time:
            why = f"time must be positive and the warning before it; got {self.total_time}, {self.warning_time}"
        if why:
            raise InvalidScenario(f"game {self.name!r}: {why}")

    def values(self, role: Role) -> tuple[int, ...]:
        return self.agent_points if role == "agent" else self.person_points

    def batna(self, role: Role) -> int:
        return self.agent_batna if role == "agent" else self.person_batna

    def max_points(self, role: Role) -> int:
        return sum(q * v for q, v in zip(self.quantities, self.values(role), strict=False))

    def check(self, offer: Offer) -> Offer:
        """``offer`` if its counts fit this game, else :class:`InvalidOffer` saying why."""
        if len(offer.rows) != len(self.issues):
            raise InvalidOffer(
                f"an offer has one row per issue ({len(self.issues)}); got {len(offer.rows)}"
            )
        for name, q, row in zip(self.issues, self.quantities, offer.rows, strict=True):
            if min(row) < 0 or sum(row) != q:
                raise InvalidOffer(
                    f"issue {name!r} has {q} items; the offer places {list(row)} "
                    f"(agent, undecided, person: non-negative, summing to {q})"
                )
        return offer

    def points(self, offer: Offer, role: Role) -> int:
        """Linear points of ``role`` for the items ``offer`` gives it."""
        col = 0 if role == "agent" else 2
        return sum(r[col] * v for r, v in zip(offer.rows, self.values(role), strict=True))

    def public(self) -> dict[str, object]:
        """What both sides may read: names, quantities, time (no values, no BATNAs)."""
        return {
            "name": self.name,
            "issues": list(self.issues),
            "quantities": list(self.quantities),
            "total_time": self.total_time,
        }

    def with_time(self, total_time: float, warning_time: float | None = None) -> GameSpec:
        """The same game with another time limit (warning: 60 s, or 1/10 when shorter)."""
        w = warning_time if warning_time is not None else min(60.0, total_time / 10)
        return GameSpec(
            self.name, self.issues, self.quantities, self.agent_points, self.person_points,
            self.agent_batna, self.person_batna, total_time, w,
        )  # fmt: skip


EXAMPLE_1 = GameSpec(
    name="anac2017-example-1",
    issues=("Oil", "Iron", "Foodstuffs", "Lumber"),
    quantities=(5, 5, 5, 5),
    agent_points=(1, 2, 4, 3),
    person_points=(4, 3, 1, 2),
    agent_batna=4,
    person_batna=4,
)
EXAMPLE_2 = GameSpec(
    name="anac2017-example-2",
    issues=("Luxury cars", "Paintings", "Mansion"),
    quantities=(6, 6, 1),
    agent_points=(5, 3, 8),
    person_points=(6, 2, 8),
    agent_batna=20,
    person_batna=20,
)
DOMAINS = {EXAMPLE_1.name: EXAMPLE_1, EXAMPLE_2.name: EXAMPLE_2}


def domain(name: str) -> GameSpec:
    """A bundled game by name (``example-1`` and ``1`` work too)."""
    for key, spec in DOMAINS.items():
        if name in (key, key.removeprefix("anac2017-"), key[-1]):
            return spec
    raise InvalidScenario(f"unknown HAN game {name!r}; known: {', '.join(DOMAINS)}")
