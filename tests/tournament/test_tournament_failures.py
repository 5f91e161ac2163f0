"""Failing agents: the tournament completes and records every failure against its agent."""

from __future__ import annotations

from pathlib import Path

import pytest
from tournament_helpers import F, T, table

from accord.core.errors import ConfigError
from accord.tournament.config import TournamentConfig
from accord.tournament.results import Results
from accord.tournament.runner import run_tournament
from accord.tournament.schedule import schedule


def failures(out: Path) -> dict[str, set[tuple[str, str]]]:
    """agent -> {(kind, message)} of the recorded failures."""
    rows = table(
        out,
        "SELECT failure_agent, failure_kind, failure_message FROM sessions "
        "WHERE failure_kind IS NOT NULL",
    )
    found: dict[str, set[tuple[str, str]]] = {}
    for agent, kind, msg in rows:
        found.setdefault(agent, set()).add((kind, msg))
    return found


def one_on_one(bad: list[object], **kw: object) -> TournamentConfig:
    """Each bad agent against Boulware only, once per role."""
    return TournamentConfig(
        agents=(f"{T}Boulware", *bad),
        scenarios=("builtin:tiny",),
        self_play=False,
        pairing="combinations",
        **kw,  # type: ignore[arg-type]
    )


@pytest.mark.parametrize("executor", ["serial", "processes"])
def test_raising_invalid_and_slow_agents_are_recorded(tmp_path: Path, executor: str) -> None:
    cfg = one_on_one(
        [
            f"Raiser={F}Raiser",
            f"Invalid={F}InvalidOffers",
            {"name": "Slow", "type": f"{F}Sleeper", "params": {"seconds": 0.6}},
        ],
        time_limit=0.3,
    )
    out = tmp_path / "t.sqlite"
    run = run_tournament(cfg, out, executor, workers=2)
    assert run.ran == run.total == len(schedule(cfg))
    found = failures(out)
    assert set(found) == {"Raiser", "Invalid", "Slow"}
    assert {k for k, _ in found["Raiser"]} == {"exception"}
    assert any("RuntimeError: deliberate failure" in m for _, m in found["Raiser"])
    assert {k for k, _ in found["Invalid"]} == {"invalid"}
    assert any("invalid offer: issue 'i0' got 'not-a-value'" in m for _, m in found["Invalid"])
    assert {k for k, _ in found["Slow"]} == {"timeout"}
    assert all("did not return within 0.3 s; it was pre-empted" in m for _, m in found["Slow"])
    # every session failed (each includes a bad agent), never because of Boulware
    res = Results(out)
    assert set(res.sessions.reason) == {"failure"}
    assert not res.parties[res.parties.agent == "Boulware"]["failed"].any()
    with_boulware = res.parties.groupby("session_id")["agent"].transform(
        lambda a: "Boulware" in set(a)
    )
    bad = res.parties[with_boulware & (res.parties.agent != "Boulware")]
    assert len(bad) == 6 and bad["failed"].all()  # 3 agents x 2 rotations
    # a failure never pays: the failing agent scores 0, its opponent its reservation value
    for p in res.parties.itertuples():
        assert p.utility == (0.0 if p.failed else pytest.approx(p.reservation))
    res.close()


def test_isolated_agents_that_hang_crash_or_break_limits(tmp_path: Path) -> None:
    cfg = one_on_one(
        [f"Hang={F}Hanger", f"Crash={F}Crasher", f"Hog={F}MemoryHog", f"Raiser={F}Raiser"],
        isolated=True,
        time_limit=0.3,
        memory_limit=100,
    )
    out = tmp_path / "t.sqlite"
    run = run_tournament(cfg, out, "processes", workers=2)
    assert run.ran == run.total
    found = failures(out)
    assert {k for k, _ in found["Hang"]} == {"timeout"}
    assert {k for k, _ in found["Crash"]} == {"exception"}
    assert any("exited unexpectedly (exit code 3)" in m for _, m in found["Crash"])
    assert any("MemoryError" in m for _, m in found["Hog"])
    assert any("RuntimeError: deliberate failure" in m for _, m in found["Raiser"])
    # Boulware never failed; sessions between two bad agents fail against the first to act
    assert "Boulware" not in found


def test_isolated_cpu_limit_kills_a_spinning_agent(tmp_path: Path) -> None:
    cfg = TournamentConfig(
        agents=(f"Spin={F}CpuHog", f"{T}Boulware"),
        scenarios=("builtin:tiny",),
        self_play=False,
        rotate=False,
        pairing="combinations",
        isolated=True,
        cpu_limit=1,
        time_limit=20,
    )
    out = tmp_path / "t.sqlite"
    run_tournament(cfg, out)
    ((kind, msg),) = failures(out)["Spin"]
    assert kind == "exception"
    assert "SIGXCPU" in msg and "CPU-time limit of 1 s exceeded" in msg


def test_isolated_mode_gives_the_same_results(tmp_path: Path) -> None:
    base = TournamentConfig((f"{T}Boulware", f"{T}Conceder"), ("builtin:tiny",), seed=4)
    a, b = tmp_path / "a.sqlite", tmp_path / "b.sqlite"
    run_tournament(base, a)
    run_tournament(base.with_(isolated=True), b)
    q = "SELECT id, agreement, reason, steps FROM sessions ORDER BY id"
    assert table(a, q) == table(b, q)
    q = "SELECT * FROM traces ORDER BY session_id"
    assert [r[:6] for r in table(a, q)] == [r[:6] for r in table(b, q)]


def test_an_agent_whose_constructor_raises_is_a_recorded_failure(tmp_path: Path) -> None:
    cfg = one_on_one([{"name": "Bad", "type": f"{T}TimeDependent", "params": {"exponent": -1}}])
    out = tmp_path / "t.sqlite"
    run_tournament(cfg, out)
    ((kind, msg),) = failures(out)["Bad"]
    assert kind == "exception"
    assert "could not create agent 'Bad': ConfigError: exponent must be > 0, got -1" in msg


def test_unknown_parameters_are_a_config_error_before_running(tmp_path: Path) -> None:
    cfg = one_on_one([{"name": "Bad", "type": f"{T}Boulware", "params": {"speed": 3}}])
    with pytest.raises(ConfigError, match="agent 'Bad': .*Boulware does not take parameters"):
        run_tournament(cfg, tmp_path / "t.sqlite")
    assert not (tmp_path / "t.sqlite").exists()


def test_a_missing_agent_module_is_a_clear_error_before_running() -> None:
    with pytest.raises(ConfigError, match="cannot import module"):
        from accord.tournament.agents import make_negotiator
        from accord.tournament.config import AgentSpec

        make_negotiator(AgentSpec("x", "no_such_module:Agent"))
