"""What the guides say about commands, files and the agent code holds.

The guides show shell commands in ``console`` blocks (not run by the block runner);
the commands whose output the guides quote run here, with the venv's ``accord``.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
EXAMPLES = ROOT / "examples"
ACCORD = Path(sys.executable).with_name("accord")
FENCE = re.compile(r"^```(\w+)[^\n]*\n(.*?)^```", re.S | re.M)


def blocks(guide: str, kind: str) -> list[str]:
    """The code of every ``kind`` block of ``docs/<guide>``."""
    return [code for k, code in FENCE.findall((DOCS / guide).read_text()) if k == kind]


def accord(*args: str, cwd: Path, pythonpath: Path | None = None) -> str:
    env = dict(os.environ, COLUMNS="120")
    if pythonpath is not None:
        env["PYTHONPATH"] = str(pythonpath)
    proc = subprocess.run(
        [str(ACCORD), *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, f"accord {' '.join(args)}:\n{proc.stdout}\n{proc.stderr}"
    return proc.stdout


def shown_file(guide: str, marker: str) -> str:
    """The python block of ``guide`` that defines ``marker`` (exactly one must)."""
    found = [code for code in blocks(guide, "python") if marker in code]
    assert len(found) == 1, f"{guide} should show {marker!r} in exactly one block"
    return found[0]


def test_the_agent_page_shows_the_example_file_verbatim() -> None:
    shown = shown_file("writing-an-agent.md", "class Aspirant(")
    assert shown == (EXAMPLES / "my_agent.py").read_text()
    body = shown.split("class Aspirant", 1)[1]
    assert len(body.splitlines()) <= 40, "the agent is meant to fit in about 40 lines"


def test_agents_check_passes_as_quoted(tmp_path: Path) -> None:
    out = accord("agents", "check", "my_agent:Aspirant", cwd=tmp_path, pythonpath=EXAMPLES)
    assert "passed: 9 sessions, 8 agreements, no protocol violation" in out
    out = accord(
        "agents", "check", "my_agent:Aspirant", "-p", "exponent=2", "--scenario", "lunch",
        "--rounds", "20", cwd=tmp_path, pythonpath=EXAMPLES,
    )  # fmt: skip
    assert "passed: 8 sessions, 6 agreements, no protocol violation" in out


def test_negotiate_with_the_agent_by_import_path(tmp_path: Path) -> None:
    out = accord(
        "negotiate", "job_offer", "-a", "my_agent:Aspirant", "-a", "boulware", "--trace",
        "--plot", "job.png", cwd=tmp_path, pythonpath=EXAMPLES,
    )  # fmt: skip
    assert "ended by agreement" in out and "social welfare" in out
    assert (tmp_path / "job.png").stat().st_size > 10_000


def test_every_yaml_config_in_the_guides_is_a_valid_tournament() -> None:
    from accord.tournament import TournamentConfig

    found = 0
    for guide in sorted(p.name for p in DOCS.glob("*.md")):
        for code in blocks(guide, "yaml"):
            data = yaml.safe_load(code)
            if isinstance(data, dict) and "agents" in data:
                TournamentConfig.from_dict(data)
                found += 1
    assert found >= 2


def test_tournament_yaml_from_the_agent_page_runs_and_resumes(tmp_path: Path) -> None:
    config = yaml.safe_load(blocks("writing-an-agent.md", "yaml")[0])
    config |= {"scenarios": ["lunch"], "reps": 2, "rounds": 20}
    (tmp_path / "aspirant.yaml").write_text(yaml.safe_dump(config))
    args = ("tournament", "aspirant.yaml", "--executor", "serial", "--no-report")
    out = accord(*args, cwd=tmp_path, pythonpath=EXAMPLES)
    assert "36 sessions (36 run now)" in out  # 9 ordered pairs x 2 rotations x 2 reps
    assert (tmp_path / "results" / "aspirant.sqlite").is_file()
    again = accord(*args, cwd=tmp_path, pythonpath=EXAMPLES)
    assert "36 sessions (0 run now)" in again


@pytest.mark.parametrize("guide", sorted(p.name for p in DOCS.glob("*.md")))
def test_links_between_guides_point_to_existing_files(guide: str) -> None:
    text = (DOCS / guide).read_text()
    for target in re.findall(r"\]\(([^)#\s]+\.(?:md|py))(?:#[^)]*)?\)", text):
        path = (DOCS / target).resolve()
        assert path.is_file(), f"{guide} links to {target}, which does not exist"


def test_the_humaine_page_shows_the_example_seller_verbatim() -> None:
    shown = shown_file("humaine.md", "class MarkupSeller(")
    assert shown == (EXAMPLES / "my_seller.py").read_text()


def test_humaine_up_starts_every_service_on_free_ports(tmp_path: Path) -> None:
    out = accord(
        "humaine", "up", "--port-base", "0", "--check", "--exit-after", "2", "--data", "d",
        "--celia", "my_seller:MarkupSeller", cwd=tmp_path, pythonpath=EXAMPLES,
    )  # fmt: skip
    for service in ("orchestrator", "utility generator", "agent Celia (my_seller:MarkupSeller)",
                    "agent Watson (regex)", "human UIs", "competition manager"):  # fmt: skip
        assert f"check {service}: ok" in out, out
    assert {p.name for p in (tmp_path / "d").iterdir()} >= {"orchestrator.sqlite"}


def test_humaine_fast_round_and_plan_commands(tmp_path: Path) -> None:
    out = accord(
        "humaine", "agents", "fast-round", "--seller-a", "my_seller:MarkupSeller",
        "--seller-b", "strong", "--buyer", "shopper", "--seed", "4", "--no-transcript",
        cwd=tmp_path, pythonpath=EXAMPLES,
    )  # fmt: skip
    assert "Celia" in out and "Watson" in out and "shopper" in out
    out = accord("humaine", "plan", "--agents", "a,b,c", "--humans", "h1,h2", "--pools", "1",
                 cwd=tmp_path)  # fmt: skip
    rounds = re.findall(r"│ (\d) │", out)
    assert len(rounds) == 6  # 3 pairs, each met twice with the utilities swapped


@pytest.mark.parametrize("guide", sorted(p.name for p in DOCS.glob("*.md")))
def test_guides_name_no_file_outside_what_users_have(guide: str) -> None:
    text = (DOCS / guide).read_text()
    found = re.findall(r"\.\./shared\S*|\bspec/\S+", text)
    assert not found, f"{guide} points users at files they do not have: {found}"


_INDEX_EXTRA = re.compile(r"pip install ['\"]?" + "accord" + r"\[")
"""An install hint naming Accord's extras on a package index: none serves Accord, so it
fails (the pattern is split so that this file does not match it)."""


def test_install_hints_work_from_a_clone() -> None:
    """Every install hint for an extra names the clone (``pip install '.[extra]'``)."""
    root = DOCS.parent
    files = [root / "README.md", *DOCS.glob("*.md"), *(root / "src").rglob("*.py")]
    files += list((root / "tests").rglob("*.py"))
    assert len(files) > 100
    bad = [
        f"{p.relative_to(root)}:{n}"
        for p in files
        for n, line in enumerate(p.read_text().splitlines(), 1)
        if _INDEX_EXTRA.search(line)
    ]
    assert not bad, f"install hints no index serves: {bad}"


def _repo_files() -> set[str]:
    root = DOCS.parent
    skip = {".venv", ".git", "node_modules", "__pycache__"}
    return {p.name for p in root.rglob("*") if not skip & set(p.parts)}


@pytest.mark.parametrize("guide", sorted(p.name for p in DOCS.glob("*.md")))
def test_guides_name_only_markdown_files_that_exist(guide: str) -> None:
    """A guide that cites `some-spec.md` must mean a file of the repository (the HUMAINE
    checklist once cited the organisers' documents by their file names)."""
    named = set(re.findall(r"`([\w./-]+\.md)`", (DOCS / guide).read_text()))
    missing = sorted(m for m in named if Path(m).name not in _repo_files())
    assert not missing, f"{guide} names files users do not have: {missing}"


def _example_scenario_paths() -> dict[str, list[str]]:
    """Scenario entries that are paths (bundled names are plain words), per example."""
    out: dict[str, list[str]] = {}
    for p in sorted((DOCS.parent / "examples").glob("*.yaml")):
        data = yaml.safe_load(p.read_text())
        entries = data.get("scenarios", []) if isinstance(data, dict) else []
        names = [e if isinstance(e, str) else e.get("path", e.get("name", "")) for e in entries]
        paths = [str(n) for n in names if "/" in str(n)]
        if paths:
            out[p.name] = paths
    return out


def test_example_configurations_name_scenarios_a_clone_has() -> None:
    found = _example_scenario_paths()
    assert "negmas_tournament.yaml" in found  # the check has something to check
    missing = {
        example: [n for n in paths if not (DOCS.parent / n).exists()]
        for example, paths in found.items()
    }
    assert not any(missing.values()), f"examples name scenarios a clone lacks: {missing}"


def _readme_commands() -> list[list[str]]:
    """The ``accord ...`` lines of the README's "Using it" block, as argument lists."""
    import shlex

    text = (ROOT / "README.md").read_text()
    block = text.split("## Using it", 1)[1].split("```bash", 1)[1].split("```", 1)[0]
    lines = [line.split("  #")[0].strip() for line in block.splitlines()]
    return [shlex.split(line)[1:] for line in lines if line.startswith("accord ")]


@pytest.mark.parametrize("args", _readme_commands(), ids=" ".join)
def test_every_command_in_the_readme_exists_with_its_options(args: list[str]) -> None:
    # --help after the arguments: click refuses an unknown command or option first
    from accord.cli import app

    result = CliRunner().invoke(app, [*args, "--help"])
    assert result.exit_code == 0, result.output
