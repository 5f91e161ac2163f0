"""Choosing a protocol on the command line."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from accord.cli import app

runner = CliRunner()


def _flat(text: str) -> str:
    return " ".join(text.split())


def test_negotiate_with_the_ultimatum_game() -> None:
    result = runner.invoke(
        app, ["negotiate", "lunch", "-a", "hardliner", "-a", "boulware", "--protocol", "ultimatum"]
    )
    assert result.exit_code == 0, result.output
    out = _flat(result.output)
    assert "protocol ultimatum-v1" in out and "after 2 steps" in out


def test_negotiate_names_an_unknown_protocol() -> None:
    result = runner.invoke(
        app, ["negotiate", "lunch", "-a", "linear conceder", "--protocol", "aopp"]
    )
    assert result.exit_code == 2
    assert "unknown protocol 'aopp'. Did you mean 'aop'?" in _flat(result.output)


def test_agents_check_plays_the_chosen_protocol() -> None:
    result = runner.invoke(app, ["agents", "check", "conceder", "--protocol", "ultimatum"])
    assert result.exit_code == 0, result.output
    assert "passed: 9 sessions" in _flat(result.output)


def test_tournament_takes_a_protocol(tmp_path: Path) -> None:
    out = tmp_path / "u.sqlite"
    args = ["tournament", "--agents", "hardliner,conceder", "--scenarios", "lunch"]
    args += ["--protocol", "ultimatum", "--executor", "serial", "--out", str(out), "--no-report"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    from accord.tournament.results import Results

    results = Results(out)
    try:
        assert results.config["protocol"] == "ultimatum-v1"
        assert set(results.sessions["steps"]) == {2}
    finally:
        results.close()
