"""Red team, HAN: hostile agents' games end recorded against them with their reason
(the game goes on, or ends with both BATNAs when the process is gone), and the other
games of a tournament are exactly those of a run without them."""

from __future__ import annotations

from pathlib import Path

import pytest

from accord.leagues.han.domain import EXAMPLE_1
from accord.leagues.han.isolation import isolated_factory
from accord.leagues.han.participants import Cooperative
from accord.leagues.han.play import play
from accord.leagues.han.tournament import run_tournament

pytestmark = pytest.mark.needs_bwrap
H = "hostile_han"
SHORT = EXAMPLE_1.with_time(20.0)
CASES = {
    "Pickler": ("left", "frame of kind 80"),
    "Partial": ("left", "did not answer within 1 s"),
    "Exiter": ("left", "exit code 6"),
    "Snoop": ("timeout", "contained: nothing found"),
    "KbInt": ("timeout", "KeyboardInterrupt"),
    "SysExit": ("timeout", "SystemExit: 9"),
    "Flood": ("timeout", "contained: flooded"),
}


@pytest.mark.parametrize("cls", sorted(CASES))
def test_a_hostile_agent_is_recorded_and_its_game_ends_cleanly(cls: str) -> None:
    outcome, why = CASES[cls]
    rec = play(SHORT, isolated_factory(f"{H}:{cls}", timeout=1.0), Cooperative)
    assert rec.result.outcome == outcome
    reasons = [v.reason for v in rec.result.violations if v.side == "agent"]
    assert reasons and why in reasons[0], reasons
    if outcome == "left":
        assert rec.result.points == {"agent": SHORT.batna("agent"), "person": SHORT.batna("person")}
    assert not Path("/tmp/accord-han-pwned").exists()


def test_the_other_games_of_a_tournament_are_unchanged() -> None:
    def rows(agents: list[str]) -> list[dict]:
        res = run_tournament(agents, ["cooperative"], games=["example-1"], time_limit=20.0)
        return sorted(
            (g for g in res["games"] if g["agent"] == "fair"), key=lambda g: g["row"]["id"]
        )

    with_hostiles = rows(["fair", f"{H}:Pickler", f"{H}:Exiter"])
    alone = rows(["fair"])
    keep = ("outcome", "points", "person_points", "invalid")
    assert [{k: g[k] for k in keep} for g in with_hostiles] == [
        {k: g[k] for k in keep} for g in alone
    ]
