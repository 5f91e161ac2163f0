"""Running independent tasks anywhere, resumably: the tournament layer's generic API.

A task is a :class:`Job`: a stable id and a picklable spec. A pure, module-level
function ``fn(spec) -> dict`` turns a spec into a record (a JSON-able dict). The
executors of :mod:`accord.tournament.pools` (serial, local processes, Ray) run the jobs;
with ``out`` given, every record goes into a :class:`~accord.tournament.taskstore.TaskStore`
file in transactions of whole tasks, so a run killed at any moment resumes with the same
call, losing and repeating nothing.

    >>> import tempfile, pathlib
    >>> jobs = [Job(f"s{s}", {"seed": s}) for s in range(4)]
    >>> with tempfile.TemporaryDirectory() as d:
    ...     first = run_tasks(sample_task, jobs, out=pathlib.Path(d) / "t.sqlite")
    ...     again = run_tasks(sample_task, jobs, out=pathlib.Path(d) / "t.sqlite")
    >>> (first.total, first.ran, again.ran, again.records == first.records)
    (4, 4, 0, True)
    >>> list(run_tasks(sample_task, jobs, executor="processes", workers=2).records)
    ['s0', 's1', 's2', 's3']

Records come back as stored, that is through JSON (tuples become lists, numpy scalars
plain numbers), whether or not a file is used, so a resumed run returns the same values
as an uninterrupted one.
"""

from __future__ import annotations

import json
import os
import socket
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from accord.core.errors import ConfigError, UsageError
from accord.tournament.pools import Pool, make_pool
from accord.tournament.taskstore import StoredTask, TaskStore

__all__ = ["Job", "TaskRun", "run_tasks", "sample_task"]

Progress = Callable[[int, int], None]
TaskFn = Callable[[Any], Mapping[str, Any]]
_FLUSH_TASKS = 64  # store at least every 64 tasks ...
_FLUSH_SECONDS = 0.25  # ... or every quarter of a second
_HOST = socket.gethostname()


class Job(NamedTuple):
    """One task: a stable ``id`` (unique in its run) and a picklable ``spec``."""

    id: str
    spec: Any


@dataclass(frozen=True)
class TaskRun:
    """What a run did: every finished task in schedule order, how many tasks were
    scheduled and run now, the wall time, and the results file (if any)."""

    tasks: list[StoredTask]
    total: int
    ran: int
    seconds: float
    path: Path | None = None

    @property
    def records(self) -> dict[str, dict[str, Any]]:
        """Each finished task's record by id, in schedule order."""
        return {t.id: json.loads(t.record) for t in self.tasks}

    @property
    def elapsed(self) -> dict[str, float]:
        """Each finished task's run time in seconds."""
        return {t.id: t.elapsed for t in self.tasks}


def sample_task(spec: Mapping[str, Any]) -> dict[str, Any]:
    """A tiny seeded task for examples and tests: ``n`` (default 3) uniform draws from
    ``seed``, after sleeping ``sleep`` seconds (default 0).

    >>> sample_task({"seed": 1, "n": 2})["draws"] == sample_task({"seed": 1, "n": 2})["draws"]
    True
    """
    if spec.get("sleep"):
        time.sleep(float(spec["sleep"]))
    draws = np.random.default_rng(int(spec["seed"])).random(int(spec.get("n", 3)))
    return {"seed": int(spec["seed"]), "draws": draws.tolist(), "sum": float(draws.sum())}


def run_tasks(
    fn: TaskFn,
    jobs: Iterable[Job | tuple[str, Any]],
    *,
    out: str | Path | None = None,
    settings: Mapping[str, Any] | None = None,
    describe: Callable[[Any], Any] | None = None,
    executor: str | Pool[Any, Any] = "serial",
    workers: int | None = None,
    address: str | None = None,
    chunk: int | None = None,
    progress: Progress | None = None,
) -> TaskRun:
    """Run (or resume) ``fn`` over ``jobs``; with ``out``, store each record in that file.

    ``settings`` (JSON-able, checked on resume) say what the run is; ``describe(spec)``
    gives the JSON stored as each task's ``spec``. ``executor`` is ``serial``,
    ``processes`` (``workers``, default all cores; one worker or a single pending task
    runs in this process) or ``ray`` (``address``), or a :class:`Pool`; ``chunk`` caps
    the tasks sent to a worker at once (1 for tasks of seconds). ``progress(done,
    total)`` is called as results are stored. An exception in ``fn`` stops the run;
    what was stored stays, and the same call resumes.
    """
    t0 = time.perf_counter()
    todo = _checked(jobs)
    ids = [j.id for j in todo]
    path = None if out is None else Path(out)
    store = None if path is None else TaskStore(path)
    try:
        done: set[str] = set()
        if store is not None:
            store.prepare({"fn": _name(fn), **(settings or {})}, ids)
            done = store.done_ids()
        pending = [(i, j) for i, j in enumerate(todo) if j.id not in done]
        finished: list[StoredTask] = []
        sink = _Sink(store, finished, len(done), len(todo), progress)
        sink.report()
        if pending:
            pool = _pool(executor, workers, address, chunk, len(pending))
            pool.start(partial(_call, fn, describe))
            try:
                for batch in pool.run(pending):
                    sink.add(batch)
                sink.flush()
            finally:
                pool.close()
        tasks = sorted(finished, key=_idx) if store is None else store.stored()
    finally:
        if store is not None:
            store.close()
    return TaskRun(tasks, len(todo), len(pending), time.perf_counter() - t0, path)


