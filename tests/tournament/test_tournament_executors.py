"""Executors: serial, process pool and Ray give the same results for the same seed."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from tournament_helpers import T, content, small_config, table

from accord.core.errors import ConfigError
from accord.tournament.executors import RayExecutor, SerialExecutor, chunked, make_executor
from accord.tournament.results import Results
from accord.tournament.runner import run_tournament
from accord.tournament.scores import leaderboards


def scores(path: Path) -> dict[str, pd.DataFrame]:
    res = Results(path)
    try:
        return leaderboards(res.parties, n_boot=300, seed=1)
    finally:
        res.close()


def learning_config():  # type: ignore[no-untyped-def]
    return small_config(
        agents=("accord.agents.learning:Learner", f"{T}Boulware", f"{T}Conceder"),
        learning=True,
        reps=3,
    )


@pytest.mark.parametrize("make", [small_config, learning_config], ids=["plain", "learning"])
def test_serial_and_process_pool_give_identical_scores(tmp_path: Path, make) -> None:  # type: ignore[no-untyped-def]
    cfg = make()
    a, b = tmp_path / "serial.sqlite", tmp_path / "pool.sqlite"
    run_tournament(cfg, a, "serial")
    run_tournament(cfg, b, "processes", workers=2)
    assert content(a) == content(b)
    sa, sb = scores(a), scores(b)
    for metric in sa:
        pd.testing.assert_frame_equal(sa[metric], sb[metric])


def test_chunks_cover_every_task_once() -> None:
    tasks = list(range(103))
    chunks = chunked(tasks, 2)  # type: ignore[arg-type]
    assert [t for c in chunks for t in c] == tasks
    assert [len(c) for c in chunks] == [7] * 14 + [5]  # about 8 chunks per worker
    assert chunked([], 2) == []


def test_unknown_executor_is_a_clear_error() -> None:
    with pytest.raises(ConfigError, match="executor must be one of .*got 'threads'"):
        make_executor("threads")
    with pytest.raises(ConfigError, match="workers must be >= 1"):
        make_executor("processes", workers=-1)


@pytest.fixture(scope="module")
def local_ray() -> Iterator[Any]:
    """A local Ray of 2 CPUs, started once for this file's Ray tests."""
    ray = pytest.importorskip("ray")
    from accord.tournament.pools import local_ray_options

    ray.init(include_dashboard=False, log_to_driver=False, **local_ray_options(2))
    try:
        yield ray
    finally:
        ray.shutdown()


@pytest.mark.ray
def test_ray_run_matches_serial(tmp_path: Path, local_ray: Any) -> None:
    for cfg in (small_config(), learning_config()):
        a, b = tmp_path / "serial.sqlite", tmp_path / "ray.sqlite"
        run_tournament(cfg, a, "serial")
        run = run_tournament(cfg, b, "ray")
        assert run.ran == run.total
        assert content(a) == content(b)
        workers = {w for (w,) in _workers(b)}
        assert len(workers) >= 1
        a.unlink()
        b.unlink()


@pytest.mark.ray
def test_ray_workers_run_sandboxed_sessions_many_at_once(tmp_path: Path, local_ray: Any) -> None:
    cfg = small_config(
        agents=("boulware", "conceder", "linear"),
        scenarios=("lunch",),
        sandbox="process",
        self_play=False,
        reps=1,
        rounds=12,
    )
    ex = RayExecutor()
    run = run_tournament(cfg, tmp_path / "ray.sqlite", ex)
    assert run.ran == run.total == 12
    assert ex._grouped  # each Ray task ran a group of sessions through one hub
    run_tournament(cfg, tmp_path / "one.sqlite", SerialExecutor(multiplex=False))
    assert content(tmp_path / "ray.sqlite") == content(tmp_path / "one.sqlite")
    # many at once: more sessions open together than the 2 CPUs could run one at a time
    # (a group of 3 starts all its sessions before any ends)
    spans = table(tmp_path / "ray.sqlite", "SELECT started, finished FROM sessions")
    most = max(sum(s <= t < f for s, f in spans) for t, _ in spans)
    assert most >= 3, spans
    stored = table(tmp_path / "ray.sqlite", "SELECT value FROM meta WHERE key = 'config'")
    assert '"sessions_per_sandbox": "many"' in str(stored[0][0])


def _workers(path: Path) -> list[tuple[str]]:
    import sqlite3

    with sqlite3.connect(path) as c:
        return c.execute("SELECT DISTINCT worker FROM sessions").fetchall()
