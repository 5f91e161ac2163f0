"""One spelling on every league command: ``--sandbox {os,process,none}``; a bad value is
one error naming the choices, before any work, and each older spelling still works
but prints one line saying it is deprecated."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from accord.cli import app

runner = CliRunner()
ENV = {"COLUMNS": "80", "NO_COLOR": "1"}

COMMANDS = [
    ["tournament", "--agents", "boulware,conceder"],
    ["scml", "run"],
    ["scml", "tournament"],
    ["han", "tournament", "fair"],
    ["han", "serve"],
    ["genius", "evaluate", "conceder"],
    ["trails", "play"],
    ["trails", "tournament"],
    ["trails", "serve"],
    ["diplomacy", "play"],
    ["diplomacy", "tournament"],
]


def _text(output: str) -> str:
    """The output as one line (rich wraps error panels at COLUMNS)."""
    return " ".join(re.sub(r"[│╭╮╰╯─]", " ", output).split())


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_every_command_refuses_a_bad_sandbox_before_work(command: list[str]) -> None:
    res = runner.invoke(app, [*command, "--sandbox", "bwrap"], env=ENV)
    text = _text(res.output)
    assert res.exit_code == 2, text
    assert "must be one of os, process, none; got 'bwrap'" in text


DEPRECATED = [  # each fails right after its line (a bad argument), so nothing runs
    (["tournament", "--agents", "nope_mod_x:X", "--sandbox", "auto"],
     "--sandbox auto is deprecated; use --sandbox os"),
    (["tournament", "--agents", "nope_mod_x:X", "--isolated"],
     "--isolated is deprecated; use --sandbox os"),
    (["tournament", "--agents", "nope_mod_x:X", "--in-process"],
     "--in-process is deprecated; use --sandbox none"),
    (["scml", "run", "--isolation", "all", "--days", "0"],
     "--isolation is deprecated; use --sandbox os, process or none"),
    (["scml", "tournament", "--isolation", "none", "--call-timeout", "0"],
     "--isolation is deprecated; use --sandbox os, process or none"),
    (["han", "tournament", "fair", "--shared-process", "--games", "nope.json"],
     "--shared-process is deprecated; use --sandbox none"),
    (["genius", "evaluate", "nope_mod_x:X", "--sandbox", "off"],
     "--sandbox off is deprecated; use --sandbox none"),
    (["trails", "play", "-a", "nope_mod_x:X", "--sandbox", "off"],
     "--sandbox off is deprecated; use --sandbox none"),
]  # fmt: skip


@pytest.mark.parametrize(("args", "line"), DEPRECATED, ids=[" ".join(a) for a, _ in DEPRECATED])
def test_an_older_spelling_prints_one_line(args: list[str], line: str) -> None:
    res = runner.invoke(app, args, env=ENV)
    text = _text(res.output)
    assert text.count("is deprecated") == 1 and line in text, text
    assert res.exit_code != 0  # the bad argument after it: nothing ran


def test_scml_sandbox_none_runs_every_agent_in_process() -> None:
    res = runner.invoke(app, ["scml", "run", "--days", "2", "--sandbox", "none", "--json"], env=ENV)
    assert res.exit_code == 0, res.output
    assert "deprecated" not in res.output and '"scores"' in res.output


def test_diplomacy_takes_none_for_entered_negotiators(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("diplomacy", reason="needs the optional engine: pip install '.[diplomacy]'")
    entries = Path(__file__).parents[1] / "leagues" / "diplomacy" / "entries"
    monkeypatch.syspath_prepend(str(entries))
    res = runner.invoke(app, [
        "diplomacy", "play", "--negotiators", "dip_peaceful:Peaceful", "--sandbox", "none",
        "--fast", "--last-year", "1901",
    ], env=ENV)  # fmt: skip
    assert res.exit_code == 0, res.output
    assert "sandbox: none for entered negotiators (they ran in this process" in _text(res.output)
