"""The negotiator API and the read-only view a negotiator gets of its session.

A negotiator implements :meth:`Negotiator.propose` and :meth:`Negotiator.respond`;
:meth:`Negotiator.on_start` and :meth:`Negotiator.on_end` are optional hooks. Everything
it may know arrives through a :class:`NegotiatorView`: its own utility, the outcome
space, the normalised time, the offers made so far and a private random generator. It
never sees the session object or another party's utility.

    >>> class Stubborn(Negotiator):
    ...     def propose(self, view):
    ...         return view.best_outcome
    ...     def respond(self, view, offer):
    ...         return Response.ACCEPT if view.utility(offer) >= 0.9 else Response.REJECT
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from enum import IntEnum
from typing import TYPE_CHECKING, Any, overload

import numpy as np

from accord.core.columns import Columns, chunk_size
from accord.core.outcomes import Outcome, OutcomeSpace
from accord.core.utilities import UtilityFunction

if TYPE_CHECKING:
    from accord.core.protocols.result import SessionResult
    from accord.core.time import Deadline


class Response(IntEnum):
    """A negotiator's answer to the standing offer."""

    ACCEPT = 0
    REJECT = 1
    END = 2


class _Unspilled:
    """Stands in for an offer log's columns until a row moves to them (none on disk)."""

    _spilled = 0


_UNSPILLED = _Unspilled()


class OfferLog(Sequence[tuple[int, Outcome]]):
    """Read-only window on the offers of a session: ``(proposer index, outcome)`` pairs.

    Only the session that owns the log adds to it (``_append``); negotiators can only
    read it (no ``append``, no item assignment). The newest offers (up to a chunk,
    65,536 by default) are small tuples sharing their outcome objects, so agents that
    scan the offers at every turn stay fast; older ones move to a temporary file as two
    numbers each (the proposer and the id of the outcome in a table of the distinct
    outcomes, :class:`~accord.core.columns.Columns`), so a real-time session of millions
    of offers keeps its memory bounded. Every offer stays readable.

        >>> log = OfferLog([(0, ("a",)), (1, ("b",))])
        >>> len(log), log[-1], list(log)[0]
        (2, (1, ('b',)), (0, ('a',)))
        >>> hasattr(log, "append")
        False
    """

    __slots__ = ("_chunk", "_cols", "_ids", "_items", "_packed", "_table")

    def __init__(self, items: Sequence[tuple[int, Outcome]] = (), chunk: int | None = None) -> None:
        # the offers moved to disk (proposer, outcome id): made when first needed
        self._cols: Columns | _Unspilled = _UNSPILLED
        self._chunk = chunk_size(chunk)
        self._items: list[tuple[int, Outcome]] = []  # the newest offers
        self._packed = 0  # how many of them are also packed in the columns' memory tail
        self._table: list[Outcome] = []
        self._ids: dict[Outcome, int] = {}
        for k, outcome in items:
            self._append(k, outcome)

    def _append(self, k: int, outcome: Outcome) -> None:
        items = self._items
        items.append((k, outcome))
        if len(items) >= self._chunk:
            self._roll()

    def _roll(self) -> None:
        """The newest offers fill a chunk: move them to the columns (and to disk)."""
        self._pack()
        self._columns().spill()  # a quick write: no pause near a deadline
        self._items = []
        self._packed = 0

    def _columns(self) -> Columns:
        cols = self._cols
        if type(cols) is not Columns:
            cols = self._cols = Columns("Hq", self._chunk)
        return cols

    def _pack(self) -> None:
        """Pack the offers not packed yet (lazily: only to move them to disk or pickle)."""
        items, ids, table = self._items, self._ids, self._table
        parties, oids = self._columns().arrays
        for k, outcome in items[self._packed :]:
            i = ids.get(outcome)
            if i is None:
                i = ids[outcome] = len(table)
                table.append(outcome)
            parties.append(k)
            oids.append(i)
        self._packed = len(items)

    def __getstate__(self) -> tuple[Columns, list[Outcome], list[tuple[int, Outcome]]]:
        self._pack()
        return (self._columns(), self._table, self._items)

    def __setstate__(self, state: tuple[Columns, list[Outcome], list[tuple[int, Outcome]]]) -> None:
        self._cols, self._table, self._items = state
        self._packed = len(self._items)
        self._chunk = self._cols.chunk
        self._ids = {o: i for i, o in enumerate(self._table)}

    def _at(self, i: int) -> tuple[int, Outcome]:
        j = i - self._cols._spilled
        if j >= 0:
            return self._items[j]
        k, o = self._columns().row(i)  # spilled: the columns exist
        return (k, self._table[o])

    @overload
    def __getitem__(self, i: int) -> tuple[int, Outcome]: ...
    @overload
    def __getitem__(self, i: slice) -> Sequence[tuple[int, Outcome]]: ...
    def __getitem__(self, i: int | slice) -> Any:
        spilled = self._cols._spilled
        if type(i) is slice:
            if spilled == 0:
                return self._items[i]
            return [self._at(j) for j in range(*i.indices(len(self)))]
        if i < 0:
            i += spilled + len(self._items)
            if i < 0:
                raise IndexError("offer index out of range")
        return self._at(i)

    def __len__(self) -> int:
        return self._cols._spilled + len(self._items)

    def __iter__(self) -> Iterator[tuple[int, Outcome]]:
        if self._cols._spilled == 0:
            return iter(self._items)
        return self._iter_all()

    def _iter_all(self) -> Iterator[tuple[int, Outcome]]:
        table = self._table
        cols = self._columns()  # spilled: they exist
        for block in cols.blocks(0, cols.spilled):  # the offers on disk
            for k, o in zip(block["c0"].tolist(), block["c1"].tolist(), strict=True):
                yield (k, table[o])
        yield from self._items

    @property
    def memory_nbytes(self) -> int:
        """About the bytes the offers held in memory take (a tuple, a list slot and two
        packed numbers each; the outcomes themselves are shared)."""
        return 74 * len(self._items)


