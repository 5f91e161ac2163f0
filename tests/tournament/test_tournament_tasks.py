"""The generic task API: any pure function over (id, spec) tasks, on any executor, stored
resumably in one SQLite file."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from accord.core.errors import ConfigError
from accord.tournament.pools import ProcessPool, SerialPool, make_pool
from accord.tournament.tasks import Job, run_tasks, sample_task
from accord.tournament.taskstore import StoreMismatch, TaskStore

JOBS = [Job(f"t{i}", {"seed": 100 + i, "n": 4}) for i in range(30)]


def expected(jobs: list[Job]) -> dict[str, dict[str, Any]]:
    """The records computed directly (numpy's generator, not our runner)."""
    out = {}
    for j in jobs:
        draws = np.random.default_rng(j.spec["seed"]).random(j.spec["n"])
        out[j.id] = {"seed": j.spec["seed"], "draws": draws.tolist(), "sum": float(draws.sum())}
    return out


def rows(path: Path) -> list[tuple[Any, ...]]:
    with sqlite3.connect(path) as c:
        return c.execute("SELECT id, idx, spec, record FROM tasks ORDER BY idx").fetchall()


def test_serial_and_processes_give_the_records_of_the_function(tmp_path: Path) -> None:
    serial = run_tasks(sample_task, JOBS, out=tmp_path / "s.sqlite")
    pool = run_tasks(sample_task, JOBS, out=tmp_path / "p.sqlite", executor="processes", workers=2)
    assert serial.records == pool.records == expected(JOBS)
    assert list(pool.records) == [j.id for j in JOBS]  # schedule order, whatever finished first
    assert rows(tmp_path / "s.sqlite") == rows(tmp_path / "p.sqlite")
    workers = {t.worker for t in pool.tasks}
    assert os.getpid() not in {int(w.split(":")[1]) for w in workers}  # ran in the pool
    memory = run_tasks(sample_task, JOBS, executor="processes", workers=2)  # no file
    assert memory.records == serial.records and memory.path is None


def test_resume_after_a_partial_run_runs_only_the_rest(tmp_path: Path) -> None:
    out = tmp_path / "t.sqlite"
    seen: list[tuple[int, int]] = []

    def stop_after_some(done: int, total: int) -> None:
        seen.append((done, total))
        if done >= 7:
            raise KeyboardInterrupt  # as if the user pressed Ctrl-C mid-run

    slow = [Job(j.id, {**j.spec, "sleep": 0.02}) for j in JOBS]
    with pytest.raises(KeyboardInterrupt):
        run_tasks(sample_task, slow, out=out, progress=stop_after_some)
    with TaskStore(out) as store:
        first = store.done_ids()
    assert 7 <= len(first) < len(JOBS) and seen[0] == (0, len(JOBS))
    calls: list[tuple[int, int]] = []
    run = run_tasks(
        sample_task,
        slow,
        out=out,
        executor="processes",
        workers=2,
        progress=lambda d, t: calls.append((d, t)),
    )
    assert (run.total, run.ran) == (len(JOBS), len(JOBS) - len(first))
    assert calls[0] == (len(first), len(JOBS)) and calls[-1] == (len(JOBS), len(JOBS))
    assert run.records == expected(JOBS)
    again = run_tasks(sample_task, slow, out=out)
    assert again.ran == 0 and again.records == run.records
    assert [r[0] for r in rows(out)] == [j.id for j in JOBS]  # one row per task


def test_spec_description_timing_and_worker_are_stored(tmp_path: Path) -> None:
    out = tmp_path / "t.sqlite"
    jobs = [Job("a", {"seed": 1, "sleep": 0.05}), Job("b", {"seed": 2})]
    run = run_tasks(sample_task, jobs, out=out, describe=lambda s: {"seed": s["seed"]})
    assert [json.loads(r[2]) for r in rows(out)] == [{"seed": 1}, {"seed": 2}]
    assert run.elapsed["a"] >= 0.05 > run.elapsed["b"]
    assert all(t.worker.endswith(f":{os.getpid()}") for t in run.tasks)  # serial: this process
    with TaskStore(out) as store:
        assert store.settings() == {"fn": "accord.tournament.tasks:sample_task"}


def test_another_run_in_the_same_file_is_refused_naming_the_difference(tmp_path: Path) -> None:
    out = tmp_path / "t.sqlite"
    run_tasks(sample_task, JOBS[:3], out=out, settings={"seed": 1, "name": "x"})
    with pytest.raises(StoreMismatch, match=r"different tournament \(seed: stored 1, now 2\)"):
        run_tasks(sample_task, JOBS[:3], out=out, settings={"seed": 2, "name": "x"})
    with pytest.raises(ValueError, match="schedules 3 tasks .*this run schedules 4"):
        run_tasks(sample_task, JOBS[:4], out=out, settings={"seed": 1, "name": "x"})
    with pytest.raises(ConfigError, match="1 not in this run"):
        run_tasks(
            sample_task, [JOBS[0], JOBS[1], JOBS[5]], out=out, settings={"seed": 1, "name": "x"}
        )


def not_a_dict(spec: Any) -> Any:
    return [spec]


def not_json(spec: Any) -> Any:
    return {"value": object()}


def test_bad_tasks_and_records_are_clear_errors(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="ids must be unique; 't0' appears twice"):
        run_tasks(sample_task, [JOBS[0], JOBS[0]])
    with pytest.raises(ConfigError, match=r"an \(id: str, spec\) pair, got 3"):
        run_tasks(sample_task, [3])  # type: ignore[list-item]
    with pytest.raises(TypeError, match="task 't0': .*not_a_dict returned list, expected a dict"):
        run_tasks(not_a_dict, JOBS[:1])
    with pytest.raises(TypeError, match="task 't0': its record is not JSON-able: cannot store"):
        run_tasks(not_json, JOBS[:1], out=tmp_path / "t.sqlite")
    with pytest.raises(ConfigError, match="executor must be one of .*got 'threads'"):
        run_tasks(sample_task, JOBS[:1], executor="threads")
    with pytest.raises(ConfigError, match="chunk cap must be >= 1"):
        make_pool("processes", 2, cap=0)
    with pytest.raises(ConfigError, match="workers must be >= 1"):
        ProcessPool(-1)


def test_numpy_values_and_tuples_come_back_as_json(tmp_path: Path) -> None:
    run = run_tasks(numpy_record, [Job("a", 3)], executor=SerialPool())
    assert run.records == {"a": {"n": 3, "mean": 1.0, "xs": [1.0, 1.0, 1.0], "t": [1, 2]}}
    assert type(run.records["a"]["n"]) is int


def numpy_record(n: int) -> dict[str, Any]:
    return {"n": np.int64(n), "mean": np.float64(1.0), "xs": np.ones(n), "t": (1, 2)}


def test_long_tasks_go_one_per_chunk() -> None:
    pool = make_pool("processes", 2, cap=1)
    pool.start(sample_task)
    try:
        batches = list(pool.run([{"seed": s} for s in range(5)]))
    finally:
        pool.close()
    assert sorted(len(b) for b in batches) == [1] * 5


def test_kill_9_and_resume_loses_and_repeats_nothing(tmp_path: Path) -> None:
    out = tmp_path / "t.sqlite"
    code = (
        "import sys; from accord.tournament.tasks import Job, run_tasks, sample_task; "
        "run_tasks(sample_task, [Job(f't{i}', {'seed': i, 'sleep': 0.03}) for i in range(60)], "
        "out=sys.argv[1])"
    )
    cmd = [sys.executable, "-c", code, str(out)]

    def stored() -> int:
        try:
            with sqlite3.connect(out) as c:
                return int(c.execute("SELECT COUNT(*) FROM tasks").fetchone()[0])
        except sqlite3.Error:
            return 0

    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 60
    while stored() < 10 and time.time() < deadline and proc.poll() is None:
        time.sleep(0.01)
    with contextlib.suppress(ProcessLookupError):
        os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    killed = stored()
    assert 10 <= killed < 60, killed
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    jobs = [Job(f"t{i}", {"seed": i, "sleep": 0.03}) for i in range(60)]
    assert [r[0] for r in rows(out)] == [j.id for j in jobs]
    fresh = run_tasks(sample_task, [Job(j.id, {"seed": j.spec["seed"]}) for j in jobs])
    with TaskStore(out) as store:
        assert store.records() == fresh.records


@pytest.mark.ray
def test_ray_gives_the_same_records(tmp_path: Path) -> None:
    ray = pytest.importorskip("ray")
    from accord.tournament.pools import local_ray_options

    ray.init(include_dashboard=False, log_to_driver=False, **local_ray_options(2))
    try:
        run = run_tasks(sample_task, JOBS, out=tmp_path / "r.sqlite", executor="ray", chunk=4)
        assert run.records == expected(JOBS)
        assert len({t.worker for t in run.tasks}) >= 1
        run_tasks(sample_task, JOBS, out=tmp_path / "s.sqlite")
        assert rows(tmp_path / "r.sqlite") == rows(tmp_path / "s.sqlite")
    finally:
        ray.shutdown()
