"""A supervised pool of local worker processes: a worker that dies is replaced and costs
only the item it was working on.

Every worker is a process of its own with a pipe to the calling process and a
:class:`Beacon`, a few numbers in shared memory through which it says what it is doing
(which party of a session is acting, in which call, and by when that call must
return). The calling process sends chunks of items, receives each result as soon as it
is ready, and watches the workers:

* a worker that exits (``os._exit``, a signal, the out-of-memory killer) loses only the
  item it was running: ``on_death(item, death)`` turns that item into a result (a failed
  session), the rest of its chunk goes to a new worker;
* a worker whose beacon deadline has passed (a call that ignored its pre-emption, or
  is stuck in C code) is killed and handled the same way;
* an exception raised by the function itself (not by an agent: those are results) stops
  the run and is raised in the calling process.

Workers ignore ``SIGINT``: Ctrl-C reaches the calling process only, which stops cleanly.

    >>> sup = Supervisor(2)
    >>> sup.start(abs)
    >>> sorted(r for batch in sup.run([-1, 2, -3]) for r in batch)
    [1, 2, 3]
    >>> sup.close()
"""

from __future__ import annotations

import contextlib
import math
import multiprocessing as mp
import os
import pickle
import resource
import signal
import time
import traceback
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait
from typing import Any, TypeVar

from accord.core.errors import AccordError, ConfigError
from accord.tournament.lifeline import die_with_parent

T = TypeVar("T")
R = TypeVar("R")

OPS = ("on_start", "propose", "respond", "on_end")


def chunked(tasks: Sequence[T], workers: int, per_worker: int = 8, cap: int = 64) -> list[list[T]]:
    """Split tasks into about ``workers * per_worker`` chunks of at most ``cap`` tasks.

    >>> [len(c) for c in chunked(list(range(40)), 2)]
    [3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 1]
    >>> [len(c) for c in chunked(list(range(5)), 2, cap=1)]
    [1, 1, 1, 1, 1]
    """
    if not tasks:
        return []
    size = max(1, min(cap, math.ceil(len(tasks) / (workers * per_worker))))
    return [list(tasks[i : i + size]) for i in range(0, len(tasks), size)]


class WorkerDied(AccordError):
    """A worker process died while running an item that has no ``on_death`` handler."""


@dataclass(frozen=True)
class Death:
    """How a worker died: ``party`` and ``op`` it was in (-1: none), and why."""

    party: int
    op: str | None
    message: str


class Beacon:
    """What a worker is doing, in shared memory: acting party, operation, deadline.

    The deadline is a ``time.monotonic()`` instant (0: none); past it the supervisor
    kills the worker."""

    def __init__(self, ctx: Any) -> None:
        self.array = ctx.RawArray("d", 3)
        self._cells = self._view()
        self.leave()

    def _view(self) -> memoryview[float]:
        # plain memory writes on the shared array: faster than the ctypes array's
        return memoryview(self.array).cast("B").cast("d")

    def __getstate__(self) -> dict[str, Any]:
        return {"array": self.array}  # a memoryview does not travel; it is made again

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.array = state["array"]
        self._cells = self._view()

    def enter(self, party: int, op: int, deadline: float) -> None:
        """A call of ``OPS[op]`` by ``party`` starts; it must end by ``deadline``."""
        a = self._cells
        a[0] = party
        a[1] = op
        a[2] = deadline

    def leave(self) -> None:
        """The call ended (a zero deadline: no call, whatever party and op still say)."""
        self._cells[2] = 0.0

    @property
    def cells(self) -> memoryview[float]:
        """``party, op, deadline`` as a writable view (owner side, for the fastest
        writes: party and op first, the deadline last; a zero deadline ends the call)."""
        return self._cells

    def read(self) -> tuple[int, str | None, float]:
        """``(party, op name or None, deadline)``; ``(-1, None, 0.0)`` between calls."""
        a = self.array
        deadline = float(a[2])
        if deadline == 0.0:
            return -1, None, 0.0
        op = int(a[1])
        return int(a[0]), OPS[op] if 0 <= op < len(OPS) else None, deadline


_BEACON: Beacon | None = None


def current_beacon() -> Beacon | None:
    """The beacon of the worker process this runs in (None outside supervised workers)."""
    return _BEACON


def limit_memory(megabytes: int) -> None:
    """Let this process map at most ``megabytes`` more than it maps now (``RLIMIT_AS``)."""
    with open("/proc/self/status") as f:
        size_kb = next((int(line.split()[1]) for line in f if line.startswith("VmSize:")), 0)
    cap = size_kb * 1024 + megabytes * 1024 * 1024
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard != resource.RLIM_INFINITY:
        cap = min(cap, hard)
    resource.setrlimit(resource.RLIMIT_AS, (cap, hard))


def _worker_main(
    conn: Connection, fn: Callable[[Any], Any], beacon: Beacon, memory_mb: int | None
) -> None:
    global _BEACON
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    die_with_parent()
    _BEACON = beacon
    if memory_mb is not None and os.path.exists("/proc/self/status"):
        limit_memory(memory_mb)
    while True:
        try:
            chunk = conn.recv()
        except (EOFError, OSError):
            return
        if chunk is None:
            return
        for item in chunk:
            try:
                result = fn(item)
            except BaseException as exc:  # noqa: BLE001 - sent to the caller, which raises it
                conn.send(("error", _portable(exc)))
                break
            conn.send(("ok", result))
        conn.send(("idle", None))


