"""The manager's command line: plan, set-password, bad agent specs."""

from __future__ import annotations

import pytest
import typer
from typer.testing import CliRunner

from accord.leagues.humaine.manager.auth import verify_password
from accord.leagues.humaine.manager.cli import _agent, app
from accord.leagues.humaine.manager.store import ManagerStore

runner = CliRunner()


def test_plan_prints_pools_with_a_dummy_and_the_rounds():
    r = runner.invoke(app, ["plan", "--agents", "a,b,c", "--humans", "h1,h2", "--pools", "2"])
    assert r.exit_code == 0, r.output
    assert "dummy-1" in r.output
    assert r.output.count("(s") == 8  # 4 rounds x 2 sellers


def test_plan_refuses_impossible_pools_with_the_reason():
    r = runner.invoke(app, ["plan", "--agents", "a", "--humans", "h"])
    assert r.exit_code == 1 and "need at least 4 agents" in r.output


def test_set_password_stores_a_hash(tmp_path):
    db = tmp_path / "m.sqlite"
    r = runner.invoke(app, ["set-password", "--db", str(db), "--password", "new-secret"])
    assert r.exit_code == 0, r.output
    stored = ManagerStore(db).admin_hash("admin")
    assert stored is not None and verify_password("new-secret", stored)
    short = runner.invoke(app, ["set-password", "--db", str(db), "--password", "abc"])
    assert short.exit_code == 1 and "at least 6 characters" in short.output


def test_agent_specs():
    assert _agent("Celia=127.0.0.1:14007") == {
        "name": "Celia", "protocol": "http", "host": "127.0.0.1", "port": 14007,
    }  # fmt: skip
    with pytest.raises(typer.BadParameter, match="expected NAME=HOST:PORT"):
        _agent("Celia:14007")
