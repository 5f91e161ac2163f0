"""A submitted agent's fingerprint covers its whole package, read from disk (never
imported): an edited helper module or data file refuses a resume."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from accord.core.errors import ConfigError
from accord.tournament.config import AgentSpec, TournamentConfig
from accord.tournament.fingerprint import agent_fingerprint
from accord.tournament.runner import run_tournament

AGENT = """
from accord.agents.timebased import TimeDependent
from .helper import EXPONENT


class Mine(TimeDependent):
    def __init__(self, name=None):
        super().__init__(EXPONENT, name)
"""


@pytest.fixture
def package(tmp_path: Path) -> Iterator[Path]:
    root = tmp_path / "entries"
    pkg = root / "fp_entry_pkg"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text(AGENT)
    (pkg / "helper.py").write_text("EXPONENT = 0.5\n")
    (pkg / "table.json").write_text('{"a": 1}\n')
    sys.path.insert(0, str(root))
    yield pkg
    sys.path.remove(str(root))
    for name in [m for m in sys.modules if m.startswith("fp_entry_pkg")]:
        del sys.modules[name]


def test_the_fingerprint_hashes_every_file_of_the_package_without_importing_it(
    package: Path,
) -> None:
    fp = agent_fingerprint(AgentSpec("Mine", "fp_entry_pkg:Mine"))
    assert set(fp["sources"]) == {"fp_entry_pkg", "fp_entry_pkg.helper", "fp_entry_pkg/table.json"}
    assert "fp_entry_pkg" not in sys.modules


@pytest.mark.needs_bwrap
@pytest.mark.parametrize("edit", ["helper.py", "table.json"])
def test_an_edited_helper_or_data_file_refuses_a_resume(
    package: Path, tmp_path: Path, edit: str
) -> None:
    cfg = TournamentConfig(
        ("Mine=fp_entry_pkg:Mine", "boulware"), ("builtin:tiny",), sandbox="auto"
    )
    out = tmp_path / "t.sqlite"
    assert run_tournament(cfg, out).ran > 0
    assert run_tournament(cfg, out).ran == 0
    (package / edit).write_text((package / edit).read_text() + "\n# changed\n")
    with pytest.raises(ConfigError, match="agent Mine: the source of fp_entry_pkg"):
        run_tournament(cfg, out)
