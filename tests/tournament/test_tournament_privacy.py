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
    session is reachable. (Run many at once, the default, a process holds its agent's
    own concurrent sessions, so their utilities too: see docs/sandbox.md.)"""
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
