"""Every built-in agent plays on 10^10-outcome domains through the real CLI (issue 11.1).

The ANAC 2014 domains (hyper-rectangle profiles) are real files (``tests/real_scenarios.py``);
a 10^10-outcome linear additive domain is written here.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from typer.testing import CliRunner

import real_scenarios
from accord.agents.registry import known_agents
from accord.cli import app
from accord.core.generate import random_linear_scenario
from accord.core.scenario import Scenario
from accord.formats import write_native
from accord.tournament.results import Results

runner = CliRunner()
AGENT_NOTE = "10000000000 outcomes, too many to enumerate: the built-in agents find outcomes"


def _anac2014() -> Path:
    return real_scenarios.genius("anac2014_10issuesDiscountedwithRV")


def _pairs() -> list[str]:
    """Every built-in agent once, two per session (the last one with Frequency)."""
    names = list(known_agents())
    if len(names) % 2:
        names = [*names, "Frequency"]
    return [f"{a} {b}" for a, b in zip(names[::2], names[1::2], strict=True)]


def _json(args: list[str]) -> dict[str, object]:
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    doc: dict[str, object] = json.loads(result.output)
    return doc


def test_every_builtin_agent_negotiates_on_the_anac2014_domain_and_the_output_says_how():
    path = str(_anac2014())
    for pair in _pairs():
        start = time.perf_counter()
        doc = _json(["negotiate", path, "-a", pair, "--rounds", "30", "--json"])
        assert doc["failure"] is None, (pair, doc["failure"])
        assert time.perf_counter() - start < 30, pair
        notes = doc["notes"]
        assert isinstance(notes, list) and notes == [
            f"{AGENT_NOTE} by utility without enumerating them (exact, by hyper-rectangle cells)"
        ]
        assert doc["pareto_distance_undiscounted"] is not None  # analysed by cells, not enumerated


def test_scenarios_show_says_how_agents_play_a_huge_space():
    result = runner.invoke(app, ["scenarios", "show", str(_anac2014())])
    out = " ".join(result.output.split())
    assert result.exit_code == 0 and f"{AGENT_NOTE} by utility" in out
    assert "put real (and huge integer) issues on a grid" not in out  # nothing to put on a grid


def test_a_tournament_of_every_builtin_agent_on_the_anac2014_domain_has_no_failure(tmp_path):
    out = tmp_path / "t.sqlite"
    agents = ",".join(known_agents())
    doc = _json(["tournament", "--agents", agents, "--scenarios", str(_anac2014()),
                 "--reps", "1", "--rounds", "5", "--executor", "serial", "--out", str(out),
                 "--no-report", "--json"])  # fmt: skip
    notes = doc["notes"]
    assert isinstance(notes, list) and any(AGENT_NOTE in str(n) for n in notes)
    n = len(known_agents())
    sessions = Results(out).sessions
    assert len(sessions) == doc["sessions"] == 2 * n * n
    assert sessions["failure_agent"].isna().all(), sessions["failure_message"].dropna().tolist()


def test_huge_linear_additive_domains_are_played_exactly_and_analysed_approximately(tmp_path):
    base = random_linear_scenario(10, 10, 2, seed=3, reservation=0.2)  # 10^10 outcomes
    path = write_native(Scenario("additive10", base.space, base.utilities), tmp_path / "b.json")
    for pair in _pairs():
        doc = _json(["negotiate", str(path), "-a", pair, "--rounds", "30", "--json"])
        assert doc["failure"] is None, (pair, doc["failure"])
    notes = doc["notes"]
    assert isinstance(notes, list) and len(notes) == 2
    assert notes[0] == (
        f"{AGENT_NOTE} by utility without enumerating them (exact, from the linear additive "
        "structure)"
    )
    assert str(notes[1]).startswith("analysis approximated: 10000000000 outcomes are too many")
    result = runner.invoke(app, ["negotiate", str(path), "-a", "TitForTat Conceder"])
    assert result.exit_code == 0 and "analysis approximated" in " ".join(result.output.split())
