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

Organisers define their own game in a JSON file (``accord-han-game/1``, see
:func:`load_game` and ``docs/han.md``); every command that takes a game name also takes
the file's path. Offers are shown to people in words (:func:`offer_in_words`):

    >>> offer_in_words(offer, EXAMPLE_1.issues, "person")
    'you get 5 Oil, 5 Iron; the other side gets 5 Foodstuffs, 5 Lumber'
"""

from __future__ import annotations

import json
import operator
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from accord.core.errors import InvalidOffer, InvalidScenario

__all__ = [
    "DOMAINS",
    "EXAMPLE_1",
    "EXAMPLE_2",
    "GAME_FORMAT",
    "GameSpec",
    "Offer",
    "Role",
    "domain",
    "game_from_dict",
    "load_game",
    "offer_in_words",
]

Role = Literal["agent", "person"]
MAX_ITEMS = 19  # "fewer than 20 items" per issue
GAME_FORMAT = "accord-han-game/1"
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9 .,'()/+-]{0,39}$")
"""Issue and game names: plain words (they are shown to people), at most 40 characters."""


def _whole(x: object) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


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
        singular: optional name of one item of each issue ("Rug" for "Rugs"), used when an
            offer gives one; empty: the issue's name for any count.
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
    singular: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        n = len(self.issues)
        why = ""
        numbers = (*self.quantities, *self.agent_points, *self.person_points)
        names = (self.name, *self.issues, *self.singular)
        bad_name = [x for x in names if not _NAME.match(str(x))]
        if self.singular and len(self.singular) != n:
            why = f"one singular name per issue ({n}) or none; got {list(self.singular)}"
        elif bad_name:
            why = (
                "names are 1 to 40 letters, digits, spaces or .,'()/+- (they are shown to "
                f"people); got {bad_name[0]!r}"
            )
        elif not all(_whole(x) for x in numbers):
            what, odd = next((w, x) for w, x in self._labelled() if not _whole(x))
            why = f"{what}: item counts and points per item are whole numbers; got {odd!r}"
        elif not (_whole(self.agent_batna) and _whole(self.person_batna)):
            why = (
                "BATNAs are whole numbers of points; got "
                f"{self.agent_batna!r} and {self.person_batna!r}"
            )
        elif self.agent_batna < 0 or self.person_batna < 0:
            why = f"BATNAs are not negative; got {self.agent_batna} and {self.person_batna}"
        elif not 3 <= n <= 5:
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
            what, odd = next((w, x) for w, x in self._labelled() if isinstance(x, int) and x < 0)
            why = f"{what}: points per item are not negative; got {odd!r}"
        elif self.max_points("agent") != self.max_points("person"):
            why = (
                "each side's total for taking everything must be equal; agent "
                f"{self.max_points('agent')} != person {self.max_points('person')}"
            )
        elif self.total_time <= 0 or not 0 <= self.warning_time < self.total_time:
            why = f"time must be positive and the warning before it; got {self.total_time}, {self.warning_time}"
        if why:
            raise InvalidScenario(f"game {self.name!r}: {why}")

    def _labelled(self) -> list[tuple[str, object]]:
        """Every count and point with what it is, for errors: ("issue 'Oil', agent points", 2)."""
        out: list[tuple[str, object]] = []
        for label, xs in (
            ("item count", self.quantities),
            ("agent points", self.agent_points),
            ("person points", self.person_points),
        ):
            for k, x in enumerate(xs):
                name = self.issues[k] if k < len(self.issues) else f"#{k + 1}"
                out.append((f"issue {name!r}, {label}", x))
        return out

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
            self.agent_batna, self.person_batna, total_time, w, self.singular,
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
    singular=("Luxury car", "Painting", "Mansion"),
)
DOMAINS = {EXAMPLE_1.name: EXAMPLE_1, EXAMPLE_2.name: EXAMPLE_2}


def domain(name: str | Path) -> GameSpec:
    """A bundled game by name (``example-1`` and ``1`` work too) or a game file's path."""
    if isinstance(name, Path) or str(name).endswith(".json"):
        return load_game(name)
    for key, spec in DOMAINS.items():
        if name in (key, key.removeprefix("anac2017-"), key[-1]):
            return spec
    raise InvalidScenario(
        f"unknown HAN game {name!r}; known: {', '.join(DOMAINS)}, or a game file (*.json)"
    )


_GAME_KEYS = {"format", "name", "issues", "agent_batna", "person_batna", "total_time"}
_ISSUE_KEYS = {"name", "count", "agent", "person"}
_ISSUE_OPTIONAL = {"one"}


