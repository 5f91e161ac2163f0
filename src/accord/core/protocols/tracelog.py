"""A compact trace: one session's actions in typed columns, not a list of tuples.

A real-time session with fast agents takes millions of steps (tens of thousands a
second); as tuples its trace would take gigabytes. :class:`TraceLog` keeps each action
in 27 bytes (step, party, action, time, and the id of its outcome in a table of the
distinct outcomes) and reads back as a sequence of :class:`TraceEntry`. Its oldest
entries move to a temporary file in chunks (:class:`~accord.core.columns.Columns`), so
the memory a session's trace holds is bounded however long the session runs.

    >>> log = TraceLog()
    >>> log.add(0, 1, Action.OFFER, ("a",), 0.25)
    >>> log.add(1, 0, Action.ACCEPT, ("a",), 0.5)
    >>> len(log), log[1], log[0].outcome is log[1].outcome
    (2, TraceEntry(step=1, party=0, action=<Action.ACCEPT: 'accept'>, outcome=('a',), time=0.5), True)
    >>> log == [TraceEntry(0, 1, Action.OFFER, ("a",), 0.25), log[1]]
    True
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, overload

import numpy as np
import numpy.typing as npt

from accord.core.columns import Columns, chunk_size
from accord.core.outcomes import Outcome
from accord.core.protocols.result import Action, TraceEntry

_ACTIONS = tuple(Action)
_CODE = {a: i for i, a in enumerate(_ACTIONS)}
_BATCH = 256  # entries kept as tuples before they are packed (bounds their memory)


class TraceLog(Sequence[TraceEntry]):
    """A session's actions, oldest first, stored column by column (``chunk``: entries
    kept in memory before the oldest move to disk)."""

    __slots__ = ("_app", "_chunk", "_cols", "_head", "_ids", "_pending", "_table")

    def __init__(self, chunk: int | None = None) -> None:
        # step, party, action, time, outcome id: made when the first entry is packed
        self._cols: Columns | None = None
        self._chunk = chunk_size(chunk)
        self._table: list[Outcome | None] = [None]
        self._ids: dict[Outcome, int] = {}
        # the newest entries as plain tuples, packed into the columns only when read or
        # when a chunk is full (most sessions are short: packing each action cost more)
        self._pending: list[tuple[int, int, Action, Outcome | None, float]] = []

    def _columns(self) -> Columns:
        cols = self._cols
        if cols is None:
            cols = self._cols = Columns("qHBdq", self._chunk)
            self._bind()
        return cols

    def _bind(self) -> None:
        cols = self._columns()
        arrays = cols.arrays
        self._head = arrays[0]
        self._chunk = cols.chunk
        self._app = tuple(a.append for a in arrays)

    def __getstate__(self) -> tuple[Columns, list[Outcome | None]]:
        self._flush()
        return (self._columns(), self._table)

    def __setstate__(self, state: tuple[Columns, list[Outcome | None]]) -> None:
        self._cols, self._table = state
        self._pending = []
        self._ids = {o: i for i, o in enumerate(self._table) if o is not None}
        self._bind()

    def add(self, step: int, party: int, action: Action, outcome: Outcome | None, t: float) -> None:
        """Append one action."""
        pending = self._pending
        pending.append((step, party, action, outcome, t))
        if len(pending) >= _BATCH:
            self._flush()

    def _flush(self) -> None:
        """Pack the pending entries into the columns (in order: outcome ids as before)."""
        pending = self._pending
        if not pending:
            return
        cols = self._columns()
        s, p, a, tm, o = self._app
        code, oid, head, chunk = _CODE, self._id, self._head, self._chunk
        for step, party, action, outcome, t in pending:
            s(step)
            p(party)
            a(code[action])
            tm(t)
            o(0 if outcome is None else oid(outcome))
            if len(head) >= chunk:  # a full chunk moves to disk, as each add did before
                cols.spill()
        pending.clear()

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
        self._flush()
        entries = sorted(self, key=lambda e: e.step)
        for i, e in enumerate(entries):
            self[i] = e

    def __setitem__(self, i: int, entry: tuple[int, int, Action, Outcome | None, float]) -> None:
        step, party, action, outcome, t = entry
        self._flush()
        self._columns().set(i, step, party, _CODE[action], t, self._id(outcome))

    def _entry(self, i: int) -> TraceEntry:
        self._flush()
        step, party, action, t, oid = self._columns().row(i)
        return TraceEntry(step, party, _ACTIONS[action], self._table[oid], t)

    @overload
    def __getitem__(self, i: int) -> TraceEntry: ...
    @overload
    def __getitem__(self, i: slice) -> list[TraceEntry]: ...
    def __getitem__(self, i: int | slice) -> Any:
        if isinstance(i, slice):
            return [self._entry(j) for j in range(*i.indices(len(self)))]
        return self._entry(i)

    def __len__(self) -> int:
        cols = self._cols
        return (0 if cols is None else len(cols)) + len(self._pending)

    def __iter__(self) -> Iterator[TraceEntry]:
        self._flush()
        table = self._table
        for b in self._columns().blocks():
            rows = zip(*(b[f"c{c}"].tolist() for c in range(5)), strict=True)
            for step, party, action, t, oid in rows:
                yield TraceEntry(step, party, _ACTIONS[action], table[oid], t)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))

    def __hash__(self) -> int:  # mutable, like a list
        raise TypeError("unhashable type: 'TraceLog'")

    def __repr__(self) -> str:
        return f"TraceLog({len(self)} entries)"

    def columns(
        self,
    ) -> tuple[
        npt.NDArray[np.uint16],
        npt.NDArray[np.uint8],
        npt.NDArray[np.float64],
        npt.NDArray[np.int64],
    ]:
        """Every entry's party, action code (the index in :class:`Action`), time and
        outcome id (0: none; see :attr:`outcomes`), as numpy arrays, for bulk work."""
        self._flush()
        c = self._columns()
        return (c.column(1), c.column(2), c.column(3), c.column(4))

    @property
    def outcomes(self) -> list[Outcome | None]:
        """The distinct outcomes by id (id 0 is None: no outcome)."""
        self._flush()
        return self._table

    @property
    def nbytes(self) -> int:
        """Bytes of the entries, packed (in memory and on disk; not counting the
        distinct outcomes)."""
        self._flush()
        return self._columns().nbytes

    @property
    def memory_nbytes(self) -> int:
        """Bytes of the entries held in memory (at most one chunk)."""
        self._flush()
        return self._columns().memory_nbytes
