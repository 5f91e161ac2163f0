"""Executors: where sessions run. Serial, a local process pool, or a Ray cluster.

Every executor takes a list of :class:`Task` and yields lists of
:class:`SessionRecord` as they finish (in any order); the caller (the main process)
stores them. They are the generic pools of :mod:`accord.tournament.pools` running
:func:`run_session` bound to the :class:`RunContext` (scenarios, agents, limits), so the
context is sent to each worker once and tasks travel in chunks.

    >>> ex = make_executor("serial")
    >>> type(ex).__name__, ex.workers
    ('SerialExecutor', 1)
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from functools import partial
from typing import Any

from accord.core.errors import ConfigError
from accord.tournament.pools import POOLS, Pool, ProcessPool, RayPool, SerialPool, chunked
from accord.tournament.session import RunContext, SessionRecord, Task, lost_session, run_session

__all__ = [
    "EXECUTORS",
    "Executor",
    "ProcessExecutor",
    "RayExecutor",
    "SerialExecutor",
    "chunked",
    "make_executor",
]

EXECUTORS = POOLS
_GROUP = 128  # sessions a worker runs at once, at most, with sandboxed agents


class Executor:
    """``start(ctx)``, then ``run(tasks)`` any number of times, then ``close()``."""

    def __init__(self, pool: Pool[Task, SessionRecord]) -> None:
        self.pool = pool

    @property
    def workers(self) -> int:
        """How many sessions run at once (known for Ray once started)."""
        return self.pool.workers

    def start(self, ctx: RunContext) -> None:
        """Receive the run context (called once, before any ``run``)."""
        self.ctx = ctx
        self.pool.start(partial(run_session, ctx=ctx))

    def run(self, tasks: Sequence[Task]) -> Iterator[list[SessionRecord]]:
        """Yield the records of ``tasks`` in batches, as they finish."""
        return self.pool.run(tasks)

    def close(self) -> None:
        """Release workers."""
        self.pool.close()

    def __enter__(self) -> Executor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class SerialExecutor(Executor):
    """Runs every session in the calling process, in order; sessions with sandboxed
    agents run many at once, each sandbox answering all its pending calls in one
    request (:mod:`accord.tournament.multiplex`), unless ``multiplex=False``."""

    def __init__(self, multiplex: bool = True) -> None:
        super().__init__(SerialPool())
        self.multiplex = multiplex
        self.hub: Any = None  # the last run's Hub (its counts of calls and round trips)

    def run(self, tasks: Sequence[Task]) -> Iterator[list[SessionRecord]]:
        ctx = self.ctx
        if self.multiplex and ctx.sandboxed:
            from accord.tournament.multiplex import Hub

            if Hub.usable(ctx.seconds):
                self.hub = Hub(ctx)
                return self.hub.run(tasks)  # type: ignore[no-any-return]
        return super().run(tasks)


class ProcessExecutor(Executor):
    """A supervised local pool of worker processes (forked where the platform allows).

    A worker that dies (an agent calling ``os._exit``, a crash, a call that ignored its
    pre-emption) is replaced; the session it was running is stored as a failure of the
    agent that was acting. In-process agents share their worker's memory limit
    (``memory_limit`` megabytes beyond what the worker maps at start). With sandboxed
    agents each worker runs groups of sessions at once (as the serial executor does,
    :mod:`accord.tournament.multiplex`) unless ``multiplex=False``."""

    def __init__(self, workers: int | None = None, multiplex: bool = True) -> None:
        super().__init__(ProcessPool(workers))
        self.multiplex = multiplex
        self._grouped = False

    def start(self, ctx: RunContext) -> None:
        pool = self.pool
        assert isinstance(pool, ProcessPool)
        self.ctx = ctx
        if self.multiplex and ctx.sandboxed:
            from accord.tournament.multiplex import Hub, lost_group, run_group

            self._grouped = Hub.usable(ctx.seconds)
            if self._grouped:  # an item is a group of tasks, its result their records
                pool.supervise(None, partial(lost_group, ctx=ctx))
                pool.start(partial(run_group, ctx=ctx))
                return
        pool.supervise(
            None if ctx.sandboxed else ctx.limits.memory_mb, partial(lost_session, ctx=ctx)
        )
        super().start(ctx)

    def run(self, tasks: Sequence[Task]) -> Iterator[list[SessionRecord]]:
        if not self._grouped:
            return super().run(tasks)
        return self._run_groups(tasks)

    def _run_groups(self, tasks: Sequence[Task]) -> Iterator[list[SessionRecord]]:
        return _run_groups(self.pool, tasks)


def _run_groups(pool: Any, tasks: Sequence[Task]) -> Iterator[list[SessionRecord]]:
    """Run ``tasks`` on ``pool`` (started with :func:`~accord.tournament.multiplex.run_group`)
    in groups, a few per worker: many sessions at once in each, results as groups end."""
    size = max(1, min(_GROUP, math.ceil(len(tasks) / (2 * pool.workers))))
    groups = [list(tasks[i : i + size]) for i in range(0, len(tasks), size)]
    for batch in pool.run(groups):  # (chunks of one group: few groups per worker)
        yield [r for group in batch for r in group]


class RayExecutor(Executor):
    """Runs chunks of sessions as Ray tasks (a local Ray, or a cluster at ``address``).

    With sandboxed agents each Ray task runs a group of sessions at once in its worker
    (:mod:`accord.tournament.multiplex`, as the processes executor does: the worker runs
    only trusted code, each agent's sandbox serving many of the group's sessions) unless
    ``multiplex=False``. A worker that dies is Ray's to retry: the group runs again
    (its sessions' outcomes do not depend on the run)."""

    def __init__(
        self, address: str | None = None, workers: int | None = None, multiplex: bool = True
    ) -> None:
        super().__init__(RayPool(address, workers))
        self.multiplex = multiplex
        self._grouped = False

    def start(self, ctx: RunContext) -> None:
        self.ctx = ctx
        if self.multiplex and ctx.sandboxed:
            from accord.tournament.multiplex import Hub, run_group

            self._grouped = Hub.usable(ctx.seconds)
            if self._grouped:  # an item is a group of tasks, its result their records
                self.pool.start(partial(run_group, ctx=ctx))  # type: ignore[arg-type]
                return
        super().start(ctx)

    def run(self, tasks: Sequence[Task]) -> Iterator[list[SessionRecord]]:
        if not self._grouped:
            return super().run(tasks)
        return _run_groups(self.pool, tasks)


def make_executor(
    kind: str, workers: int | None = None, address: str | None = None, multiplex: bool = True
) -> Executor:
    """``serial``, ``processes`` (``workers``, default: all cores) or ``ray`` (``address``);
    ``multiplex=False``: each sandbox plays one session at a time."""
    if kind == "serial":
        return SerialExecutor(multiplex)
    if kind == "processes":
        return ProcessExecutor(workers, multiplex)
    if kind == "ray":
        return RayExecutor(address, workers, multiplex)
    raise ConfigError(f"executor must be one of {EXECUTORS}, got {kind!r}")
