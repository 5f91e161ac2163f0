"""Tournaments per section 8 and Appendix A.3."""

from __future__ import annotations

import math
import sqlite3
import subprocess
import sys
from collections import Counter

import numpy as np
import pytest

from accord.leagues.scml.runner import run_tournament
from accord.leagues.scml.tournament import TournamentSpec, build_schedule, summarize, truncated_mean
from accord.tournament.testing import count_rows, kill_mid_run

C3 = ["trader", "random", "donothing"]


@pytest.mark.parametrize("c,m,k", [(3, 2, 1), (3, 3, 2), (4, 2, 2), (4, 3, 1)])
def test_std_schedule_size_is_k_m_binomial(c, m, k):
    names = ["trader", "random", "donothing", "accord.leagues.scml.agents:RandomAgent"][:c]
    spec = TournamentSpec(names, n_configs=2, n_repetitions=k, n_per_world=m, n_steps=10)
    runs = build_schedule(spec)
    per_config = k * m * math.comb(c, m)
    assert per_config == math.factorial(c) * k // (math.factorial(m - 1) * math.factorial(c - m))
    assert len(runs) == 2 * per_config
    assert len({r.id for r in runs}) == len(runs)


def test_rotation_gives_every_competitor_every_factory_set_k_times():
    spec = TournamentSpec(C3, n_configs=1, n_repetitions=2, n_per_world=3, n_steps=10, seed=4)
    runs = build_schedule(spec)
    sets = {fs for r in runs for fs in r.groups.values()}
    assert len(sets) == 3 and all(len(fs) == 1 for fs in sets)  # standard track: A_i = 1
    seen = Counter((t, fs) for r in runs for t, fs in r.groups.items())
    assert set(seen.values()) == {2} and len(seen) == 9
    for r in runs:
        for t, fs in r.groups.items():
            assert all(r.agents[f] == t for f in fs)
        others = set(range(len(r.agents))) - {f for fs in r.groups.values() for f in fs}
        assert all(r.agents[f] == "market" for f in others)  # the default non-competitor
    assert len({(r.config_seed, r.factories_per_level) for r in runs}) == 1


def test_collusion_schedule_copies_and_isolated_runs():
    filler = ("accord.leagues.scml.agents.basic:DoNothingAgent",)
    spec = TournamentSpec(
        C3,
        track="collusion",
        n_configs=3,
        n_per_world=2,
        n_steps=10,
        seed=1,
        non_competitors=filler,
    )
    runs = build_schedule(spec)
    mains = [r for r in runs if r.kind == "collusion"]
    assert len(mains) == 3 * 2 * math.comb(3, 2)
    for main in mains:
        copies = {len(fs) for fs in main.groups.values()}
        assert len(copies) == 1 and 2 <= copies.pop() <= 4
        assert sum(main.factories_per_level) >= sum(len(fs) for fs in main.groups.values())
        iso = [r for r in runs if r.parent == main.id]
        assert len(iso) == sum(len(fs) for fs in main.groups.values())  # M + ... per competitor
        for r in iso:
            ((who, (f,)),) = r.groups.items()
            assert r.agents[f] == who
            others = [g for g in main.groups[who] if g != f]
            assert all(r.agents[g] == filler[0] for g in others)


def test_truncated_mean_trims_both_ends():
    x = [5, -100, 1, 2, 3, 4, 100]
    assert truncated_mean(x) == pytest.approx(np.mean(x))
    assert truncated_mean(x, top=1, bottom=1) == pytest.approx(3.0)
    assert truncated_mean(x, top=1) == pytest.approx(np.mean([-100, 1, 2, 3, 4, 5]))
    assert truncated_mean(x, bottom=0.2) == pytest.approx(np.mean([1, 2, 3, 4, 5, 100]))
    assert truncated_mean([1, 2], top=1, bottom=1) == 1.5
    with pytest.raises(ValueError, match="fraction must be < 1"):
        truncated_mean(x, top=1.5)


def test_collusion_score_is_the_difference_with_the_isolated_mean():
    spec = TournamentSpec(["a", "b"], track="collusion", n_configs=1, n_per_world=2, n_steps=5)
    runs = build_schedule(spec)
    results = []
    for r in runs:
        if r.kind == "collusion":
            scores = {"a": 1.0, "b": 0.0}
        else:
            scores = {t: (0.25 if t == "a" else 0.5) for t in r.groups}
        results.append({"run": r, "scores": scores})
    out = summarize(results, spec)
    assert out["a"]["collusion_score"] == pytest.approx(0.75)
    assert out["b"]["collusion_score"] == pytest.approx(-0.5)
    assert out["a"]["mean"] == 1.0 and out["a"]["score"] == pytest.approx(0.75)


