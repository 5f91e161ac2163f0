"""Executors: where sessions run. Serial, a local process pool, or a Ray cluster.

Every executor takes a list of :class:`Task` and yields lists of
:class:`SessionRecord` as they finish (in any order); the caller (the main process)
stores them. The :class:`RunContext` (scenarios, agents, limits) is sent to each worker
once, tasks travel in chunks so that per-task overhead stays small next to the sessions.

    >>> ex = make_executor("serial")
    >>> type(ex).__name__
    'SerialExecutor'
"""

from __future__ import annotations

import math
import multiprocessing as mp
import os
import uuid
from collections.abc import Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from typing import Any

from accord.core.errors import ConfigError
from accord.tournament.lifeline import die_with_parent
from accord.tournament.session import RunContext, SessionRecord, Task, run_session

EXECUTORS = ("serial", "processes", "ray")


class Executor:
    """Base class: ``start(ctx)``, then ``run(tasks)`` any number of times, then ``close()``."""

    workers = 1

    def start(self, ctx: RunContext) -> None:
        """Receive the run context (called once, before any ``run``)."""
        self.ctx = ctx

    def run(self, tasks: Sequence[Task]) -> Iterator[list[SessionRecord]]:
        """Yield the records of ``tasks`` in batches, as they finish."""
        raise NotImplementedError

    def close(self) -> None:
        """Release workers."""

    def __enter__(self) -> Executor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class SerialExecutor(Executor):
    """Runs every session in the calling process, in order."""

    def run(self, tasks: Sequence[Task]) -> Iterator[list[SessionRecord]]:
        ctx = self.ctx
        for task in tasks:
            yield [run_session(task, ctx)]


def chunked(
    tasks: Sequence[Task], workers: int, per_worker: int = 8, cap: int = 64
) -> list[list[Task]]:
    """Split tasks into about ``workers * per_worker`` chunks of at most ``cap`` tasks.

    >>> [len(c) for c in chunked(list(range(40)), 2)]
    [3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 1]
    """
    if not tasks:
        return []
    size = max(1, min(cap, math.ceil(len(tasks) / (workers * per_worker))))
    return [list(tasks[i : i + size]) for i in range(0, len(tasks), size)]


# -- local processes ------------------------------------------------------------------------
_WORKER_CTX: RunContext | None = None


def _init_worker(ctx: RunContext) -> None:
    global _WORKER_CTX
    die_with_parent()
    _WORKER_CTX = ctx


def _run_chunk(chunk: list[Task]) -> list[SessionRecord]:
    assert _WORKER_CTX is not None, "worker was not initialised"
    ctx = _WORKER_CTX
    return [run_session(t, ctx) for t in chunk]


class ProcessExecutor(Executor):
    """A local pool of worker processes (forked where the platform allows)."""

    def __init__(self, workers: int | None = None) -> None:
        self.workers = workers or os.cpu_count() or 1
        if self.workers < 1:
            raise ConfigError(f"workers must be >= 1, got {workers}")
        self._pool: ProcessPoolExecutor | None = None

    def start(self, ctx: RunContext) -> None:
        super().start(ctx)
        method = "fork" if "fork" in mp.get_all_start_methods() else "spawn"
        self._pool = ProcessPoolExecutor(
            self.workers,
            mp_context=mp.get_context(method),
            initializer=_init_worker,
            initargs=(ctx,),
        )

    def run(self, tasks: Sequence[Task]) -> Iterator[list[SessionRecord]]:
        assert self._pool is not None, "call start() first"
        pending: set[Future[list[SessionRecord]]] = {
            self._pool.submit(_run_chunk, c) for c in chunked(tasks, self.workers)
        }
        try:
            while pending:
                done, pending = wait(pending, return_when=FIRST_COMPLETED)
                for fut in done:
                    yield fut.result()
        finally:
            for fut in pending:
                fut.cancel()

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None


# -- Ray ------------------------------------------------------------------------------------
_RAY_CTX: dict[str, RunContext] = {}


def _ray_chunk(token: str, boxed: list[Any], chunk: list[Task]) -> list[SessionRecord]:
    ctx = _RAY_CTX.get(token)
    if ctx is None:
        import ray

        ctx = ray.get(boxed[0])
        _RAY_CTX.clear()
        _RAY_CTX[token] = ctx
    return [run_session(t, ctx) for t in chunk]


class RayExecutor(Executor):
    """Runs chunks of sessions as Ray tasks (a local Ray, or a cluster at ``address``)."""

    def __init__(self, address: str | None = None, workers: int | None = None) -> None:
        try:
            import ray
        except ImportError as exc:
            raise ConfigError("the ray executor needs Ray: pip install 'ray>=2.9'") from exc
        self._ray = ray
        self.address = address
        self._owns = False
        self._requested = workers

    def start(self, ctx: RunContext) -> None:
        super().start(ctx)
        ray = self._ray
        if not ray.is_initialized():
            kwargs: dict[str, Any] = {"address": self.address, "log_to_driver": False}
            if self.address is None and self._requested:
                kwargs["num_cpus"] = self._requested
            ray.init(**kwargs)
            self._owns = True
        cpus = int(ray.cluster_resources().get("CPU", 1))
        self.workers = self._requested or max(1, cpus)
        self._token = uuid.uuid4().hex
        self._boxed = [ray.put(ctx)]
        self._remote = ray.remote(num_cpus=1)(_ray_chunk)

    def run(self, tasks: Sequence[Task]) -> Iterator[list[SessionRecord]]:
        ray = self._ray
        refs = [
            self._remote.remote(self._token, self._boxed, c)
            for c in chunked(tasks, self.workers, cap=256)
        ]
        while refs:
            done, refs = ray.wait(refs, num_returns=1)
            yield ray.get(done[0])

    def close(self) -> None:
        if self._owns and self._ray.is_initialized():
            self._ray.shutdown()
        self._owns = False


def make_executor(kind: str, workers: int | None = None, address: str | None = None) -> Executor:
    """``serial``, ``processes`` (``workers``, default: all cores) or ``ray`` (``address``)."""
    if kind == "serial":
        return SerialExecutor()
    if kind == "processes":
        return ProcessExecutor(workers)
    if kind == "ray":
        return RayExecutor(address, workers)
    raise ConfigError(f"executor must be one of {EXECUTORS}, got {kind!r}")
