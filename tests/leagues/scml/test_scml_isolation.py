"""Competition mode: isolated agents see only their AWI and change the world only by
acting through it; crashing and hanging agents are recorded and become do-nothing agents.

One isolated world is shared by most tests (spawning processes is slow)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from accord.leagues.scml.generate import generate_config
from accord.leagues.scml.isolation import IsolatedAgent, Limits
from accord.leagues.scml.runner import run_tournament
from accord.leagues.scml.tournament import TournamentSpec
from accord.leagues.scml.world import World

LIMITS = Limits(call_timeout=3.0, cpu_seconds=60, memory_mb=1024)
M = "scml_isolation_agents"
#: three factories per level: 0 spy, 1 crasher, 2 trader | 3 hanger, 4 raiser, 5 trader
SLOTS = [f"{M}:Spy", f"{M}:Crasher", "trader", f"{M}:Hanger", f"{M}:Raiser", "trader"]
DAYS = 6


def _config():
    return generate_config(n_steps=DAYS, factories_per_level=[3, 3], seed=11)


@pytest.fixture(scope="module")
def worlds():
    """The isolated world, and the same world in-process with do-nothing agents in the
    slots of the misbehaving ones."""
    isolated = World(_config(), [IsolatedAgent(s, LIMITS) for s in SLOTS], seed=4).run()
    plain = ["trader" if s == "trader" else "donothing" for s in SLOTS]
    reference = World(_config(), plain, seed=4).run()
    return isolated, reference


def _spy_report(w: World) -> dict:
    (exc,) = [e for e in w.history.exceptions if e.message.startswith("RuntimeError: SPY ")]
    return json.loads(exc.message.removeprefix("RuntimeError: SPY "))


def test_an_isolated_agent_holds_no_world_and_cannot_reach_one(worlds):
    isolated, _ = worlds
    found = _spy_report(isolated)
    assert found["world_objects"] == []
    assert found["world"].startswith("AttributeError: an isolated agent has no world")
    assert found["raw"] == "AttributeError: the AWI has no '_w'"
    assert found["forged_locally"] == 1  # its own copy of the board took the forgery ...
    # ... the world's did not
    assert [b for b in isolated.bb.breaches if b.agent == isolated.names[3]] == []


def test_an_isolated_agent_sees_no_private_figure_of_another_factory(worlds):
    isolated, _ = worlds
    found = _spy_report(isolated)
    assert found["other_reports"] == []  # no report is published before day 0 ends
    # all it holds is a channel, its own profile, caches of its own reads and its rng
    assert found["awi_fields"] == [
        "_by_object",
        "_cache",
        "_conn",
        "_negotiators",
        "_static",
        "rng",
    ]
    assert found["profile"] == {"agent": isolated.names[0], "cost": int(isolated.config.costs[0])}


def test_an_isolated_agent_affects_the_world_only_through_its_actions(worlds):
    isolated, reference = worlds

    def public(w: World) -> tuple:  # names differ (00Spy@0 vs 00DoN@0): compare by index
        ix = w.roster.index
        return (
            [(ix[b.agent], *b[1:]) for b in w.bb.breaches],
            [(ix[r.agent], *r[1:]) for r in w.bb.financial_reports],
            w.bb.market,
        )

    assert list(isolated.scores().values()) == list(reference.scores().values())
    assert isolated.book.status == reference.book.status
    assert public(isolated) == public(reference)
    assert np.array_equal(isolated.ledger.inventory, reference.ledger.inventory)
    assert np.array_equal(isolated.ledger.commands, reference.ledger.commands)
    isolated.check_invariants()


def test_crash_and_hang_are_recorded_once_and_the_factory_does_nothing_after(worlds):
    isolated, _ = worlds
    by_agent: dict[str, list] = {}
    for e in isolated.history.exceptions:
        by_agent.setdefault(e.agent, []).append(e)
    (crash,) = by_agent[isolated.names[1]]
    assert (crash.day, crash.method) == (1, "step")
    assert "exit code 3" in crash.message
    (hang,) = by_agent[isolated.names[3]]
    assert (hang.day, hang.method) == (1, "step")
    assert hang.message == "step() did not answer within 3 s; the process was killed"
    assert isolated.agents[1].failure == crash.message
    assert isolated.day == DAYS


def test_an_exception_in_an_isolated_agent_keeps_its_message_and_traceback(worlds):
    isolated, _ = worlds
    raised = [e for e in isolated.history.exceptions if e.agent == isolated.names[4]]
    assert [e.day for e in raised] == list(range(DAYS))
    assert raised[2].message == "ValueError: raiser failed on day 2"
    assert raised[3].message == "MemoryError: "  # 4 GiB is over its 1024 MB limit ...
    assert raised[4].message == "ValueError: raiser failed on day 4"  # ... and it lives on
    assert "in _fail" in raised[2].traceback and "scml_isolation_agents.py" in raised[2].traceback


def test_isolated_traders_trade_exactly_as_in_process(worlds):
    isolated, reference = worlds
    assert isolated.history.signed.sum() == reference.history.signed.sum() > 0


def test_a_tournament_with_a_crashing_and_a_hanging_agent_completes(tmp_path):
    spec = TournamentSpec(
        [f"{M}:Crasher", f"{M}:Hanger"],
        n_configs=1,
        n_steps=4,
        levels_range=(2, 2),
        non_competitors=("donothing",),
        isolation="competitors",
        limits=Limits(call_timeout=2.0),
    )
    res = run_tournament(spec, tmp_path / "t.sqlite", executor="serial")
    assert len(res.worlds) == 2
    for w in res.worlds:
        messages = sorted(e["message"] for e in w["agent_exceptions"])
        assert any("exit code 3" in m for m in messages)
        assert "step() did not answer within 2 s; the process was killed" in messages
    assert set(res.scores) == {f"{M}:Crasher", f"{M}:Hanger"}
    assert all(row["score"] == 0.0 for row in res.scores.values())


@pytest.mark.parametrize("buyer", ["ControlledBuyer", "EmpoweredBuyer"])
def test_controllers_and_empowered_negotiators_work_isolated_exactly_as_in_process(buyer):
    cfg = generate_config(n_steps=4, factories_per_level=[2, 1], seed=0)
    specs = [f"{M}:AcceptingSeller", f"{M}:AcceptingSeller", f"{M}:{buyer}"]
    isolated = World(cfg, [IsolatedAgent(s, LIMITS) for s in specs], seed=0).run()
    plain = World(cfg, specs, seed=0).run()
    assert isolated.history.exceptions == plain.history.exceptions == []
    negotiated = [c for c in plain.book.contracts.values() if not c.exogenous]
    assert len(negotiated) == 2
    assert isolated.book.contracts == plain.book.contracts  # same ids, same terms
    assert isolated.book.status == plain.book.status
