"""Typed columns whose old rows move to a temporary file: bounded memory for long logs.

A real-time session with fast agents takes millions of steps; its trace and offer log
would grow without bound in memory. :class:`Columns` keeps the newest rows (at most
``chunk``) in typed arrays and writes each full chunk, packed, to an anonymous
temporary file (deleted by the system when closed). Every row stays readable:
recent rows from memory, older ones with one positioned read; whole columns come back
as numpy arrays for bulk work.

    >>> cols = Columns("Hq", chunk=2)
    >>> for i in range(5):
    ...     cols.add(i % 3, 10 * i)
    >>> len(cols), cols.spilled, cols.row(1), cols.row(4)
    (5, 4, (1, 10), (1, 40))
    >>> cols.column(1).tolist()
    [0, 10, 20, 30, 40]
    >>> [b["c1"].tolist() for b in cols.blocks(1, 4)]
    [[10, 20], [30]]
"""

from __future__ import annotations

import os
import tempfile
from array import array
from collections.abc import Iterator
from typing import IO, Any

import numpy as np
import numpy.typing as npt

from accord.core.errors import UsageError

__all__ = ["CHUNK", "Columns", "chunk_size"]

CHUNK = 1 << 16
"""Rows kept in memory before a chunk moves to disk (about 1.7 MB for a trace); read when
a :class:`Columns` is made, so setting it changes the logs made after."""


_DTYPES: dict[str, np.dtype[Any]] = {}


def chunk_size(chunk: int | None) -> int:
    """``chunk``, or :data:`CHUNK` (read now) if None; :class:`UsageError` below 1.

    Logs that make their :class:`Columns` only when a row first moves out of their
    in-memory list (most sessions never do) fix their chunk with it when made.
    """
    chunk = CHUNK if chunk is None else chunk
    if chunk < 1:
        raise UsageError(f"chunk must be >= 1 row, got {chunk}")
    return chunk


