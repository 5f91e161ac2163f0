"""Privacy: an isolated agent's process holds only its own utility and view; views are
read-only. In-process mode is for trusted code only (the test shows why)."""

from __future__ import annotations

from pathlib import Path

import pytest
from tournament_helpers import F, T, table

from accord.core.negotiator import NegotiatorView, OfferLog
from accord.tournament.config import TournamentConfig
from accord.tournament.executors import SerialExecutor
from accord.tournament.runner import run_tournament


def snooping(isolated: bool) -> TournamentConfig:
    return TournamentConfig(
        agents=(f"Snoop={F}Snoop", f"{T}Boulware"),
        scenarios=("builtin:tiny",),
        self_play=False,
        pairing="combinations",
        isolated=isolated,
    )


def test_an_isolated_agent_cannot_reach_the_opponent_utility(tmp_path: Path) -> None:
    """One session per sandbox at a time (``multiplex=False``): nothing of another
    session is reachable."""
    out = tmp_path / "iso.sqlite"
    run = run_tournament(snooping(isolated=True), out, SerialExecutor(multiplex=False))
    assert run.ran == 2
    rows = table(out, "SELECT reason, failure_agent, failure_message FROM sessions")
    assert all(agent is None for _, agent, _ in rows), rows  # neither frames nor gc found one


def test_in_process_agents_can_reach_it_so_that_mode_is_for_trusted_code(tmp_path: Path) -> None:
    out = tmp_path / "inproc.sqlite"
    run_tournament(snooping(isolated=False), out, "serial")
    rows = table(out, "SELECT failure_agent, failure_message FROM sessions")
    assert {a for a, _ in rows} == {"Snoop"}
    assert all("reached another party's utility" in m for _, m in rows)


def test_views_and_the_offer_log_are_read_only() -> None:
    from accord.formats import load_scenario

    sc = load_scenario("lunch")
    log = OfferLog([(0, sc.space.outcome_at(0))])
    view = NegotiatorView(sc.utilities[0], 0, ["a", "b"], log, (0, 0))
    assert not hasattr(view.offers, "append") and not hasattr(view.offers, "extend")
    with pytest.raises(TypeError):
        view.offers[0] = (1, sc.space.outcome_at(1))  # type: ignore[index]
    with pytest.raises(AttributeError):
        view.time = 0.5  # type: ignore[misc]
    with pytest.raises(AttributeError):
        view.utility = sc.utilities[1]  # type: ignore[misc]


@pytest.mark.parametrize("spy", ["Snoop", "Hoarder"])
def test_many_at_once_a_sandbox_never_holds_a_profile_its_opponent_plays(
    tmp_path: Path, spy: str
) -> None:
    """The default (many sessions per sandbox): a spy that searches its process (frames,
    ``gc.get_objects()``, and a module global keeping every utility it was ever given)
    for another profile of the scenario it plays finds none, on a bilateral and on a
    3-party scenario where it also meets itself; without the admission rule it did
    (its sandbox held its sessions on every side at once)."""
    cfg = TournamentConfig(
        agents=(f"Spy={F}{spy}", f"{T}Boulware"),
        scenarios=("builtin:bilateral", "builtin:trilateral"),
        rounds=6,
        sandbox="process",
    )
    out = tmp_path / "many.sqlite"
    ex = SerialExecutor()
    run = run_tournament(cfg, out, ex)
    assert ex.hub is not None and run.ran == run.total == 8 + 24
    rows = table(out, "SELECT failure_agent, failure_message FROM sessions")
    assert rows == [(None, None)] * run.total


def test_each_sandbox_is_given_one_profile_per_scenario_for_its_whole_life() -> None:
    """Admission, exactly: every agent gets one sandbox per side it plays (2 on the
    bilateral scenario, 3 on the 3-party one: one sandbox can take a side of each), and
    each sandbox was only ever given one profile of each scenario; a second run in the
    same process reuses them without mixing sides."""
    from accord.tournament.admission import holds_of
    from accord.tournament.isolation import _idle, close_sandboxes
    from accord.tournament.multiplex import Hub
    from accord.tournament.scenarios import resolve_scenarios
    from accord.tournament.schedule import schedule
    from accord.tournament.session import RunContext, Task

    cfg = TournamentConfig(
        (f"{T}Boulware", f"{T}Linear"),
        ("builtin:bilateral", "builtin:trilateral"),
        rounds=4,
        sandbox="process",
    )
    scenarios = resolve_scenarios(cfg.scenarios, cfg.discretize)
    ctx = RunContext.from_config(cfg, scenarios)
    tasks = [Task(s) for s in schedule(cfg, scenarios)]
    try:
        for _ in range(2):
            hub = Hub(ctx)
            assert len([r for batch in hub.run(tasks) for r in batch]) == len(tasks)
            where = {
                hub.ids(s, p): (s, p) for s in scenarios for p in range(len(scenarios[s].utilities))
            }
            boxes = {k[0]: v for k, v in _idle.items() if v}
            assert sorted(boxes) == ["Boulware", "Linear"]
            for agent_boxes in boxes.values():
                assert len(agent_boxes) == 3  # the most sides it plays in one scenario
                given = [sorted(where[u] for u in holds_of(b).mine) for b in agent_boxes]
                for profiles in given:
                    names = [s for s, _ in profiles]
                    assert len(names) == len(set(names)) >= 1  # one profile per scenario
                played = sorted(p for profiles in given for p in profiles)
                assert played == sorted(where.values())  # every side of each, once
    finally:
        close_sandboxes()


def test_one_at_a_time_records_what_it_gives_so_a_reused_sandbox_keeps_to_one_side() -> None:
    """``--sessions-per-sandbox one`` applies the same admission: each session goes to
    a sandbox never given an opponent's profile, and records what it gave; the sandboxes
    it leaves idle, reused by a run of many at once in the same process, still hold one
    profile of each scenario (before, they held every side they had played)."""
    from accord.tournament.admission import holds_of, profile_ids
    from accord.tournament.isolation import _idle, close_sandboxes
    from accord.tournament.multiplex import Hub
    from accord.tournament.scenarios import resolve_scenarios
    from accord.tournament.schedule import schedule
    from accord.tournament.session import RunContext, Task, run_session

    cfg = TournamentConfig(
        (f"{T}Boulware", f"{T}Linear"), ("builtin:bilateral",), rounds=3, sandbox="process"
    )
    scenarios = resolve_scenarios(cfg.scenarios, cfg.discretize)
    ctx = RunContext.from_config(cfg, scenarios)
    tasks = [Task(s) for s in schedule(cfg, scenarios)]
    ids = profile_ids(scenarios)
    (name,) = scenarios
    both = {ids(name, 0), ids(name, 1)}
    close_sandboxes()
    try:
        for many in (False, True):
            if many:
                assert len([r for batch in Hub(ctx).run(tasks) for r in batch]) == len(tasks)
            else:
                records = [run_session(task, ctx) for task in tasks]
                assert [r.session[14] for r in records] == [None] * len(tasks)  # no failure
            boxes = {k[0]: v for k, v in _idle.items() if v}
            assert sorted(boxes) == ["Boulware", "Linear"]
            for agent_boxes in boxes.values():
                assert len(agent_boxes) == 2  # one per side it plays
                given = sorted(sorted(holds_of(b).mine) for b in agent_boxes)
                assert given == sorted([[u] for u in both])  # one side each, recorded
                for b in agent_boxes:
                    assert holds_of(b).theirs == both - holds_of(b).mine
    finally:
        close_sandboxes()
