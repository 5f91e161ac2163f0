"""The SQLite store: kill -9 and resume, file layout, DataFrames, CSV/Parquet export."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from tournament_helpers import F, T, content, small_config, table

from accord.core.errors import ConfigError
from accord.tournament.config import TournamentConfig
from accord.tournament.results import Results
from accord.tournament.runner import run_tournament
from accord.tournament.scenarios import resolve_scenario
from accord.tournament.schedule import schedule
from accord.tournament.testing import count_rows, kill_mid_run

ROOT = Path(__file__).resolve().parents[2]


def slow_config() -> TournamentConfig:
    """36 sessions of about 0.1 s each (a sleeping agent), so a kill lands mid-run."""
    return TournamentConfig(
        agents=(
            f"{T}Boulware",
            f"{T}Conceder",
            {"name": "Slow", "type": f"{F}Sleeper", "params": {"seconds": 0.005}},
        ),
        scenarios=("builtin:tiny",),
        reps=2,
        seed=3,
        name="killme",
    )


def write_yaml(cfg: TournamentConfig, path: Path) -> Path:
    import yaml

    path.write_text(yaml.safe_dump(cfg.to_dict()))
    return path


def command(cfg_path: Path, out: Path, executor: str) -> list[str]:
    code = "from accord.tournament.cli import app; app()"
    return [
        sys.executable,
        "-c",
        code,
        "tournament",
        str(cfg_path),
        "--out",
        str(out),
        "--executor",
        executor,
        "--workers",
        "2",
        "--no-report",
    ]


@pytest.mark.parametrize("executor", ["serial", "processes"])
def test_kill_9_and_resume_loses_and_repeats_nothing(tmp_path: Path, executor: str) -> None:
    cfg = slow_config()
    total = len(schedule(cfg))
    cfg_path = write_yaml(cfg, tmp_path / "t.yaml")
    out = tmp_path / "killed.sqlite"
    rng = np.random.default_rng(0)
    counts = kill_mid_run(
        command(cfg_path, out, executor), tmp_path, lambda: count_rows(out, "sessions"), rng
    )
    assert 0 < counts[0] < total, "the first kill should land mid-run"
    assert counts == sorted(counts)
    # resume with the same command
    done = subprocess.run(
        command(cfg_path, out, executor), cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stdout + done.stderr
    ids = table(out, "SELECT id, COUNT(*) FROM sessions GROUP BY id")
    assert len(ids) == total and all(n == 1 for _, n in ids)
    assert {r[0] for r in ids} == {s.id for s in schedule(cfg)}
    # identical to an uninterrupted run with the same seed
    fresh = tmp_path / "fresh.sqlite"
    run_tournament(cfg, fresh, "processes", workers=2)
    assert content(out) == content(fresh)


def test_file_layout_and_one_row_per_session(tmp_path: Path) -> None:
    cfg = small_config()
    out = tmp_path / "t.sqlite"
    run = run_tournament(cfg, out)
    specs = schedule(cfg)
    assert (run.total, run.ran) == (len(specs), len(specs))
    assert table(out, "PRAGMA journal_mode")[0][0] == "wal"
    assert table(out, "SELECT COUNT(*), COUNT(DISTINCT id) FROM sessions")[0] == (len(specs),) * 2
    n_parties = sum(len(s.agents) for s in specs)
    assert table(out, "SELECT COUNT(*) FROM parties")[0][0] == n_parties
    stored_cfg = json.loads(table(out, "SELECT value FROM meta WHERE key='config'")[0][0])
    assert stored_cfg == cfg.to_dict()
    assert table(out, "SELECT COUNT(*) FROM specs")[0][0] == len(specs)
    # a second run of the same tournament finds everything done
    again = run_tournament(cfg, out)
    assert again.ran == 0
    assert table(out, "SELECT COUNT(*) FROM sessions")[0][0] == len(specs)


def test_another_tournament_in_the_same_file_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "t.sqlite"
    run_tournament(small_config(reps=1), out)
    with pytest.raises(ConfigError, match="holds another tournament"):
        run_tournament(small_config(reps=1, seed=99), out)


def test_traces_decode_to_the_session(tmp_path: Path) -> None:
    out = tmp_path / "t.sqlite"
    run_tournament(small_config(reps=1), out)
    res = Results(out)
    scen = resolve_scenario("builtin:bilateral")
    specs = res.specs.set_index("id")
    sessions = res.sessions[res.sessions.scenario == scen.name]
    assert len(sessions) > 0
    for s in sessions.head(5).itertuples():
        ev = res.trace(s.id)
        assert len(ev) == s.steps
        assert ev["step"].tolist() == list(range(s.steps))
        profiles = json.loads(specs.loc[s.id, "profiles"])
        for e in ev[ev.action == "offer"].itertuples():
            outcome = tuple(json.loads(e.outcome))
            assert scen.space.is_valid(outcome)
            expected = [scen.utilities[p](outcome) for p in profiles]
            assert e.utilities == expected
        if s.agreed:
            assert ev.iloc[-1].action == "accept"
            assert json.loads(ev.iloc[-1].outcome) == json.loads(s.agreement)
        parties = res.parties[res.parties.session_id == s.id]
        assert parties.welfare.iloc[0] == pytest.approx(parties.utility.sum(), abs=0)
    res.close()


def test_results_frames_and_export(tmp_path: Path) -> None:
    out = tmp_path / "t.sqlite"
    run_tournament(small_config(reps=1), out)
    res = Results(out)
    files = res.export(tmp_path / "csv", "csv") + res.export(tmp_path / "pq", "parquet")
    assert sorted(p.name for p in files) == sorted(
        [f"{n}.{x}" for n in ("specs", "sessions", "parties", "events") for x in ("csv", "parquet")]
    )
    for name in ("sessions", "parties", "events"):
        df = getattr(res, name)
        back_csv = pd.read_csv(tmp_path / "csv" / f"{name}.csv")
        back_pq = pd.read_parquet(tmp_path / "pq" / f"{name}.parquet")
        assert len(back_csv) == len(df) == len(back_pq)
        assert list(back_pq.columns) == list(df.columns)
    pq = pd.read_parquet(tmp_path / "pq" / "parties.parquet")
    assert np.array_equal(pq["utility"].to_numpy(), res.parties["utility"].to_numpy())
    with pytest.raises(ConfigError, match="'csv' or 'parquet', got 'xlsx'"):
        res.export(tmp_path, "xlsx")
    res.close()
    with pytest.raises(ConfigError, match="does not exist"):
        Results(tmp_path / "nope.sqlite")


def test_a_changed_scenario_under_the_same_name_is_refused(tmp_path: Path) -> None:
    from accord.core.generate import random_linear_scenario
    from accord.core.scenario import Scenario

    def named(seed: int) -> Scenario:
        s = random_linear_scenario(2, 3, 2, seed=seed)
        return Scenario("same-name", s.space, s.utilities)

    agents = (f"{T}Boulware", f"{T}Conceder")
    out = tmp_path / "t.sqlite"
    run_tournament(TournamentConfig(agents, (named(1),)), out)
    with pytest.raises(ConfigError, match="holds scenario 'same-name' with other profiles"):
        run_tournament(TournamentConfig(agents, (named(2),)), out)
    assert run_tournament(TournamentConfig(agents, (named(1),)), out).ran == 0