class Columns:
    """Rows of fixed types (``array`` type codes, one per column), oldest first.

    Rows are appended with :meth:`add`, read with :meth:`row`, replaced with
    :meth:`set`; :meth:`column` gives one column whole. Pickling keeps every row.
    """

    __slots__ = ("_chunk", "_codes", "_cols", "_dtype", "_file", "_spilled")

    def __init__(self, codes: str, chunk: int | None = None) -> None:
        chunk = chunk_size(chunk)
        self._codes = codes
        self._chunk = chunk
        self._cols = tuple(array(c) for c in codes)
        dtype = _DTYPES.get(codes)
        if dtype is None:  # one per set of type codes: a session makes two logs
            dtype = _DTYPES[codes] = np.dtype([(f"c{i}", np.dtype(c)) for i, c in enumerate(codes)])
        self._dtype = dtype
        self._file: IO[bytes] | None = None
        self._spilled = 0

    @property
    def spilled(self) -> int:
        """Rows on disk (the oldest ones)."""
        return self._spilled

    @property
    def arrays(self) -> tuple[array[Any], ...]:
        """The in-memory tail, one array per column, the same arrays for the whole life
        of the object (owner side: append to them, then :meth:`check`)."""
        return self._cols

    @property
    def chunk(self) -> int:
        """Rows kept in memory before they move to disk."""
        return self._chunk

    def add(self, *values: Any) -> None:
        """Append one row."""
        for col, v in zip(self._cols, values, strict=True):
            col.append(v)
        if len(self._cols[0]) >= self._chunk:
            self.spill()

    def check(self) -> None:
        """Move the in-memory rows to disk if they fill a chunk (after appending to
        :attr:`arrays` directly)."""
        if len(self._cols[0]) >= self._chunk:
            self.spill()

    def spill(self) -> None:
        """Write the in-memory rows to the temporary file and free them."""
        m = len(self._cols[0])
        if m == 0:
            return
        if self._file is None:
            self._file = tempfile.TemporaryFile(prefix="accord-columns-")  # noqa: SIM115 (open for the object's life)
        rec = np.empty(m, dtype=self._dtype)
        for i, col in enumerate(self._cols):
            rec[f"c{i}"] = np.frombuffer(col, dtype=self._dtype[i])
        os.pwrite(self._file.fileno(), rec.tobytes(), self._spilled * self._dtype.itemsize)
        self._spilled += m
        for col in self._cols:
            del col[:]  # in place: owners may hold the arrays (and their append methods)

    def __len__(self) -> int:
        return self._spilled + len(self._cols[0])

    @property
    def nbytes(self) -> int:
        """Bytes of every row, packed (in memory and on disk)."""
        return len(self) * self._dtype.itemsize

    @property
    def memory_nbytes(self) -> int:
        """Bytes of the rows held in memory."""
        return sum(c.itemsize * len(c) for c in self._cols)

    def _index(self, i: int) -> int:
        n = len(self)
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError("row index out of range")
        return i

    def row(self, i: int) -> tuple[Any, ...]:
        """Row ``i`` (negative counts from the end) as a tuple of Python values."""
        i = self._index(i)
        j = i - self._spilled
        if j >= 0:
            return tuple(col[j] for col in self._cols)
        assert self._file is not None
        size = self._dtype.itemsize
        raw = os.pread(self._file.fileno(), size, i * size)
        return tuple(np.frombuffer(raw, dtype=self._dtype)[0].tolist())

    def set(self, i: int, *values: Any) -> None:
        """Replace row ``i``."""
        i = self._index(i)
        j = i - self._spilled
        if j >= 0:
            for col, v in zip(self._cols, values, strict=True):
                col[j] = v
            return
        assert self._file is not None
        rec = np.array([tuple(values)], dtype=self._dtype)
        os.pwrite(self._file.fileno(), rec.tobytes(), i * self._dtype.itemsize)

    def blocks(self, start: int = 0, stop: int | None = None) -> Iterator[npt.NDArray[Any]]:
        """Rows ``start`` to ``stop`` (default: the end), as structured arrays of at most
        a chunk each."""
        size = self._dtype.itemsize
        stop = len(self) if stop is None else min(stop, len(self))
        i = start
        while i < min(self._spilled, stop):
            m = min(self._chunk, min(self._spilled, stop) - i)
            assert self._file is not None
            raw = os.pread(self._file.fileno(), m * size, i * size)
            yield np.frombuffer(raw, dtype=self._dtype)
            i += m
        j, end = max(0, i - self._spilled), stop - self._spilled
        if j < end:
            rec = np.empty(end - j, dtype=self._dtype)
            for c, col in enumerate(self._cols):
                rec[f"c{c}"] = np.frombuffer(col, dtype=self._dtype[c])[j:end]
            yield rec

    def column(self, c: int) -> npt.NDArray[Any]:
        """Column ``c``, every row, as one numpy array."""
        out = np.empty(len(self), dtype=self._dtype[c])
        i = 0
        for block in self.blocks():
            out[i : i + len(block)] = block[f"c{c}"]
            i += len(block)
        return out

    def close(self) -> None:
        """Delete the temporary file (the rows on it are gone)."""
        if self._file is not None:
            self._file.close()
            self._file = None

    def __getstate__(self) -> dict[str, Any]:
        rows = np.concatenate(list(self.blocks())) if len(self) else None
        return {"codes": self._codes, "chunk": self._chunk, "rows": rows}

    def __setstate__(self, state: dict[str, Any]) -> None:
        Columns.__init__(self, state["codes"], state["chunk"])
        rows = state["rows"]
        if rows is None:
            return
        for start in range(0, len(rows), self._chunk):
            block = rows[start : start + self._chunk]
            for c in range(len(self._codes)):
                self._cols[c].frombytes(np.ascontiguousarray(block[f"c{c}"]).tobytes())
            self.check()
