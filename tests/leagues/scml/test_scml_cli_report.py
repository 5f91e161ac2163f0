"""The ``accord scml`` command line and the HTML/PNG report."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from accord.leagues.scml.cli import app
from accord.leagues.scml.generate import generate_config
from accord.leagues.scml.report import write_report
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
    assert html.count("data:image/png;base64,") == 5
    assert (tmp_path / "scml_report.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_run_rejects_bad_options():
    res = runner.invoke(app, ["run", "--days", "0"])
    assert res.exit_code != 0
    assert "must be at least 1, got 0" in res.output and "--days" in res.output
    res = runner.invoke(app, ["run", "--agents", "nobody", "--days", "3"])
    assert res.exit_code != 0 and "unknown agent type 'nobody'" in res.output


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
