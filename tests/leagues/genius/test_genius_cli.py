"""``accord genius play|evaluate|domains|agents``."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from accord.cli import app

runner = CliRunner()
ENV = {"COLUMNS": "80"}


def test_play_prints_the_session_like_negotiate() -> None:
    r = runner.invoke(
        app,
        [
            "genius",
            "play",
            "england_zimbabwe",
            "-a",
            "kbagent graft",
            "-t",
            "compromise 0",
            "--trace",
        ],
        env=ENV,
    )
    assert r.exit_code == 0, r.output
    assert "england_zimbabwe: 576 outcomes" in r.output
    assert "ended by" in r.output and "utilities" in r.output and "turn  0" in r.output


def test_play_refuses_bad_input_with_a_clear_message() -> None:
    r = runner.invoke(app, ["genius", "play", "-a", "kbagent nobody"], env=ENV)
    assert r.exit_code == 2 and "unknown agent 'nobody'" in r.output
    r = runner.invoke(app, ["genius", "play", "-t", "boss 0"], env=ENV)
    assert r.exit_code == 2 and "has no type 'boss'" in r.output


def test_play_on_a_qo_folder_refuses_missing_values_or_reads_them_as_zero_when_told(
    qo_folder: Path,
) -> None:
    args = ["genius", "play", str(qo_folder), "-a", "conceder conceder", "--turns", "1"]
    r = runner.invoke(app, args, env=ENV)
    flat = " ".join(r.output.split())
    assert r.exit_code == 2 and "Side_ACompromise.xml: no <reservation>, <optout>" in flat
    assert "--missing zero" in flat  # what to do about it, from the command line
    r = runner.invoke(app, [*args, "--missing", "zero"], env=ENV)
    flat = " ".join(r.output.split())
    assert r.exit_code == 0, r.output
    assert "warning:" in flat and "read as 0: Side_ACompromise.xml" in flat
    r = runner.invoke(app, [*args, "--missing", "none"], env=ENV)
    assert r.exit_code == 2 and "missing must be 'refuse' or 'zero', got 'none'" in r.output


def test_evaluate_prints_json_and_writes_an_html_report(tmp_path: Path) -> None:
    report = tmp_path / "out" / "genius.html"
    r = runner.invoke(
        app,
        [
            "genius",
            "evaluate",
            "kbagent",
            "-d",
            "job_candidate",
            "-p",
            "conceder threats",
            "--json",
            "--report",
            str(report),
        ],
        env=ENV,
    )
    assert r.exit_code == 0, r.output
    data = json.loads(r.output)
    assert set(data["job_candidate"]["pdas"]) == {
        "utility",
        "agreement",
        "opt_out",
        "turn",
        "generosity",
    }
    assert data["job_candidate"]["pdas"]["utility"]["n"] == 2
    assert set(data["job_candidate"]["per_opponent"]) == {"conceder", "threats"}
    text = report.read_text()
    assert "<h2>job_candidate</h2>" in text and "data:image/png;base64" in text


def test_domains_and_agents_are_listed() -> None:
    r = runner.invoke(app, ["genius", "domains"], env=ENV)
    assert "job_candidate: 1296 outcomes" in r.output and "england_zimbabwe: 576" in r.output
    r = runner.invoke(app, ["genius", "agents"], env=ENV)
    assert "kbagent" in r.output and "conceder" in r.output


def test_every_test_named_in_the_spec_checklist_exists() -> None:
    import re

    root = Path(__file__).resolve().parents[3]
    text = (root / "docs" / "genius-spec-checklist.md").read_text()
    named = set(re.findall(r"(\w+)::(test_\w+)", text))
    assert len(named) > 30
    for module, name in sorted(named):
        f = root / "tests" / "leagues" / "genius" / f"test_genius_{module}.py"
        assert f.exists() and f"def {name}(" in f.read_text(), (module, name)


def test_evaluate_says_where_the_agent_ran() -> None:
    args = ["genius", "evaluate", "kbagent", "-d", "job_candidate", "-p", "conceder"]
    r = runner.invoke(app, args, env=ENV)
    assert r.exit_code == 0, r.output
    assert "sandbox: none (kbagent ran in this process)" in r.output
    from accord.leagues.genius.cli import _sandbox_line

    assert _sandbox_line("pkg.mod:Mine", "os") == (
        "sandbox: os (a fresh bubblewrap sandbox per session)"
    )
    assert "gives up OS isolation" in _sandbox_line("pkg.mod:Mine", "process")
