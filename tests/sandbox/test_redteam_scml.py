"""Red team, SCML: hostile agents in a world and in a tournament are contained, recorded
against them with their reason, and the other factories' world is exactly the one they
would have had next to do-nothing agents."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from accord.leagues.scml.generate import generate_config
from accord.leagues.scml.isolation import IsolatedAgent, Limits
from accord.leagues.scml.runner import run_tournament
from accord.leagues.scml.tournament import TournamentSpec
from accord.leagues.scml.world import World

pytestmark = pytest.mark.needs_bwrap
H = "hostile_scml"
LIMITS = Limits(call_timeout=3.0, cpu_seconds=60, memory_mb=512)
HOSTILE = {
    "Pickler": "frame of kind 80",
    "Rewriter": "contained: no SQLite file reachable",
    "MemWriter": "contained: parent memory",
    "Signaller": "contained: still here",
    "KbInt": "KeyboardInterrupt",
    "SysExit": "SystemExit: 2",
    "ForkBomb": "contained: fork failed after",
}
# two levels of six factories: the hostile agents and three honest traders
SLOTS = ["Pickler", "trader", "Rewriter", "MemWriter", "trader", "Signaller",
         "KbInt", "SysExit", "trader", "ForkBomb", "trader", "trader"]  # fmt: skip


def test_hostile_agents_in_a_world_are_contained_and_the_rest_is_unchanged(
    tmp_path: Path,
) -> None:
    cfg = generate_config(n_steps=4, factories_per_level=[6, 6], seed=3)
    agents = [s if s == "trader" else IsolatedAgent(f"{H}:{s}", LIMITS) for s in SLOTS]
    hostile = World(cfg, agents, seed=5).run()
    reference = World(cfg, [s if s == "trader" else "donothing" for s in SLOTS], seed=5).run()
    recorded = {}
    for e in hostile.history.exceptions:
        recorded.setdefault(hostile.roster.index[e.agent], []).append(e.message)
    for i, slot in enumerate(SLOTS):
        if slot == "trader":
            assert i not in recorded
            continue
        assert len(recorded[i]) == 1 and HOSTILE[slot] in recorded[i][0], (slot, recorded[i])
    assert hostile.history.signed.sum() == reference.history.signed.sum() > 0
    traders = [i for i, s in enumerate(SLOTS) if s == "trader"]
    h, r = hostile.scores(), reference.scores()
    assert [h[hostile.names[i]] for i in traders] == [r[reference.names[i]] for i in traders]
    assert not Path("/tmp/accord-scml-pwned").exists()


def test_a_tournament_keeps_its_results_from_an_agent_that_hunts_for_them(
    tmp_path: Path,
) -> None:
    out = tmp_path / "t.sqlite"
    spec = TournamentSpec(
        [f"{H}:Rewriter", "trader"],
        n_configs=1,
        n_steps=4,
        levels_range=(2, 2),
        non_competitors=("donothing",),
        limits=LIMITS,
    )
    res = run_tournament(spec, out, executor="serial")
    assert len(res.worlds) >= 1
    with sqlite3.connect(out) as db:
        assert db.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
    for w in res.worlds:
        messages = [e["message"] for e in w["agent_exceptions"] if "Rewriter" in e["type"]]
        assert messages and all("contained: no SQLite file reachable" in m for m in messages)
    assert res.scores[f"{H}:Rewriter"]["score"] <= 0.0 + 1e-9
