"""The SCML section of the agent guide: its commands run the template agent in a world and
in a tournament (in competition mode), exactly as written."""

from __future__ import annotations

import json
import re
import shlex
import sqlite3
from pathlib import Path

import pytest
from typer.testing import CliRunner

from accord.leagues.scml.cli import app

GUIDE = Path(__file__).resolve().parents[3] / "docs" / "writing-an-agent.md"


def _commands() -> list[list[str]]:
    text = GUIDE.read_text()
    section = text[text.index("## An SCML factory manager") :]
    (block,) = re.findall(r"^```console\n(.*?)^```", section, re.S | re.M)
    return [shlex.split(line) for line in block.splitlines() if line.strip()]


def test_the_guide_shows_a_world_and_a_tournament_of_the_template():
    cmds = _commands()
    assert [c[:3] for c in cmds] == [["accord", "scml", "run"], ["accord", "scml", "tournament"]]
    assert all(any("template:TemplateAgent" in a for a in c) for c in cmds)


@pytest.mark.parametrize("index", [0, 1], ids=["run", "tournament"])
def test_the_guides_commands_run_the_template_agent(index, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("COLUMNS", "80")
    args = _commands()[index][2:]
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 0, res.output
    if index == 0:
        assert "TemplateAgent" not in res.output or "Tem@" in res.output
        assert re.search(r"contracts signed \d+ \(\d+ exogenous, \d+ negotiated\)", res.output)
        assert "agent exceptions 0" in res.output
    else:
        with sqlite3.connect(tmp_path / "template.sqlite") as conn:
            records = [json.loads(r) for (r,) in conn.execute("SELECT record FROM tasks")]
        assert len(records) == 2
        for r in records:
            assert "accord.leagues.scml.agents.template:TemplateAgent" in r["scores"]
            assert r["exceptions"] == 0
