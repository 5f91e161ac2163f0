"""Resuming checks each agent's fingerprint: changed code or parameters are refused,
naming what changed; ``--fresh`` starts over."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from accord.core.errors import ConfigError
from accord.tournament.cli import app
from accord.tournament.config import TournamentConfig
from accord.tournament.runner import run_tournament

AGENT = """
from accord.agents.timebased import TimeDependent


class Mine(TimeDependent):
    def __init__(self, exponent=0.5, name=None):
        super().__init__(exponent, name)
"""


@pytest.fixture
def agent_module(tmp_path: Path, request: pytest.FixtureRequest) -> Path:
    name = f"mine_{request.node.name[-24:].replace('[', '_').replace(']', '_')}"
    src = tmp_path / "agents" / f"{name}.py"
    src.parent.mkdir()
    src.write_text(AGENT)
    sys.path.insert(0, str(src.parent))
    yield src
    sys.path.remove(str(src.parent))
    sys.modules.pop(name, None)


def config(module: str, **params: object) -> TournamentConfig:
    return TournamentConfig(
        ({"name": "Mine", "type": f"{module}:Mine", "params": params}, "boulware"),
        ("builtin:tiny",),
    )


def test_changed_source_or_parameters_are_refused_and_fresh_starts_over(
    tmp_path: Path, agent_module: Path
) -> None:
    mod = agent_module.stem
    out = tmp_path / "t.sqlite"
    first = run_tournament(config(mod), out)
    assert first.ran == first.total
    assert run_tournament(config(mod), out).ran == 0  # unchanged: resumes, nothing to do
    with pytest.raises(ConfigError, match=r"agent Mine: parameters changed from \{\} to"):
        run_tournament(config(mod, exponent=2.0), out)
    agent_module.write_text(AGENT.replace("exponent=0.5", "exponent=0.9"))
    with pytest.raises(ConfigError, match=f"agent Mine: the source of {mod} changed.*--fresh"):
        run_tournament(config(mod), out)
    # the CLI says the same, and --fresh runs everything again
    import yaml

    cfg_path = tmp_path / "c.yaml"
    cfg_path.write_text(yaml.safe_dump(config(mod).to_dict()))
    args = ["tournament", str(cfg_path), "--out", str(out), "--executor", "serial", "--no-report"]
    refused = CliRunner().invoke(app, args)
    assert refused.exit_code == 2
    assert f"the source of {mod} changed" in " ".join(refused.output.split())
    again = CliRunner().invoke(app, [*args, "--fresh"])
    assert again.exit_code == 0, again.output
    assert f"{first.total} sessions ({first.total} run now)" in again.output
