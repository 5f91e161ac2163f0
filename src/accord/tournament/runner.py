"""Running a whole tournament: schedule, skip what is stored, execute, store.

    >>> import tempfile, pathlib
    >>> from accord.tournament.config import TournamentConfig
    >>> cfg = TournamentConfig(["accord.agents.timebased:Boulware",
    ...                         "accord.agents.timebased:Conceder"], ["builtin:tiny"])
    >>> with tempfile.TemporaryDirectory() as d:
    ...     run = run_tournament(cfg, pathlib.Path(d) / "t.sqlite")
    ...     (run.total, run.ran)
    (8, 8)

Learning tournaments (``learning=True``) run repetition after repetition: every session
of repetition ``r`` gets, for each of its agents, a :class:`Memory` holding that agent's
sessions of repetitions ``< r``. Within a repetition all sessions are independent, so
the executor still runs them in parallel.
"""

from __future__ import annotations

import re
import shutil
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from accord.core.errors import ConfigError
from accord.core.interrupts import install as install_interrupts
from accord.core.protocols import check_protocol_agents, protocol_info
from accord.core.scenario import Scenario
from accord.tournament.admission import ProfileIds, sides_per_agent
from accord.tournament.agents import agent_factory, check_agents
from accord.tournament.config import TournamentConfig
from accord.tournament.executors import Executor, SerialExecutor, make_executor
from accord.tournament.fingerprint import fingerprints
from accord.tournament.isolation import Started, close_sandboxes, plan
from accord.tournament.memory import Memory, PastSession
from accord.tournament.scenarios import resolve_scenarios
from accord.tournament.schedule import SessionSpec, schedule
from accord.tournament.session import RunContext, SessionRecord, Task
from accord.tournament.store import Store

Progress = Callable[[int, int], None]
_FLUSH_SESSIONS = 64  # store at least every 64 sessions ...
_FLUSH_SECONDS = 0.25  # ... or every quarter of a second


@dataclass(frozen=True)
class TournamentRun:
    """What a run did: the results file, sessions scheduled, run now, and wall time."""

    path: Path
    total: int
    ran: int
    seconds: float


def run_tournament(
    config: TournamentConfig,
    out: str | Path,
    executor: str | Executor = "serial",
    workers: int | None = None,
    address: str | None = None,
    progress: Progress | None = None,
    fresh: bool = False,
) -> TournamentRun:
    """Run (or resume) ``config``, storing everything in the SQLite file ``out``.

    Resuming checks every agent's fingerprint (its code, parameters and Accord's
    version) and refuses a changed one; ``fresh=True`` deletes ``out`` (and the agents'
    data directories) first. Ctrl-C (``KeyboardInterrupt``) stores the sessions finished so far, stops the
    workers and passes on; the same call then resumes."""
    t0 = time.perf_counter()
    install_interrupts()  # only the user's Ctrl-C stops the run, never an agent's
    path = Path(out)
    # a sandboxed (submitted) agent's code is never imported here: only in its sandbox
    sandboxed = plan({a.name: a for a in config.agents}, config.sandbox_choice)
    trusted = [a for a in config.agents if a.name not in sandboxed]
    check_agents(trusted)
    check_protocol_agents(
        config.protocol, {a.name: agent_factory(a.type) for a in trusted}, bool(sandboxed)
    )
    dirs = {a: agent_dir(path, a) for a in sandboxed} if config.learning else None
    # the sandboxes start now; the organiser prepares the run while they do
    started = Started(config.agents, sandboxed, RunContext.limits_of(config), dirs)
    try:
        agents = fingerprints(config.agents)
        scenarios = resolve_scenarios(config.scenarios, config.discretize)
        info = protocol_info(config.protocol)
        for sc_name, sc in scenarios.items():
            try:
                info.check_parties(sc.n_parties)
            except ConfigError as exc:
                raise ConfigError(f"scenario {sc_name!r}: {exc}") from None
        specs = schedule(config, scenarios)
        many = config.sessions_per_sandbox == "many"
        if isinstance(executor, str):
            ex = make_executor(executor, workers, address, multiplex=many)
        else:
            ex = executor
            if not many and getattr(ex, "multiplex", False):
                ex.multiplex = False  # type: ignore[attr-defined]  # the config's "one" wins
        if sandboxed and isinstance(ex, SerialExecutor) and ex.multiplex and config.seconds is None:
            # this process plays them all at once: one sandbox per side each agent plays
            need = sides_per_agent(specs, ProfileIds(scenarios), sandboxed)
            started.more({a: n - 1 for a, n in need.items() if n > 1})
        started.check()
    except BaseException:
        started.release()
        raise
    stored = config.with_(sessions_per_sandbox=sessions_per_sandbox(config, ex))
    if fresh:
        remove_results(path)
    with Store(path) as store:
        store.prepare(stored, scenarios, specs, agents)
        done = store.done_ids()
        pending = [s for s in specs if s.id not in done]
        count = len(specs) - len(pending)
        if progress is not None:
            progress(count, len(specs))
        if not pending:
            return TournamentRun(path, len(specs), 0, time.perf_counter() - t0)
        store.note_sessions_per_sandbox(stored.sessions_per_sandbox)
        ex.start(RunContext.from_config(config, scenarios))
        buffer: list[SessionRecord] = []
        last = time.perf_counter()
        try:
            for tasks in _waves(config, scenarios, pending, store, path):
                for records in ex.run(tasks):
                    buffer.extend(records)
                    now = time.perf_counter()
                    if len(buffer) >= _FLUSH_SESSIONS or now - last > _FLUSH_SECONDS:
                        count += store.write(buffer)
                        buffer.clear()
                        last = now
                        if progress is not None:
                            progress(count, len(specs))
                count += store.write(buffer)  # a wave's results must be stored before the next
                buffer.clear()
                if progress is not None:
                    progress(count, len(specs))
        except KeyboardInterrupt:
            store.write(buffer)  # keep every finished session; the same call resumes
            raise
        finally:
            ex.close()
            close_sandboxes()
    return TournamentRun(path, len(specs), len(pending), time.perf_counter() - t0)


