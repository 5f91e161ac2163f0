"""``accord negotiate`` end to end through the real CLI app."""

from __future__ import annotations

import sys

from typer.testing import CliRunner

from accord.cli import app

runner = CliRunner()


def test_negotiate_prints_agreement_utilities_and_distances_and_draws_the_plot(tmp_path):
    png = tmp_path / "lunch.png"
    result = runner.invoke(
        app, ["negotiate", "lunch", "--agents", "boulware conceder", "--plot", str(png)]
    )
    assert result.exit_code == 0, result.output
    out = " ".join(result.output.split())
    assert "ended by agreement" in out
    assert "{'Food': 'Hamburger', 'Drink': 'Beer'}" in out
    assert "0.9100" in out  # U(Hamburger, Beer) for the first (PRIANAC) profile
    assert "distance to Pareto 0.0000" in out and "distance to Nash" in out
    data = png.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 10_000


def test_negotiate_runs_multilateral_sessions():
    result = runner.invoke(
        app,
        [
            "negotiate",
            "holiday",
            "-a",
            "linear",
            "-a",
            "conceder",
            "-a",
            "boulware",
            "--rounds",
            "30",
            "--trace",
        ],
    )
    assert result.exit_code == 0, result.output
    assert "step    0" in result.output and "social welfare" in result.output


def test_wrong_agent_count_is_a_clear_error():
    result = runner.invoke(app, ["negotiate", "lunch", "-a", "boulware"])
    assert result.exit_code == 2
    assert "has 2 parties" in " ".join(result.output.split())


def test_unknown_agent_and_scenario_are_named():
    result = runner.invoke(app, ["negotiate", "lunch", "-a", "boulware nosuch"])
    assert result.exit_code == 2 and "unknown agent 'nosuch'" in result.output
    result = runner.invoke(app, ["negotiate", "lunchh", "-a", "boulware conceder"])
    assert result.exit_code == 2 and "lunch" in result.output


def test_a_missing_extra_is_named_in_one_line_by_every_command(monkeypatch):
    # NegMAS's agent packages not installed: importing them fails, as without the extra.
    monkeypatch.setitem(sys.modules, "negmas_negolog", None)
    name = "negmas_negolog:BoulwareAgent"
    for args in (
        ["negotiate", "lunch", "--agents", f"{name} boulware"],
        ["agents", "check", name],
        ["tournament", "--agents", f"{name},boulware", "--scenarios", "lunch"],
    ):
        result = runner.invoke(app, args)
        assert result.exit_code != 0, args
        assert "pip install 'accord[negmas]'" in result.output, (args, result.output)


def test_error_text_reaches_the_user_verbatim_not_read_as_markup():
    result = runner.invoke(app, ["negotiate", "lunch", "-a", "boulware nosuchmod_x:Agent[bold]"])
    assert result.exit_code == 2
    assert "nosuchmod_x:Agent[bold]" in " ".join(result.output.split())