def _idx(t: StoredTask) -> int:
    return t.idx


def _checked(jobs: Iterable[Job | tuple[str, Any]]) -> list[Job]:
    out: list[Job] = []
    seen: set[str] = set()
    for j in jobs:
        if not (isinstance(j, tuple) and len(j) == 2 and isinstance(j[0], str)):
            raise ConfigError(f"a task must be an (id: str, spec) pair, got {j!r:.80}")
        if j[0] in seen:
            raise ConfigError(f"task ids must be unique; {j[0]!r} appears twice")
        seen.add(j[0])
        out.append(Job(*j))
    return out


def _pool(
    executor: str | Pool[Any, Any],
    workers: int | None,
    address: str | None,
    chunk: int | None,
    pending: int,
) -> Pool[Any, Any]:
    if not isinstance(executor, str):
        return executor
    if executor == "processes" and ((workers or os.cpu_count() or 1) == 1 or pending < 2):
        executor = "serial"  # a pool would only add start-up time
    return make_pool(executor, workers, address, chunk)


def _name(fn: Callable[..., Any]) -> str:
    while isinstance(fn, partial):
        fn = fn.func
    return f"{getattr(fn, '__module__', '?')}:{getattr(fn, '__qualname__', repr(fn))}"


def _call(fn: TaskFn, describe: Callable[[Any], Any] | None, item: tuple[int, Job]) -> StoredTask:
    """Run one job in a worker and encode its record (JSON is made where the work is)."""
    idx, job = item
    t0 = time.perf_counter()
    record = fn(job.spec)
    elapsed = time.perf_counter() - t0
    if not isinstance(record, Mapping):
        raise UsageError(
            f"task {job.id!r}: {_name(fn)} returned {type(record).__name__}, expected a dict "
            "(a JSON-able record)"
        )
    try:
        text = json.dumps(dict(record), default=_plain)
        spec = None if describe is None else json.dumps(describe(job.spec), default=_plain)
    except TypeError as exc:
        raise UsageError(f"task {job.id!r}: its record is not JSON-able: {exc}") from None
    return StoredTask(job.id, idx, text, elapsed, time.time(), f"{_HOST}:{os.getpid()}", spec)


def _plain(v: Any) -> Any:
    if isinstance(v, np.ndarray):
        return v.tolist()
    if isinstance(v, np.generic):
        return v.item()
    if isinstance(v, set | frozenset):
        return sorted(v)
    raise TypeError(f"cannot store {v!r:.60} ({type(v).__name__})")


class _Sink:
    """Collects finished tasks and stores them in whole-task transactions, often enough
    that little work waits in memory, rarely enough that writing stays cheap."""

    def __init__(
        self,
        store: TaskStore | None,
        kept: list[StoredTask],
        count: int,
        total: int,
        progress: Progress | None,
    ) -> None:
        self.store, self.kept, self.count, self.total = store, kept, count, total
        self.progress = progress
        self.buffer: list[StoredTask] = []
        self.last = time.perf_counter()

    def add(self, batch: list[StoredTask]) -> None:
        self.buffer.extend(batch)
        now = time.perf_counter()
        if len(self.buffer) >= _FLUSH_TASKS or now - self.last > _FLUSH_SECONDS:
            self.flush()
            self.last = now

    def flush(self) -> None:
        if not self.buffer:
            return
        if self.store is not None:
            self.store.write(self.buffer)
        else:
            self.kept.extend(self.buffer)
        self.count += len(self.buffer)
        self.buffer = []
        self.report()

    def report(self) -> None:
        if self.progress is not None:
            self.progress(self.count, self.total)
