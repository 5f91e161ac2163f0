"""The waiting room of person-vs-person games: who plays whom, and who is sent home.

A participant of a pairs condition enters the room when their page opens
(:meth:`WaitingRoom.join`); their page keeps asking while they wait, and each ask
counts as a sign of life. The first two people present form a pair, in the order they
arrived: the one who waited longer takes the **person's** side of the game (the
seat a person has against an agent), the newcomer the **agent's** side. A person
is never paired with themselves (a second tab of the same participant just joins
again).

Nobody waits forever:

- after ``timeout`` seconds without a partner a waiter is **released** (the odd one
  out of a study with an odd number of people ends this way);
- a waiter whose page has not asked for ``presence`` seconds has **gone** (closed the
  page); they are taken out of the room, so nobody is paired with an empty chair;
- a waiter may also leave by hand (:meth:`WaitingRoom.leave`).

Times are the caller's clock (seconds); nothing here sleeps.

    >>> room = WaitingRoom(timeout=300.0)
    >>> room.join("p001", 0.0) is None
    True
    >>> pair = room.join("p002", 12.0)
    >>> pair.id, pair.sides, pair.formed
    ('pair-001', {'person': 'p001', 'agent': 'p002'}, 12.0)
    >>> room.join("p003", 20.0), room.expire(400.0)
    (None, [('p003', 'released')])
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from accord.core.errors import ConfigError, StateError
from accord.leagues.han.domain import Role

__all__ = ["Exit", "Pair", "WaitingRoom"]

Exit = Literal["released", "gone", "left"]
"""How a waiter left the room without a partner: released after the timeout, gone
(their page stopped asking), or left by hand."""


@dataclass(frozen=True)
class Pair:
    """Two participants and the sides they play; ``formed`` is when the game starts."""

    id: str
    sides: dict[Role, str]
    formed: float

    def role_of(self, pid: str) -> Role:
        for role, who in self.sides.items():
            if who == pid:
                return role
        raise StateError(f"{pid} is not in {self.id}")

    def partner_of(self, pid: str) -> str:
        other: Role = "agent" if self.role_of(pid) == "person" else "person"
        return self.sides[other]


@dataclass
class _Waiter:
    joined: float
    seen: float


@dataclass
class WaitingRoom:
    """Pairs participants first come, first served (see the module doc)."""

    timeout: float = 300.0
    presence: float = 15.0
    waiting: dict[str, _Waiter] = field(default_factory=dict)  # in order of arrival
    pairs: dict[str, Pair] = field(default_factory=dict)  # by participant
    exits: dict[str, Exit] = field(default_factory=dict)
    count: int = 0

    def __post_init__(self) -> None:
        if not self.timeout > 0 or not self.presence > 0:
            raise ConfigError(
                f"the waiting room needs a positive timeout and presence window; got "
                f"{self.timeout}, {self.presence}"
            )

    def status(self, pid: str) -> str:
        """``new``, ``waiting``, ``paired`` or how they left (``released``, ``gone``, ``left``)."""
        if pid in self.pairs:
            return "paired"
        if pid in self.waiting:
            return "waiting"
        return self.exits.get(pid, "new")

    def join(self, pid: str, now: float) -> Pair | None:
        """``pid`` is here (first time or again): their pair, or None while they wait.
        A participant who already left the room without a partner cannot come back."""
        if pid in self.pairs:
            return self.pairs[pid]
        if pid in self.exits:
            raise StateError(f"{pid} left the waiting room ({self.exits[pid]}); no game to join")
        w = self.waiting.get(pid)
        if w is None:
            self.waiting[pid] = _Waiter(now, now)
        else:
            w.seen = now
        self.expire(now)
        if pid not in self.waiting:  # released or gone just now
            return None
        first = next((p for p in self.waiting if p != pid), None)
        if first is None:
            return None
        self.count += 1
        pair = Pair(f"pair-{self.count:03d}", {"person": first, "agent": pid}, now)
        for who in (first, pid):
            del self.waiting[who]
            self.pairs[who] = pair
        return pair

    def expire(self, now: float) -> list[tuple[str, Exit]]:
        """Take out the waiters who have waited ``timeout`` (released) or whose page
        has not asked for ``presence`` seconds (gone); returns them."""
        out: list[tuple[str, Exit]] = []
        for pid, w in list(self.waiting.items()):
            why: Exit | None = None
            if now - w.joined >= self.timeout:
                why = "released"
            elif now - w.seen > self.presence:
                why = "gone"
            if why is not None:
                del self.waiting[pid]
                self.exits[pid] = why
                out.append((pid, why))
        return out

    def leave(self, pid: str) -> Pair | None:
        """``pid`` leaves: out of the room if waiting; their pair (whose game the caller
        ends) if paired."""
        if pid in self.pairs:
            return self.pairs[pid]
        if self.waiting.pop(pid, None) is not None:
            self.exits[pid] = "left"
        return None

    def deadline(self, pid: str) -> float | None:
        """When ``pid``'s wait ends at the latest (None unless waiting)."""
        w = self.waiting.get(pid)
        return None if w is None else w.joined + self.timeout

    def restore(self, pair: Pair) -> None:
        """Put back a pair formed before a restart."""
        for pid in pair.sides.values():
            self.waiting.pop(pid, None)
            self.pairs[pid] = pair
        self.count = max(self.count, int(pair.id.rsplit("-", 1)[1]))
