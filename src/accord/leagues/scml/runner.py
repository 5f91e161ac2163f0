"""Running SCML tournament worlds: serial, on a local process pool, or on Ray; results in
one SQLite file (WAL mode) so an interrupted tournament resumes where it stopped.

Example:
    >>> import tempfile, pathlib
    >>> from accord.leagues.scml.tournament import TournamentSpec
    >>> spec = TournamentSpec(["trader", "donothing"], n_configs=1, n_steps=5, n_per_world=2)
    >>> with tempfile.TemporaryDirectory() as d:
    ...     res = run_tournament(spec, pathlib.Path(d) / "t.sqlite", executor="serial")
    >>> sorted(res.scores)
    ['donothing', 'trader']
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from accord.leagues.scml.generate import generate_config
from accord.leagues.scml.tournament import TournamentSpec, WorldRun, build_schedule, summarize

__all__ = ["run_world", "run_tournament", "TournamentResult", "ResultStore", "EXECUTORS"]

EXECUTORS = ("serial", "processes", "ray")


def run_world(run: WorldRun) -> dict[str, Any]:
    """Simulate one world and return its scores (runs in a worker)."""
    from accord.leagues.scml.world import World

    t0 = time.perf_counter()
    cfg = generate_config(
        n_steps=run.n_steps, factories_per_level=list(run.factories_per_level), seed=run.config_seed
    )
    world = World(cfg, list(run.agents), seed=run.seed).run()
    groups = {t: list(fs) for t, fs in run.groups.items()}
    return {
        "id": run.id,
        "scores": world.type_scores(groups),
        "factory_scores": world.scores(),
        "bankruptcies": len(world.bankruptcies),
        "exceptions": len(world.exceptions),
        "elapsed": time.perf_counter() - t0,
    }


_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS runs (
    id TEXT PRIMARY KEY, idx INTEGER NOT NULL, kind TEXT NOT NULL, config INTEGER NOT NULL,
    combination TEXT NOT NULL, rotation INTEGER NOT NULL, repetition INTEGER NOT NULL,
    parent TEXT, agents TEXT NOT NULL, seed INTEGER NOT NULL, scores TEXT NOT NULL,
    factory_scores TEXT NOT NULL, bankruptcies INTEGER NOT NULL, exceptions INTEGER NOT NULL,
    elapsed REAL NOT NULL);
"""


class ResultStore:
    """The tournament's SQLite file: its spec (meta) and one row per finished world."""

    def __init__(self, path: str | Path, spec: TournamentSpec) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.conn = sqlite3.connect(self.path)
        self.conn.execute("PRAGMA journal_mode=WAL")
        self.conn.executescript(_SCHEMA)
        text = json.dumps(spec.to_dict(), sort_keys=True)
        row = self.conn.execute("SELECT value FROM meta WHERE key='spec'").fetchone()
        if row is None:
            with self.conn:
                self.conn.execute("INSERT INTO meta VALUES ('spec', ?)", (text,))
        elif row[0] != text:
            raise ValueError(
                f"{self.path} holds a different tournament (spec {row[0][:120]}...); "
                "use a new file to run this one"
            )

    def done(self) -> set[str]:
        return {r[0] for r in self.conn.execute("SELECT id FROM runs")}

    def write(self, idx: int, run: WorldRun, res: dict[str, Any]) -> None:
        with self.conn:
            self.conn.execute(
                "INSERT OR IGNORE INTO runs VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                (
                    run.id,
                    idx,
                    run.kind,
                    run.config_index,
                    json.dumps(run.combination),
                    run.rotation,
                    run.repetition,
                    run.parent,
                    json.dumps(run.agents),
                    run.seed,
                    json.dumps(res["scores"]),
                    json.dumps(res["factory_scores"]),
                    res["bankruptcies"],
                    res["exceptions"],
                    res["elapsed"],
                ),
            )

    def results(self) -> dict[str, dict[str, Any]]:
        rows = self.conn.execute("SELECT id, scores, elapsed, bankruptcies FROM runs")
        return {
            r[0]: {"scores": json.loads(r[1]), "elapsed": r[2], "bankruptcies": r[3]} for r in rows
        }

    def close(self) -> None:
        self.conn.close()


@dataclass
class TournamentResult:
    """Scores per competitor plus the raw per-world scores."""

    spec: TournamentSpec
    scores: dict[str, dict[str, float]]
    worlds: list[dict[str, Any]]
    path: Path

    def to_frame(self) -> Any:
        """Per-world, per-type scores as a pandas DataFrame."""
        import pandas as pd

        rows = [
            {**{k: v for k, v in asdict(w["run"]).items() if k != "groups"}, "type": t, "score": s}
            for w in self.worlds
            for t, s in w["scores"].items()
        ]
        return pd.DataFrame(rows)


def _serial(runs: Sequence[WorldRun]) -> Iterator[tuple[WorldRun, dict[str, Any]]]:
    for run in runs:
        yield run, run_world(run)


def _processes(runs: Sequence[WorldRun], workers: int) -> Iterator[tuple[WorldRun, dict[str, Any]]]:
    import multiprocessing as mp

    method = "fork" if "fork" in mp.get_all_start_methods() else "spawn"
    with ProcessPoolExecutor(workers, mp_context=mp.get_context(method)) as pool:
        pending = {pool.submit(run_world, r): r for r in runs}
        while pending:
            done, _ = wait(pending, return_when=FIRST_COMPLETED)
            for fut in done:
                yield pending.pop(fut), fut.result()


def _ray(
    runs: Sequence[WorldRun], address: str | None, workers: int
) -> Iterator[tuple[WorldRun, dict[str, Any]]]:
    import ray

    started = False
    if not ray.is_initialized():
        ray.init(
            address=address,
            num_cpus=None if address else workers,
            include_dashboard=False,
            log_to_driver=False,
        )
        started = True
    try:
        remote = ray.remote(run_world)
        refs = {remote.remote(r): r for r in runs}
        while refs:
            done, _ = ray.wait(list(refs), num_returns=1)
            for ref in done:
                yield refs.pop(ref), ray.get(ref)
    finally:
        if started:
            ray.shutdown()


def run_tournament(
    spec: TournamentSpec,
    path: str | Path,
    executor: str = "processes",
    workers: int | None = None,
    address: str | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> TournamentResult:
    """Run (or resume) a tournament; ``progress(done, total)`` is called after each world."""
    if executor not in EXECUTORS:
        raise ValueError(f"executor must be one of {EXECUTORS}, got {executor!r}")
    schedule = build_schedule(spec)
    index = {r.id: i for i, r in enumerate(schedule)}
    store = ResultStore(path, spec)
    try:
        done = store.done()
        todo = [r for r in schedule if r.id not in done]
        n_workers = workers or os.cpu_count() or 1
        if executor == "serial" or (executor == "processes" and (n_workers == 1 or len(todo) < 2)):
            stream = _serial(todo)
        elif executor == "processes":
            stream = _processes(todo, n_workers)
        else:
            stream = _ray(todo, address, n_workers)
        finished = len(done)
        if progress is not None:
            progress(finished, len(schedule))
        for run, res in stream:
            store.write(index[run.id], run, res)
            finished += 1
            if progress is not None:
                progress(finished, len(schedule))
        stored = store.results()
    finally:
        store.close()
    worlds = [{"run": r, **stored[r.id]} for r in schedule if r.id in stored]
    return TournamentResult(spec, summarize(worlds, spec), worlds, Path(path))