def test_tournament_runs_on_processes_stores_and_resumes(tmp_path):
    spec = TournamentSpec(C3, n_configs=1, n_per_world=2, n_steps=12, seed=3, isolation="none")
    path = tmp_path / "scml.sqlite"
    seen = []
    res = run_tournament(
        spec, path, executor="processes", workers=2, progress=lambda d, t: seen.append((d, t))
    )
    total = len(build_schedule(spec))
    assert seen[-1] == (total, total)
    assert sorted(res.scores) == sorted(C3)
    assert res.scores["donothing"]["score"] == 0.0
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT COUNT(*) FROM tasks").fetchone()[0] == total
    again = run_tournament(spec, path, executor="serial")
    assert again.scores == res.scores  # resumed: nothing re-run, same numbers
    serial = run_tournament(spec, tmp_path / "serial.sqlite", executor="serial")
    assert serial.scores == res.scores  # same seed, same tournament on any executor
    df = res.to_frame()
    assert set(df["type"]) >= set(C3)
    with pytest.raises(ValueError, match="different tournament"):
        run_tournament(
            TournamentSpec(C3, n_configs=2, n_steps=12, isolation="none"), path, executor="serial"
        )


def test_collusion_tournament_end_to_end(tmp_path):
    spec = TournamentSpec(
        ["trader", "random"],
        track="collusion",
        n_configs=1,
        n_per_world=2,
        n_steps=10,
        non_competitors=("donothing",),
        isolation="none",
    )
    res = run_tournament(spec, tmp_path / "c.sqlite", executor="serial")
    for t in ("trader", "random"):
        assert math.isfinite(res.scores[t]["collusion_score"])
        assert math.isfinite(res.scores[t]["isolated_mean"])


def test_bad_spec_is_rejected_clearly():
    with pytest.raises(ValueError, match=r"n_per_world must be in \[1, 3\]"):
        TournamentSpec(C3, n_per_world=4)
    with pytest.raises(ValueError, match="non-competitors must differ"):
        TournamentSpec([*C3, "market"], track="collusion")
    with pytest.raises(ValueError, match="track must be 'std' or 'collusion'"):
        TournamentSpec(C3, track="oneshot")  # type: ignore[arg-type]


@pytest.mark.ray
def test_tournament_on_ray(tmp_path):
    pytest.importorskip("ray")
    spec = TournamentSpec(
        ["trader", "donothing"], n_configs=1, n_per_world=2, n_steps=8, seed=2, isolation="none"
    )
    res = run_tournament(spec, tmp_path / "r.sqlite", executor="ray", workers=2)
    serial = run_tournament(spec, tmp_path / "s.sqlite", executor="serial")
    assert res.scores == serial.scores


def test_kill_9_and_resume_loses_and_repeats_no_world(tmp_path):
    """The CLI on 2 worker processes is killed (kill -9) twice mid-run, then resumed with
    the same command: one row per scheduled world, the same records as an uninterrupted
    run, and no worker outlives its killed parent."""
    spec = TournamentSpec(  # as the command below builds it (trims are floats there)
        C3,
        n_configs=3,
        n_per_world=2,
        n_steps=20,
        seed=5,
        trim_top=0.0,
        trim_bottom=0.0,
        isolation="none",
    )
    total = len(build_schedule(spec))
    out = tmp_path / "killed.sqlite"
    cmd = [
        sys.executable,
        "-c",
        "from accord.leagues.scml.cli import app; app()",
        "tournament",
        "--competitors",
        ",".join(C3),
        "--configs",
        "3",
        "--per-world",
        "2",
        "--days",
        "20",
        "--seed",
        "5",
        "--executor",
        "processes",
        "--workers",
        "2",
        "--sandbox",
        "none",
        "--out",
        str(out),
    ]
    rng = np.random.default_rng(0)
    counts = kill_mid_run(
        cmd, tmp_path, lambda: count_rows(out, "tasks"), rng, max_pause=0.2, poll=0.01
    )
    assert 0 < counts[0] <= counts[1] < total, f"kills should land mid-run: {counts} of {total}"
    done = subprocess.run(cmd, cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    rows = "SELECT id, idx, spec, record FROM tasks ORDER BY idx"
    with sqlite3.connect(out) as conn:
        resumed = conn.execute(rows).fetchall()
    assert [r[0] for r in resumed] == [r.id for r in build_schedule(spec)]  # one row each
    fresh = run_tournament(spec, tmp_path / "fresh.sqlite", executor="serial")
    with sqlite3.connect(fresh.path) as conn:
        assert conn.execute(rows).fetchall() == resumed
    assert run_tournament(spec, out, executor="serial").scores == fresh.scores