def game_from_dict(data: Mapping[str, Any], source: str = "game") -> GameSpec:
    """A :class:`GameSpec` from the ``accord-han-game/1`` form; one error says what is wrong.

    >>> spec = game_from_dict({"format": "accord-han-game/1", "name": "fruit",
    ...     "issues": [{"name": "Apples", "count": 4, "agent": 3, "person": 1},
    ...                {"name": "Pears", "count": 2, "agent": 1, "person": 4},
    ...                {"name": "Plums", "count": 2, "agent": 2, "person": 3}],
    ...     "agent_batna": 5, "person_batna": 6})
    >>> spec.max_points("agent"), spec.max_points("person")
    (18, 18)
    """

    def fail(why: str) -> InvalidScenario:
        return InvalidScenario(f"{source}: {why}")

    if not isinstance(data, Mapping):
        raise fail(f"expected a JSON object with {sorted(_GAME_KEYS)}; got {type(data).__name__}")
    if data.get("format") != GAME_FORMAT:
        raise fail(f'expected "format": {GAME_FORMAT!r}; got {data.get("format")!r}')
    extra = set(data) - _GAME_KEYS
    missing = {"name", "issues", "agent_batna", "person_batna"} - set(data)
    if extra or missing:
        raise fail(
            f"expected the keys {sorted(_GAME_KEYS)} (total_time optional); "
            f"unknown {sorted(extra)}, missing {sorted(missing)}"
        )
    issues = data["issues"]
    if not isinstance(issues, list) or not all(isinstance(i, Mapping) for i in issues):
        raise fail('expected "issues": a list of {"name", "count", "agent", "person"} objects')
    for k, issue in enumerate(issues):
        if not _ISSUE_KEYS <= set(issue) <= _ISSUE_KEYS | _ISSUE_OPTIONAL:
            raise fail(
                f"issue {k + 1}: expected exactly the keys {sorted(_ISSUE_KEYS)} "
                f'("one", the name of one item, optional); got {sorted(issue)}'
            )
    ones = any("one" in i for i in issues)
    total = data.get("total_time", 600.0)
    if isinstance(total, bool) or not isinstance(total, int | float):
        raise fail(f"expected total_time in seconds; got {total!r}")
    try:
        return GameSpec(
            str(data["name"]),
            tuple(str(i["name"]) for i in issues),
            tuple(i["count"] for i in issues),
            tuple(i["agent"] for i in issues),
            tuple(i["person"] for i in issues),
            data["agent_batna"],
            data["person_batna"],
            float(total),
            min(60.0, float(total) / 10),
            tuple(str(i.get("one", i["name"])) for i in issues) if ones else (),
        )
    except InvalidScenario as exc:
        raise fail(str(exc)) from None


def load_game(path: str | Path) -> GameSpec:
    """Read and check an organiser's game file (``accord-han-game/1``, JSON)."""
    p = Path(path)
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except OSError as exc:
        raise InvalidScenario(f"{p}: cannot read the game file ({exc.strerror})") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise InvalidScenario(f"{p}: not valid JSON ({exc})") from None
    return game_from_dict(data, str(p))


def offer_in_words(
    offer: Offer, issues: Sequence[str], viewer: Role, singular: Sequence[str] = ()
) -> str:
    """``offer`` as ``viewer`` reads it: what "you" get, what the other side gets; one item
    is named by ``singular`` when given.

    >>> offer_in_words(Offer.of([(2, 1, 0), (0, 0, 3), (1, 0, 1)]), ("Oil", "Iron", "Wood"), "agent")
    'you get 2 Oil, 1 Wood; the other side gets 3 Iron, 1 Wood; undecided: 1 Oil'
    >>> offer_in_words(Offer.of([(1, 0, 2)]), ("Rugs",), "person", singular=("Rug",))
    'you get 2 Rugs; the other side gets 1 Rug'
    """
    mine, theirs = (0, 2) if viewer == "agent" else (2, 0)

    def items(col: int) -> str:
        parts = [
            f"{r[col]} {singular[k] if r[col] == 1 and k < len(singular) else name}"
            for k, (r, name) in enumerate(zip(offer.rows, issues, strict=False))
            if r[col]
        ]
        return ", ".join(parts) or "nothing"

    text = f"you get {items(mine)}; the other side gets {items(theirs)}"
    if not offer.full:
        text += f"; undecided: {items(1)}"
    return text
