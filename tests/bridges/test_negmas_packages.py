"""The NegMAS agent packages through the bridge: listed, checked, played (a few agents;
``bench/bench_negmas_agents.py`` goes through every class)."""

from __future__ import annotations

import pytest
from bridge_data import NO_EXTRA, genius
from typer.testing import CliRunner

pytest.importorskip("negmas_genius_agents", reason=NO_EXTRA)
pytest.importorskip("negmas_negolog", reason=NO_EXTRA)

from accord.agents.cli import app  # noqa: E402
from accord.agents.registry import agents_in_package, get_agent  # noqa: E402
from accord.core import Deadline, Session  # noqa: E402
from accord.formats import load_scenario  # noqa: E402

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
    scenario = load_scenario(genius("anac2012_CameraB"))
    negotiators = [
        get_agent("negmas_genius_agents:AgentK"),
        get_agent("negmas_negolog:BoulwareAgent"),
    ]
    result = Session(
        scenario.space, negotiators, scenario.utilities[:2], Deadline(rounds=50), seed=3
    ).run()
    assert result.failure is None
    assert result.steps > 2
