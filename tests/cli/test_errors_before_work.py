"""Bad input gets one line before any work: no traceback, no file written, no heavy import."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

from accord.cli import app

runner = CliRunner()


def test_scml_tournament_with_an_unknown_competitor_is_one_line_and_writes_nothing(
    tmp_path: Path,
) -> None:
    out = tmp_path / "results" / "scml.sqlite"
    for args in (
        ["scml", "tournament", "--competitors", "tradr", "--out", str(out)],
        ["scml", "tournament", "--competitors", "trader", "--non-competitors", "nope"],
        ["scml", "run", "--agents", "market,tradr"],
    ):
        result = runner.invoke(app, args, env={"COLUMNS": "80"})
        assert result.exit_code == 2, result.output
        lines = [line for line in result.output.splitlines() if line.strip()]
        assert len(lines) == 1, lines
        assert lines[0].startswith("error: ") and "unknown agent type" in lines[0]
        assert "Traceback" not in result.output
    assert not out.exists() and not out.parent.exists()


def test_report_on_a_missing_or_wrong_file_fails_before_the_heavy_imports(
    tmp_path: Path,
) -> None:
    (tmp_path / "notes.sqlite").write_text("not a database\n")
    probe = (
        "import sys\n"
        "from accord.cli import app\n"
        "try:\n"
        "    app(sys.argv[1:])\n"
        "except SystemExit as e:\n"
        "    heavy = sorted(m for m in ('pandas', 'matplotlib', 'scipy') if m in sys.modules)\n"
        "    print('HEAVY', heavy, 'EXIT', e.code)\n"
    )
    env = {**os.environ, "COLUMNS": "80"}
    for name, message in (
        ("missing.sqlite", "results file 'missing.sqlite' does not exist"),
        ("notes.sqlite", "is not an Accord tournament results file"),
    ):
        proc = subprocess.run(
            [sys.executable, "-c", probe, "report", name],
            cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120,
        )  # fmt: skip
        assert "HEAVY [] EXIT 2" in proc.stdout, (proc.stdout, proc.stderr)
        err = [line for line in proc.stderr.splitlines() if line.strip()]
        assert len(err) == 1 and err[0].startswith("error: ") and message in err[0], err
