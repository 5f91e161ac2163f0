"""A compact trace: one session's actions in typed arrays, not a list of tuples.

A real-time session with fast agents takes millions of steps (about 70,000 a second);
as tuples its trace would take gigabytes. :class:`TraceLog` keeps each action in about
26 bytes (step, party, action, time, and the id of its outcome in a table of the
distinct outcomes) and reads back as a sequence of :class:`TraceEntry`.

    >>> log = TraceLog()
    >>> log.add(0, 1, Action.OFFER, ("a",), 0.25)
    >>> log.add(1, 0, Action.ACCEPT, ("a",), 0.5)
    >>> len(log), log[1], log[0].outcome is log[1].outcome
    (2, TraceEntry(step=1, party=0, action=<Action.ACCEPT: 'accept'>, outcome=('a',), time=0.5), True)
    >>> log == [TraceEntry(0, 1, Action.OFFER, ("a",), 0.25), log[1]]
    True
"""

from __future__ import annotations

from array import array
from collections.abc import Iterator, Sequence
from typing import Any, overload

from accord.core.outcomes import Outcome
from accord.core.protocols.result import Action, TraceEntry

_ACTIONS = tuple(Action)
_CODE = {a: i for i, a in enumerate(_ACTIONS)}


class TraceLog(Sequence[TraceEntry]):
    """A session's actions, oldest first, stored column by column."""

    __slots__ = ("_action", "_ids", "_oid", "_party", "_step", "_table", "_time")

    def __init__(self) -> None:
        self._step = array("q")
        self._party = array("H")
        self._action = array("B")
        self._time = array("d")
        self._oid = array("q")
        self._table: list[Outcome | None] = [None]
        self._ids: dict[Outcome, int] = {}

    def add(self, step: int, party: int, action: Action, outcome: Outcome | None, t: float) -> None:
        """Append one action."""
        self._step.append(step)
        self._party.append(party)
        self._action.append(_CODE[action])
        self._time.append(t)
        self._oid.append(self._id(outcome))

    def append(self, entry: tuple[int, int, Action, Outcome | None, float]) -> None:
        """Append one ``(step, party, action, outcome, time)`` entry."""
        self.add(*entry)

    def _id(self, outcome: Outcome | None) -> int:
        if outcome is None:
            return 0
        i = self._ids.get(outcome)
        if i is None:
            i = len(self._table)
            self._table.append(outcome)
            self._ids[outcome] = i
        return i

    def sort_by_step(self) -> None:
        """Reorder the entries by step (stable)."""
        entries = sorted(self, key=lambda e: e.step)
        for i, e in enumerate(entries):
            self[i] = e

    def __setitem__(self, i: int, entry: tuple[int, int, Action, Outcome | None, float]) -> None:
        step, party, action, outcome, t = entry
        if i < 0:
            i += len(self)
        self._step[i] = step
        self._party[i] = party
        self._action[i] = _CODE[action]
        self._time[i] = t
        self._oid[i] = self._id(outcome)

    def _entry(self, i: int) -> TraceEntry:
        return TraceEntry(
            self._step[i],
            self._party[i],
            _ACTIONS[self._action[i]],
            self._table[self._oid[i]],
            self._time[i],
        )

    @overload
    def __getitem__(self, i: int) -> TraceEntry: ...
    @overload
    def __getitem__(self, i: slice) -> list[TraceEntry]: ...
    def __getitem__(self, i: int | slice) -> Any:
        if isinstance(i, slice):
            return [self._entry(j) for j in range(*i.indices(len(self)))]
        if i < 0:
            i += len(self)
        if not 0 <= i < len(self):
            raise IndexError("trace index out of range")
        return self._entry(i)

    def __len__(self) -> int:
        return len(self._step)

    def __iter__(self) -> Iterator[TraceEntry]:
        return (self._entry(i) for i in range(len(self)))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))

    def __hash__(self) -> int:  # mutable, like a list
        raise TypeError("unhashable type: 'TraceLog'")

    def __repr__(self) -> str:
        return f"TraceLog({len(self)} entries)"

    @property
    def nbytes(self) -> int:
        """Bytes held by the arrays (not counting the distinct outcomes)."""
        cols = (self._step, self._party, self._action, self._time, self._oid)
        return sum(c.itemsize * len(c) for c in cols)