class NegotiatorView:
    """What one negotiator may see of its session.

    Negotiators read it through its properties. Its owner (the protocol, or the isolation
    layer that mirrors a view in an agent's process) changes it only through
    :meth:`update`; nothing outside the class writes its fields.

    ``rng`` is a generator, or the ``(seed, index)`` pair one is made from on first use
    (sessions pass pairs, so negotiators that draw nothing cost nothing).

        >>> from accord.core.outcomes import CategoricalIssue, OutcomeSpace
        >>> from accord.core.utilities import LinearAdditiveUtility
        >>> space = OutcomeSpace([CategoricalIssue("x", ["a", "b"])])
        >>> u = LinearAdditiveUtility(space, [1.0], [{"a": 1.0, "b": 0.0}])
        >>> view = NegotiatorView(u, 0, ["me", "you"], OfferLog([]), (0, 0))
        >>> view.update(0.5, step=3, round=1, standing=("b",), proposer=1)
        >>> view.time, view.step, view.round, view.standing_offer, view.standing_proposer
        (0.5, 3, 1, ('b',), 1)
    """

    __slots__ = (
        "_utility",
        "_space",
        "_index",
        "_names",
        "_offers",
        "_rng",
        "_t",
        "_step",
        "_round",
        "_standing",
        "_proposer",
        "_best",
        "_memory",
        "_deadline",
    )

    def __init__(
        self,
        utility: UtilityFunction,
        index: int,
        names: Sequence[str],
        offers: OfferLog,
        rng: np.random.Generator | tuple[int, int],
        memory: Any = None,
        deadline: Deadline | None = None,
    ) -> None:
        self._utility = utility
        self._space = utility.space
        self._index = index
        self._names = tuple(names)
        self._offers = offers
        self._rng = rng
        self._t = 0.0
        self._step = 0
        self._round = 0
        self._standing: Outcome | None = None
        self._proposer = -1
        self._best: Outcome | None = None
        self._memory = memory
        self._deadline = deadline

    def update(
        self,
        time: float,
        step: int,
        round: int,  # noqa: A002 - the public property has the same name
        standing: Outcome | None,
        proposer: int,
    ) -> None:
        """Owner side: set the time, counters and standing offer before a call.

        Args:
            time: normalised time in [0, 1].
            step: actions taken so far in the session.
            round: completed rounds.
            standing: the offer on the table (None if none).
            proposer: index of the party whose offer is on the table (-1 if none).
        """
        self._t = time
        self._step = step
        self._round = round
        self._standing = standing
        self._proposer = proposer

    def state(self) -> tuple[float, int, int, Outcome | None, int]:
        """Owner side: ``(time, step, round, standing, proposer)``, what :meth:`update` takes."""
        return (self._t, self._step, self._round, self._standing, self._proposer)

    @property
    def utility(self) -> UtilityFunction:
        """This negotiator's own utility function."""
        return self._utility

    @property
    def space(self) -> OutcomeSpace:
        """The outcome space."""
        return self._space

    @property
    def index(self) -> int:
        """This negotiator's position in the turn order."""
        return self._index

    @property
    def names(self) -> tuple[str, ...]:
        """Names of all parties in turn order."""
        return self._names

    @property
    def n_parties(self) -> int:
        """Number of parties."""
        return len(self._names)

    @property
    def time(self) -> float:
        """Normalised time in [0, 1]."""
        return self._t

    @property
    def step(self) -> int:
        """Actions taken so far in the session."""
        return self._step

    @property
    def round(self) -> int:
        """Completed rounds (a round is one action by every party)."""
        return self._round

    @property
    def offers(self) -> OfferLog:
        """Every offer made so far, ``(proposer index, outcome)``, oldest first."""
        return self._offers

    @property
    def standing_offer(self) -> Outcome | None:
        """The offer on the table, if any."""
        return self._standing

    @property
    def standing_proposer(self) -> int:
        """Index of the party whose offer is on the table (-1 if none)."""
        return self._proposer

    @property
    def rng(self) -> np.random.Generator:
        """This negotiator's own seeded random generator (made on first use)."""
        if not isinstance(self._rng, np.random.Generator):
            self._rng = np.random.default_rng(self._rng)
        return self._rng

    @property
    def seed(self) -> np.random.Generator | tuple[int, int]:
        """What :attr:`rng` is made from: the seed given, or the generator once made.
        Owner side: a view built from it draws the same numbers (an organiser sends it
        to a sandboxed agent's view, which then makes its generator only if used)."""
        return self._rng

    @property
    def reservation(self) -> float:
        """Undiscounted reservation value."""
        return self._utility.reservation

    @property
    def deadline(self) -> Deadline | None:
        """The session's deadline (rounds and/or seconds), as every party knows it; None
        when the owner did not say (a view built by hand)."""
        return self._deadline

    @property
    def memory(self) -> Any:
        """What the tournament lets this agent read of its earlier sessions (or None)."""
        return self._memory

    @property
    def best_outcome(self) -> Outcome:
        """An outcome of maximum own utility (computed once, discrete spaces; spaces too
        big to enumerate use :func:`accord.core.inverse.inverse_of`)."""
        if self._best is None:
            from accord.core.finder import is_huge
            from accord.core.inverse import inverse_of

            if is_huge(self._space):
                self._best = inverse_of(self._utility).best()
            else:
                values = self._utility.all()
                self._best = self._space.outcome_at(int(values.argmax()))
        return self._best


class Negotiator:
    """Base class of every negotiator. Override ``propose`` and ``respond``."""

    def __init__(self, name: str | None = None) -> None:
        self.name = name or type(self).__name__

    def on_start(self, view: NegotiatorView) -> None:
        """Called once before the first action (precompute here)."""

    def propose(self, view: NegotiatorView) -> Outcome | None:
        """Return an outcome to offer; ``None`` walks away from the negotiation."""
        raise NotImplementedError(f"{type(self).__name__} must implement propose()")

    def respond(self, view: NegotiatorView, offer: Outcome) -> Response:
        """Accept, reject (then :meth:`propose` is called) or end the negotiation."""
        raise NotImplementedError(f"{type(self).__name__} must implement respond()")

    def on_end(self, view: NegotiatorView, result: SessionResult) -> None:
        """Called once when the session has ended."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r})"
