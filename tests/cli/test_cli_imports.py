"""Importing the CLI changes nothing; import paths still reach the working directory."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _python(code: str, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "COLUMNS": "80"}
    return subprocess.run(
        [sys.executable, "-c", code, *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_importing_the_cli_leaves_sys_path_alone(tmp_path: Path) -> None:
    code = (
        "import sys; before = list(sys.path); import accord.cli; "
        "print(sys.path == before, str(__import__('os').getcwd()) in sys.path[1:])"
    )
    out = _python(code, tmp_path)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["True", "False"]


def test_an_agent_in_the_working_directory_is_found_by_import_path(tmp_path: Path) -> None:
    (tmp_path / "mine.py").write_text(
        "from accord.core import Negotiator, Response\n"
        "class Taker(Negotiator):\n"
        "    def respond(self, view, offer):\n"
        "        return Response.ACCEPT\n"
    )
    code = "import sys; from accord.cli import app; app(sys.argv[1:])"
    args = ("negotiate", "lunch", "-a", "hardliner", "-a", "mine:Taker", "--protocol", "ultimatum")
    out = _python(code, tmp_path, *args)
    assert out.returncode == 0, out.stdout + out.stderr
    text = " ".join(out.stdout.split())
    assert "protocol ultimatum-v1" in text
    assert "ended by agreement after 2 steps" in text


def test_help_starts_without_the_heavy_modules(tmp_path: Path) -> None:
    """``accord --help`` and ``accord negotiate --help`` import typer and rich, not the
    core's numpy, pydantic (newer typers parse with it) or rich's Markdown parser."""
    heavy = ("numpy", "pydantic", "markdown_it", "pandas", "accord.core")
    code = (
        "import sys; from accord.cli import app\n"
        "try:\n    app(sys.argv[1:])\nexcept SystemExit:\n    pass\n"
        f"print('LOADED', sorted(m for m in {heavy!r} if m in sys.modules))"
    )
    for args in (("--help",), ("negotiate", "--help")):
        out = _python(code, tmp_path, *args)
        assert out.returncode == 0, out.stderr
        assert "Usage:" in out.stdout
        assert out.stdout.rsplit("LOADED", 1)[1].split() == ["[]"], (args, out.stdout[-300:])


@pytest.mark.parametrize("command", ["play", "report", "tournament"])
def test_a_top_level_command_lists_no_shell_completion_options(command: str) -> None:
    # those belong to `accord` itself (accord --help), not to each command
    from typer.testing import CliRunner

    from accord.cli import app

    out = CliRunner().invoke(app, [command, "--help"], env={"COLUMNS": "80"}).output
    assert "Usage: " in out and "--install-completion" not in out
