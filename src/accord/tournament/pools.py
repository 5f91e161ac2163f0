"""Generic executors: one pure function over many picklable items, run serially, on a
local process pool or on Ray, with results coming back in batches as they finish.

A pool is started once with the function to run: a module-level function, or a
:func:`functools.partial` of one that carries shared context (scenarios, agents, ...).
That function is sent to each worker once; items then travel in chunks, so per-item
overhead stays small next to the work. Results come back per chunk, in any order.

    >>> pool = make_pool("serial")
    >>> pool.start(abs)
    >>> [r for batch in pool.run([-1, 2, -3]) for r in batch]
    [1, 2, 3]
    >>> pool.close()

Session executors (:mod:`accord.tournament.executors`) and the task runner
(:mod:`accord.tournament.tasks`) are both built on these pools.
"""

from __future__ import annotations

import importlib.util
import os
import uuid
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Generic, TypeVar

from accord.core.errors import ConfigError
from accord.tournament.raycluster import is_explicit, prepare_ray
from accord.tournament.workers import Death, Supervisor, chunked

__all__ = ["POOLS", "Pool", "ProcessPool", "RayPool", "SerialPool", "chunked", "make_pool"]

POOLS = ("serial", "processes", "ray")

T = TypeVar("T")
R = TypeVar("R")


class Pool(Generic[T, R]):
    """Base class: ``start(fn)``, then ``run(items)`` any number of times, then ``close()``."""

    workers = 1

    def start(self, fn: Callable[[T], R]) -> None:
        """Receive the function every item goes through (called once, before ``run``)."""
        self.fn = fn

    def run(self, items: Sequence[T]) -> Iterator[list[R]]:
        """Yield ``fn(item)`` for every item, in batches, as they finish."""
        raise NotImplementedError

    def close(self) -> None:
        """Release workers."""

    def __enter__(self) -> Pool[T, R]:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class SerialPool(Pool[T, R]):
    """Runs every item in the calling process, in order, one batch per item."""

    def run(self, items: Sequence[T]) -> Iterator[list[R]]:
        fn = self.fn
        for item in items:
            yield [fn(item)]


# -- local processes ------------------------------------------------------------------------
class ProcessPool(Pool[T, R]):
    """A supervised pool of local worker processes (forked where the platform allows);
    workers die with the calling process, and a worker that dies is replaced (see
    :mod:`accord.tournament.workers`). ``cap`` bounds the items per chunk (1 for long
    tasks); ``memory_mb`` limits each worker's memory; ``on_death(item, death)`` turns
    the item a dying worker was running into a result (without it, a death raises
    :class:`~accord.tournament.workers.WorkerDied`)."""

    def __init__(
        self,
        workers: int | None = None,
        cap: int = 64,
        memory_mb: int | None = None,
        on_death: Callable[[T, Death], R] | None = None,
    ) -> None:
        self._sup = Supervisor(workers, cap, memory_mb, on_death)
        self.workers = self._sup.workers
        self.cap = cap

    def supervise(self, memory_mb: int | None, on_death: Callable[[T, Death], R] | None) -> None:
        """Set the memory limit and death handler (before :meth:`start`)."""
        self._sup.memory_mb = memory_mb
        self._sup.on_death = on_death

    @property
    def deaths(self) -> int:
        """Workers that died (and were replaced) so far."""
        return self._sup.deaths

    def start(self, fn: Callable[[T], R]) -> None:
        super().start(fn)
        self._sup.start(fn)

    def run(self, items: Sequence[T]) -> Iterator[list[R]]:
        return self._sup.run(items)

    def close(self) -> None:
        self._sup.close()


# -- Ray ------------------------------------------------------------------------------------
_RAY_FN: dict[str, Callable[[Any], Any]] = {}


def _ray_chunk(token: str, boxed: list[Any], chunk: list[Any]) -> list[Any]:
    fn = _RAY_FN.get(token)
    if fn is None:
        import ray

        fn = ray.get(boxed[0])
        _RAY_FN.clear()
        _RAY_FN[token] = fn
    return [fn(item) for item in chunk]


