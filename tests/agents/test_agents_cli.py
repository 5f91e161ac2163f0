"""The ``accord agents`` commands."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from accord.agents.cli import app, parse_params

runner = CliRunner()


def test_list_shows_every_short_name():
    result = runner.invoke(app, ["list"])
    assert result.exit_code == 0
    for name in ("Boulware", "Conceder", "Frequency", "Hardliner", "TitForTat", "Random"):
        assert name in result.output


def test_check_passes_a_builtin_with_parameters():
    result = runner.invoke(app, ["check", "boulware", "--param", "exponent=0.4", "--rounds", "10"])
    assert result.exit_code == 0, result.output
    assert "passed: 9 sessions" in result.output


def test_check_reports_a_broken_agent_and_exits_1():
    result = runner.invoke(
        app, ["check", "accord.agents.simple:RandomNegotiator", "-p", "accept_probability=2"]
    )
    assert result.exit_code == 1
    assert "accept_probability must be in [0, 1], got 2" in result.output


def test_check_unknown_agent_suggests_a_name():
    result = runner.invoke(app, ["check", "bolware"])
    assert result.exit_code == 1
    assert "Did you mean 'Boulware'?" in result.output


def test_parse_params():
    assert parse_params(["a=1", "b=x", "c=[1, 2]"]) == {"a": 1, "b": "x", "c": [1, 2]}
    with pytest.raises(ValueError, match="key=value, got 'oops'"):
        parse_params(["oops"])
