"""The ``accord scml`` command line and the HTML/PNG report."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from accord.leagues.scml.cli import app
from accord.leagues.scml.generate import generate_config
from accord.leagues.scml.report import PANELS, write_report
from accord.leagues.scml.world import World

runner = CliRunner()


def _json(output: str) -> dict:
    return json.loads(output[output.index("{") : output.rindex("}") + 1])


def test_run_prints_scores_and_writes_the_report(tmp_path):
    args = ["run", "--days", "12", "--seed", "2", "--agents", "trader,random", "--levels", "2,2"]
    res = runner.invoke(app, [*args, "--report", str(tmp_path), "--json"])
    assert res.exit_code == 0, res.output
    data = _json(res.output)
    assert len(data["scores"]) == 4
    again = runner.invoke(app, [*args, "--json"])
    assert _json(again.output) == data
    html = (tmp_path / "scml_report.html").read_text()
    assert html.count("data:image/png;base64,") == len(PANELS)
    assert f"<th>contracts signed</th><td>{data['summary']['signed']} (" in html
    assert (tmp_path / "scml_report.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_run_rejects_bad_options():
    res = runner.invoke(app, ["run", "--days", "0"])
    assert res.exit_code != 0
    assert "must be at least 1, got 0" in res.output and "--days" in res.output
    res = runner.invoke(app, ["run", "--agents", "nobody", "--days", "3"])
    assert res.exit_code != 0 and "unknown agent type 'nobody'" in res.output


def test_isolation_options_are_checked_in_the_users_words(tmp_path):
    cases = [
        (["run", "--isolation", "some"], "--isolation", "'none', 'all', got 'some'"),
        (["run", "--call-timeout", "-1"], "--call-timeout", "more than 0, got -1.0"),
        (["tournament", "--isolation", "x"], "--isolation", "'competitors', 'none', got 'x'"),
        (["tournament", "--cpu-seconds", "0"], "--cpu-seconds", "more than 0, got 0.0"),
        (["tournament", "--memory-mb", "-5"], "--memory-mb", "more than 0, got -5"),
    ]
    for args, option, words in cases:
        where = ["--out", str(tmp_path / "t.sqlite")] if args[0] == "tournament" else []
        res = runner.invoke(app, [*args, *where, "--days", "2"], env={"COLUMNS": "400"})
        assert res.exit_code == 2, (args, res.output)
        text = " ".join(res.output.split())
        assert option in text and words in text, (args, text)
    assert not list(tmp_path.iterdir())  # refused before any world ran


def test_tournament_command(tmp_path):
    out = tmp_path / "t.sqlite"
    res = runner.invoke(
        app,
        [
            "tournament",
            "--track",
            "std",
            "--competitors",
            "trader,donothing",
            "--configs",
            "1",
            "--days",
            "8",
            "--executor",
            "serial",
            "--sandbox",
            "none",
            "--out",
            str(out),
            "--trim-top",
            "0.1",
        ],
    )
    assert res.exit_code == 0, res.output
    assert "donothing" in res.output and out.exists()
    res = runner.invoke(
        app,
        [
            "tournament",
            "--track",
            "collusion",
            "--competitors",
            "trader,donothing",
            "--configs",
            "1",
            "--days",
            "6",
            "--executor",
            "serial",
            "--sandbox",
            "none",
            "--out",
            str(tmp_path / "c.sqlite"),
        ],
    )
    assert res.exit_code == 0, res.output
    assert "isolated mean" in res.output


def test_report_panels_for_a_world_with_bankruptcies(tmp_path):
    cfg = generate_config(n_steps=15, seed=1)
    from scml_helpers import RecklessBuyer

    agents = [RecklessBuyer() if i % 2 else "trader" for i in range(cfg.n_factories)]
    w = World(cfg, agents, seed=1).run()
    paths = write_report(w, tmp_path / "r")
    assert all(p.stat().st_size > 1000 for p in paths)


def test_run_shows_agent_exceptions_with_tracebacks_and_counts_signed_contracts(tmp_path):
    args = [
        "run",
        "--days",
        "4",
        "--levels",
        "2,2",
        "--agents",
        "scml_isolation_agents:Raiser,market",
        "--sandbox",
        "none",  # in this process (agents named by path are sandboxed by default)
    ]
    res = CliRunner(env={"COLUMNS": "80"}).invoke(app, [*args, "--report", str(tmp_path)])
    assert res.exit_code == 0, res.output
    out = res.output
    assert "agent exceptions 8" in out  # two raisers, four days
    assert "raiser failed on day 0" in out and "traceback of 00Rai@0" in out
    assert 'raise ValueError(f"raiser failed on day {day}")' in out
    data = _json(runner.invoke(app, [*args, "--json"]).output)["summary"]
    signed = data["signed_exogenous"] + data["signed_negotiated"]
    assert f"contracts signed {signed} (" in out and signed == data["signed"]
    page = (tmp_path / "scml_report.html").read_text()
    assert page.count("<details>") == 8 and "raiser failed on day 3" in page