class RayPool(Pool[T, R]):
    """Runs chunks of items as Ray tasks (a local Ray, or a cluster at ``address``).

    Starts Ray if it is not running (and then shuts it down on ``close``); the function
    is put in the object store once and cached by each worker. An ``address``
    (``HOST:PORT``) is checked first (:func:`~accord.tournament.raycluster.prepare_ray`):
    the head answers and accepts the token from ``RAY_AUTH_TOKEN`` / ``RAY_AUTH_TOKEN_PATH``
    (if it requires one); ``"auto"`` and ``ray://`` addresses go to ``ray.init`` as is."""

    def __init__(self, address: str | None = None, workers: int | None = None, cap: int = 256):
        if address and is_explicit(address) and importlib.util.find_spec("ray") is not None:
            prepare_ray(address)  # before ``import ray`` (a loopback head needs it)
        try:
            import ray
        except ImportError as exc:
            raise ConfigError("the ray executor needs Ray: pip install 'ray>=2.9'") from exc
        if cap < 1:
            raise ConfigError(f"chunk cap must be >= 1, got {cap}")
        self._ray = ray
        self.address = address
        self.cap = cap
        self._owns = False
        self._requested = workers

    def start(self, fn: Callable[[T], R]) -> None:
        super().start(fn)
        ray = self._ray
        if not ray.is_initialized():
            kwargs: dict[str, Any] = {
                "address": self.address,
                "log_to_driver": False,
                "include_dashboard": False,
            }
            if self.address is None:
                kwargs.update(local_ray_options(self._requested))
            ray.init(**kwargs)
            self._owns = True
        cpus = int(ray.cluster_resources().get("CPU", 1))
        self.workers = self._requested or max(1, cpus)
        self._token = uuid.uuid4().hex
        self._boxed = [ray.put(fn)]
        self._remote = ray.remote(num_cpus=1)(_ray_chunk)

    def run(self, items: Sequence[T]) -> Iterator[list[R]]:
        ray = self._ray
        refs = [
            self._remote.remote(self._token, self._boxed, c)
            for c in chunked(items, self.workers, cap=self.cap)
        ]
        try:
            while refs:
                done, refs = ray.wait(refs, num_returns=1)
                yield ray.get(done[0])
        finally:
            for ref in refs:
                ray.cancel(ref)

    def close(self) -> None:
        if self._owns and self._ray.is_initialized():
            self._ray.shutdown()
        self._owns = False


def local_ray_options(num_cpus: int | None = None) -> dict[str, Any]:
    """``ray.init`` options for a local Ray: ``num_cpus`` if given, and a short temporary
    directory when the default one (under ``TMPDIR``) is too long for Ray's Unix
    sockets (about 107 bytes with the session and socket names Ray appends).

    >>> sorted(local_ray_options(2))[-1]
    'num_cpus'
    """
    import tempfile

    out: dict[str, Any] = {} if not num_cpus else {"num_cpus": num_cpus}
    base = os.environ.get("RAY_TMPDIR") or tempfile.gettempdir()
    if len(os.path.join(base, "ray")) > 40:  # + "/session_<date>_<pid>/sockets/plasma_store"
        out["_temp_dir"] = "/tmp/ray"  # Ray's own default location
    return out


def make_pool(
    kind: str, workers: int | None = None, address: str | None = None, cap: int | None = None
) -> Pool[Any, Any]:
    """``serial``, ``processes`` (``workers``, default: all cores) or ``ray`` (``address``).

    ``cap`` bounds the items per chunk (default 64 for processes, 256 for Ray); use 1 when
    each item takes seconds, so that work spreads evenly and results arrive one by one.

    >>> make_pool("threads")
    Traceback (most recent call last):
    ...
    accord.core.errors.ConfigError: executor must be one of ('serial', 'processes', 'ray'), got 'threads'
    """
    if kind == "serial":
        return SerialPool()
    if kind == "processes":
        return ProcessPool(workers, 64 if cap is None else cap)
    if kind == "ray":
        return RayPool(address, workers, 256 if cap is None else cap)
    raise ConfigError(f"executor must be one of {POOLS}, got {kind!r}")
