"""The NegMAS agent packages through the bridge: listed, checked, played (a few agents;
``bench/bench_negmas_agents.py`` goes through every class)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from bridge_data import NO_EXTRA, genius
from typer.testing import CliRunner

pytest.importorskip("negmas_genius_agents", reason=NO_EXTRA)
pytest.importorskip("negmas_negolog", reason=NO_EXTRA)

from accord.agents.cli import app  # noqa: E402
from accord.agents.registry import agents_in_package, get_agent  # noqa: E402
from accord.core import Deadline, Session  # noqa: E402
from accord.formats import load_scenario  # noqa: E402
from accord.tournament import TournamentConfig  # noqa: E402
from accord.tournament.agents import check_agents  # noqa: E402

runner = CliRunner()


@pytest.mark.parametrize("package", ["negmas_genius_agents", "negmas_negolog"])
def test_agents_list_package_shows_every_exported_negotiator(package: str) -> None:
    found = agents_in_package(package)
    assert len(found) >= 20
    result = runner.invoke(app, ["list", "--package", package], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert f"{len(found)} negotiator classes in {package}" in result.output
    for name in list(found)[:5]:
        assert f"{package}:{name}" in result.output


def test_agents_list_of_a_missing_package_fails_clearly() -> None:
    result = runner.invoke(app, ["list", "--package", "no_such_agents_pkg"])
    assert result.exit_code == 1
    assert "cannot import package 'no_such_agents_pkg'" in result.output


@pytest.mark.parametrize(
    "agent",
    [
        "negmas_genius_agents:HardHeaded",
        "negmas_genius_agents:AgentFSEGA",
        "negmas_negolog:Atlas3Agent",
    ],
)
def test_ported_agents_pass_the_check_seeded_ones_included(agent: str) -> None:
    result = runner.invoke(app, ["check", agent, "--rounds", "15"])
    assert result.exit_code == 0, result.output
    assert "passed: 9 sessions" in result.output


def test_ported_agents_play_each_other_on_a_real_scenario() -> None:
    scenario = load_scenario(genius("anac2012_LaptopB"))
    negotiators = [
        get_agent("negmas_genius_agents:AgentK"),
        get_agent("negmas_negolog:BoulwareAgent"),
    ]
    result = Session(
        scenario.space, negotiators, scenario.utilities[:2], Deadline(rounds=50), seed=3
    ).run()
    assert result.failure is None
    assert result.steps > 2


REPO = Path(__file__).resolve().parents[2]


def test_the_example_tournament_names_twenty_ported_agents_on_five_anac_scenarios() -> None:
    config = TournamentConfig.from_yaml(REPO / "examples" / "negmas_tournament.yaml")
    ported = [
        a for a in config.agents if a.type.startswith(("negmas_genius_agents:", "negmas_negolog:"))
    ]
    assert len(ported) >= 20
    assert len(config.scenarios) == 5
    assert all("anac" in str(s) or "y2012" in str(s) for s in config.scenarios)
    check_agents(config.agents)  # every one resolves and takes its parameters


def test_the_docs_tournament_runs_through_accord_tournament(tmp_path: Path) -> None:
    """The YAML of docs/negmas-bridge.md, made small, through the real ``accord`` command."""
    text = (REPO / "docs" / "negmas-bridge.md").read_text()
    block = re.search(r"```yaml\n(.*?)```", text, re.S)
    assert block is not None
    config = yaml.safe_load(block.group(1))
    config["scenarios"] = [str(genius("anac2013_DefensiveCharms"))]
    config["rounds"] = 20
    (tmp_path / "ported.yaml").write_text(yaml.safe_dump(config))
    accord = Path(sys.executable).with_name("accord")
    proc = subprocess.run(
        [str(accord), "tournament", "ported.yaml", "--executor", "serial", "--no-report"],
        cwd=tmp_path,
        env=dict(os.environ, COLUMNS="120"),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "32 sessions" in proc.stdout  # 4 agents: 16 ordered pairs x 2 rotations
    for name in ("HardHeaded", "Aspiration", "NegoLogConceder"):
        assert name in proc.stdout


@pytest.mark.parametrize("sandbox", ["none", "process"])
def test_every_bridged_agent_knows_the_deadline_in_a_tournament(
    tmp_path: Path, sandbox: str
) -> None:
    """Without a per-agent ``deadline_rounds``: the tournament's deadline reaches the
    NegMAS agent (in-process and in a sandbox process), which otherwise walks away."""
    from accord.tournament import run_tournament
    from accord.tournament.results import Results

    cfg = TournamentConfig.from_dict(
        {
            "agents": ["negmas_probe:NeedsDeadline", "accord.agents.timebased:Boulware"],
            "scenarios": [str(genius("anac2013_DefensiveCharms"))],
            "rounds": 12,
            "self_play": False,
            "sandbox": sandbox,
        }
    )
    out = tmp_path / "t.sqlite"
    run = run_tournament(cfg, out, "serial")
    assert run.ran == run.total >= 2
    res = Results(out)
    try:
        sessions = res.sessions
    finally:
        res.close()
    assert sessions["failure_kind"].isna().all(), sessions["failure_message"].tolist()
    assert set(sessions["reason"]) <= {"agreement", "deadline"}  # never walked away
    assert (sessions["reason"] == "agreement").any()