def sessions_per_sandbox(config: TournamentConfig, executor: str | Executor) -> str:
    """How many sessions a sandbox serves at once in this run: ``many`` or ``one``
    (one where nothing multiplexes: a deadline in seconds, ``multiplex=False``).

        >>> cfg = TournamentConfig(["boulware"], ["builtin:tiny"])
        >>> sessions_per_sandbox(cfg, "ray"), sessions_per_sandbox(cfg.with_(seconds=5), "ray")
        ('many', 'one')
    """
    if config.sessions_per_sandbox == "one" or config.seconds is not None:
        return "one"
    if isinstance(executor, str):
        return "many" if executor in ("serial", "processes", "ray") else "one"
    return "many" if getattr(executor, "multiplex", False) else "one"


def remove_results(results: str | Path) -> None:
    """Delete a results file, its WAL files and the agents' data directories."""
    p = Path(results)
    for f in (p, p.with_name(p.name + "-wal"), p.with_name(p.name + "-shm")):
        f.unlink(missing_ok=True)
    shutil.rmtree(data_root(p), ignore_errors=True)


def data_root(results: str | Path) -> Path:
    """Where the agents' private data directories of a results file live."""
    p = Path(results)
    return p.with_name(p.stem + ".data")


def agent_dir(results: str | Path, agent: str) -> Path:
    """The private data directory of ``agent`` (created on demand)."""
    safe = re.sub(r"[^A-Za-z0-9_.@-]", "_", agent)
    d = data_root(results) / safe
    d.mkdir(parents=True, exist_ok=True)
    return d


def _waves(
    config: TournamentConfig,
    scenarios: dict[str, Scenario],
    pending: list[SessionSpec],
    store: Store,
    path: Path,
) -> Iterable[list[Task]]:
    if not config.learning:
        return [[Task(s) for s in pending]]
    return _LearningWaves(config, scenarios, pending, store, path)


class _LearningWaves:
    """Yields one wave of tasks per repetition, with memories read from the store."""

    def __init__(
        self,
        config: TournamentConfig,
        scenarios: dict[str, Scenario],
        pending: list[SessionSpec],
        store: Store,
        path: Path,
    ) -> None:
        self.config = config
        self.scenarios = scenarios
        self.pending = pending
        self.store = store
        self.dirs = {a.name: agent_dir(path, a.name) for a in config.agents}

    def __iter__(self) -> Iterator[list[Task]]:
        history: dict[str, list[PastSession]] = {a.name: [] for a in self.config.agents}
        for rep in range(self.config.reps):
            if rep > 0:
                for agent, past in self.store.past_sessions(rep - 1).items():
                    history.setdefault(agent, []).extend(past)
            wave = [s for s in self.pending if s.rep == rep]
            if not wave:
                continue
            frozen = {a: tuple(h) for a, h in history.items()}
            yield [Task(s, self._memories(s, frozen)) for s in wave]

    def _memories(
        self, spec: SessionSpec, history: dict[str, tuple[PastSession, ...]]
    ) -> tuple[Memory, ...]:
        profiles = self.scenarios[spec.scenario].profile_names
        return tuple(
            Memory(a, history.get(a, ()), self.dirs[a], spec.scenario, profiles[p], spec.agents, k)
            for k, (a, p) in enumerate(zip(spec.agents, spec.profiles, strict=True))
        )