def _portable(exc: BaseException) -> BaseException:
    try:
        pickle.loads(pickle.dumps(exc))
        return exc
    except Exception:  # noqa: BLE001 - an exception that does not pickle: send its text
        return RuntimeError("".join(traceback.format_exception(exc)))


class _Worker:
    def __init__(self, ctx: Any, fn: Callable[[Any], Any], memory_mb: int | None) -> None:
        self.beacon = Beacon(ctx)
        parent, child = ctx.Pipe()
        self.proc = ctx.Process(target=_worker_main, args=(child, fn, self.beacon, memory_mb))
        self.proc.start()
        child.close()
        self.conn: Connection = parent
        self.queue: deque[Any] = deque()  # items sent and not yet answered
        self.busy = False

    def send(self, chunk: list[Any]) -> None:
        self.queue.extend(chunk)
        self.busy = True
        self.conn.send(chunk)

    def kill(self) -> None:
        if self.proc.is_alive():
            self.proc.kill()
        self.proc.join(2.0)
        self.conn.close()


class Supervisor:
    """Supervised local worker processes (forked where the platform allows).

    Args:
        workers: how many (default: all cores).
        cap: items per chunk at most (1 for long items).
        memory_mb: megabytes each worker may map beyond what it maps at start (None: no
            limit).
        on_death: ``(item, Death) -> result`` for the item a dying worker was running;
            None: a death raises :class:`WorkerDied`.
    """

    def __init__(
        self,
        workers: int | None = None,
        cap: int = 64,
        memory_mb: int | None = None,
        on_death: Callable[[Any, Death], Any] | None = None,
    ) -> None:
        self.workers = workers or os.cpu_count() or 1
        if self.workers < 1:
            raise ConfigError(f"workers must be >= 1, got {workers}")
        if cap < 1:
            raise ConfigError(f"chunk cap must be >= 1, got {cap}")
        self.cap = cap
        self.memory_mb = memory_mb
        self.on_death = on_death
        self.deaths = 0
        self._pool: list[_Worker] = []

    def start(self, fn: Callable[[Any], Any]) -> None:
        """Start the workers, each running ``fn`` on the items it is sent."""
        self.fn = fn
        method = "fork" if "fork" in mp.get_all_start_methods() else "spawn"
        self._ctx = mp.get_context(method)
        self._pool = [self._spawn() for _ in range(self.workers)]

    def _spawn(self) -> _Worker:
        return _Worker(self._ctx, self.fn, self.memory_mb)

    def run(self, items: Sequence[Any]) -> Iterator[list[Any]]:
        """Yield results in batches as they arrive (any order)."""
        assert self._pool, "call start() first"
        todo: deque[list[Any]] = deque(chunked(items, self.workers, cap=self.cap))
        while todo or any(w.busy for w in self._pool):
            for w in self._pool:
                if not w.busy and todo:
                    w.send(todo.popleft())
            busy = [w for w in self._pool if w.busy]
            waits: list[Any] = [w.conn for w in busy] + [w.proc.sentinel for w in busy]
            wait(waits, timeout=self._next_check(busy))
            for i, w in enumerate(self._pool):
                if not w.busy:
                    continue
                out: list[Any] = []  # one batch per worker: what it sent since last time
                dead = self._drain(w, out)
                why = None
                if dead:
                    why = self._exit_reason(w)
                else:
                    party, op, deadline = w.beacon.read()
                    if deadline and time.monotonic() > deadline:
                        why = f"{op}() did not return in time (pre-emption failed); worker killed"
                if why is not None:
                    out.extend(self._replace(i, w, why, todo))
                if out:
                    yield out

    def _next_check(self, busy: list[_Worker]) -> float:
        now = time.monotonic()
        deadlines = [d for d in (w.beacon.read()[2] for w in busy) if d]
        return max(0.01, min([0.5, *(d - now + 0.01 for d in deadlines)]))

    def _drain(self, w: _Worker, out: list[Any]) -> bool:
        """Receive what ``w`` sent; True if it is dead."""
        try:
            while w.conn.poll():
                kind, payload = w.conn.recv()
                if kind == "ok":
                    w.queue.popleft()
                    out.append(payload)
                elif kind == "idle":
                    w.busy = False
                    w.queue.clear()
                else:
                    raise payload
        except (EOFError, OSError):
            return True
        return w.busy and not w.proc.is_alive() and not w.conn.poll()

    def _exit_reason(self, w: _Worker) -> str:
        w.proc.join(1.0)
        code = w.proc.exitcode
        if code is not None and code < 0:
            return f"the worker process died from {signal.Signals(-code).name}"
        return f"the worker process exited (exit code {code})"

    def _replace(self, i: int, w: _Worker, why: str, todo: deque[list[Any]]) -> list[Any]:
        party, op, _ = w.beacon.read()
        w.kill()
        self.deaths += 1
        self._pool[i] = self._spawn()
        if not w.queue:
            return []
        item = w.queue.popleft()
        if w.queue:
            todo.appendleft(list(w.queue))
        if self.on_death is None:
            raise WorkerDied(f"{why} while running an item")
        return [self.on_death(item, Death(party, op, why))]

    def close(self) -> None:
        """Stop every worker (idempotent)."""
        for w in self._pool:
            if w.proc.is_alive() and not w.busy:
                with contextlib.suppress(BrokenPipeError, OSError):
                    w.conn.send(None)
        deadline = time.monotonic() + 1.0
        for w in self._pool:
            w.proc.join(max(0.0, deadline - time.monotonic()))
            w.kill()
        self._pool = []
