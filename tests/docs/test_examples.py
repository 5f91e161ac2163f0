"""The example scripts and the guides' code blocks run, and print what they claim.

Every ``examples/0*.py`` script runs in a subprocess with the venv's Python and must
finish within ``TIMEOUT`` seconds; its output must contain the key facts listed for it
in ``EXPECTED`` (and some behaviour checks below). Every ``docs/*.md`` guide's runnable
blocks run through ``tests/docs/markdown_blocks.py`` (convention in its docstring).
"""

from __future__ import annotations

import functools
import importlib.util
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
DOCS = ROOT / "docs"
RUNNER = Path(__file__).with_name("markdown_blocks.py")
TIMEOUT = 240.0
"""Seconds an example or guide may run: a hang guard, not a speed claim (a few seconds of
CPU each, but humaine-immersive.md took 49 s of wall time at load 10 and trails.md 44 s,
close to the 60 s this was)."""

EXPECTED: dict[str, list[str]] = {
    "01_lunch_session.py": [
        "outcomes: 4",
        "U_alice(Hamburger, Beer) = 0.91",
        "after 2 steps the standing offer is ('Hamburger', 'Beer')",
        "ended by agreement after 16 steps: ('Hamburger', 'Beer')",
        "utilities: Boulware=0.91, Conceder=0.76",
        "Pareto frontier: [('Pizza', 'Beer'), ('Hamburger', 'Beer'), ('Hamburger', 'Cola')]",
        "Nash point: ('Hamburger', 'Beer')",
        "agreement is Pareto-optimal: True, distance to Nash 0.000",
    ],
    "02_custom_agent.py": [
        "check passed: 9 sessions",
        "vs Boulware on job_offer: agreement",
        "tournament: 12 sessions",
        "Aspirant, repetition 0: mean utility 0.556",  # quoted in docs/writing-an-agent.md
        "Aspirant, repetition 1: mean utility 0.673",
        "Aspirant, repetition 2: mean utility 0.697",
    ],
    "03_tournament.py": [
        "ran 192 of 192 sessions",
        "resumed: 0 sessions left to run",
        "tables: 192 sessions, 384 party rows",
        "winner by 10%-truncated mean:",
        "agent-vs-agent table: (4, 4)",
        "exported: events.csv, events.parquet, parties.csv, parties.parquet, sessions.csv, "
        "sessions.parquet, specs.csv, specs.parquet",
        "report: demo.html",
    ],
    "04_pareto_analysis.py": [
        "frontier rows: [0, 1, 2, 3, 4]",
        "Nash row 2, Kalai row 3, max-welfare row 1",
        "Nash row with reservations (0.8, 0): 1",
        "supply_contract: 1,000,000 outcomes,",
        "holiday: 3 parties,",
        "car_purchase session: agreement",
        "plot: car.png",
    ],
    "05_scml_world.py": [
        "5 factories on 2 levels, 3 products, 10 days",
        "day  5:",
        "day 10:",
        "TraderAgent:",
        "DoNothingAgent: +0.0000",
        "same seed, same scores: True",
    ],
    "06_humaine_fast_round.py": [
        "one 300 s round in",
        "Celia (markup): utility",
        "Watson (regex): utility",
        "buyer (fair): utility",
        "tournament: 48 rounds",
        "my_seller:MarkupSeller",
    ],
}


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(EXAMPLES), env.get("PYTHONPATH", "")]).rstrip(
        os.pathsep
    )
    env["MPLBACKEND"] = "Agg"
    return env


def _run(args: list[str], cwd: Path) -> tuple[str, float]:
    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, *args],
        cwd=cwd,
        env=_env(),
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )
    took = time.perf_counter() - start
    assert proc.returncode == 0, f"{args} failed:\n{proc.stdout}\n{proc.stderr}"
    return proc.stdout, took


@functools.cache
def run_example(name: str) -> tuple[str, float, list[str]]:
    """Output, run time and files left in the working directory of one example (run once)."""
    with tempfile.TemporaryDirectory() as tmp:
        out, took = _run([str(EXAMPLES / name)], Path(tmp))
        return out, took, sorted(p.name for p in Path(tmp).iterdir())


def test_every_example_has_expectations_and_a_docstring() -> None:
    scripts = sorted(p.name for p in EXAMPLES.glob("0*.py"))
    assert scripts == sorted(EXPECTED), "add the new example's key facts to EXPECTED"
    for name in scripts:
        text = (EXAMPLES / name).read_text()
        assert text.startswith('"""'), f"{name} must open with a docstring saying what it shows"
        assert "Shows:" in text.split('"""')[1], f"{name}: the docstring says what it shows"


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_example_runs_and_prints_its_key_facts(name: str) -> None:
    out, took, left = run_example(name)
    missing = [fact for fact in EXPECTED[name] if fact not in out]
    assert not missing, f"{name} did not print {missing}; it printed:\n{out}"
    assert took < TIMEOUT
    assert not left, f"{name} left files in the working directory: {left}"


def test_learning_agent_improves_over_repetitions() -> None:
    out, _, _ = run_example("02_custom_agent.py")
    means = [float(x) for x in re.findall(r"repetition \d: mean utility ([\d.]+)", out)]
    assert len(means) == 3
    assert means[2] > means[0], f"the learning agent did not improve: {means}"


def test_tournament_leaderboard_is_ranked_with_intervals() -> None:
    out, _, _ = run_example("03_tournament.py")
    rows = re.findall(r"(\d)\. (\w+)\s+([\d.]+) \[([\d.]+), ([\d.]+)\] n=(\d+)", out)
    assert [int(r[0]) for r in rows] == [1, 2, 3, 4]
    assert sorted(r[1] for r in rows) == ["Boulware", "Conceder", "Linear", "TitForTat"]
    scores = [float(r[2]) for r in rows]
    assert scores == sorted(scores, reverse=True)
    for _, _, score, low, high, n in rows:
        assert float(low) <= float(score) <= float(high)
        assert int(n) == 96  # 192 sessions x 2 seats / 4 agents


def _markdown_module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("markdown_blocks", RUNNER)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("markdown_blocks", module)  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_markdown_convention_runs_python_and_checks_pycon(tmp_path: Path) -> None:
    good = tmp_path / "good.md"
    good.write_text(
        "# t\n```python\nx = 2\n```\n```python notest\nraise SystemExit(3)\n```\n"
        "```pycon\n>>> x * 21\n42\n```\n"
    )
    bad_output = tmp_path / "bad_output.md"
    bad_output.write_text("```pycon\n>>> 1 + 1\n3\n```\n")
    bad_code = tmp_path / "bad_code.md"
    bad_code.write_text("text\n\n```python\nx = 1\n1 / 0\n```\n")
    module = _markdown_module()
    assert module.run_file(good) == 0
    assert module.run_file(bad_output) == 1
    assert module.run_file(bad_code) == 1
    proc = subprocess.run(
        [sys.executable, str(RUNNER), str(bad_code)], capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 1
    assert "bad_code.md" in proc.stderr and "line 5" in proc.stderr  # the Markdown line


GUIDES = sorted(p.name for p in DOCS.glob("*.md"))


@pytest.mark.parametrize("guide", GUIDES)
def test_guide_code_blocks_run(guide: str, tmp_path: Path) -> None:
    blocks = _markdown_module().extract_blocks((DOCS / guide).read_text())
    if not any(b.run for b in blocks):
        pytest.skip(f"{guide} has no runnable code blocks")
    _run([str(RUNNER), str(DOCS / guide)], tmp_path)
