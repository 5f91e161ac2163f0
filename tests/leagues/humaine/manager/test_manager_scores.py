"""Accumulated scores, pool standings and the championship hand-over."""

from __future__ import annotations

import numpy as np
import pytest

from accord.leagues.humaine.manager.schedule import (
    match_winners,
    plan_knockout,
    plan_pool_play,
    qualifiers,
)
from accord.leagues.humaine.manager.scores import (
    RoundOutcome,
    agent_utilities_from_totals,
    pool_standings,
    standings,
)

CAPTURED_TOTALS = {
    "Human": {
        "quantity": {"egg": 6, "flour": 6, "milk": 1, "sugar": 1},
        "cost": 13.27,
        "utility": {"currencyUnit": "USD", "value": 23.81, "breakdown": {}},
    },
    "Watson": {"revenue": 8.21, "utility": {"currencyUnit": "USD", "value": 4.04}},
    "Celia": {"revenue": 5.06, "utility": {"currencyUnit": "USD", "value": 0.26}},
}


def test_totals_of_the_captured_round_map_to_the_agents_behind_the_avatars():
    agents, human = agent_utilities_from_totals(CAPTURED_TOTALS, celia="kleene", watson="jok")
    assert agents == {"kleene": 0.26, "jok": 4.04}
    assert human == 23.81


@pytest.mark.parametrize(
    ("totals", "match"),
    [
        ({"Celia": 3}, "must be an object with a 'utility' object; got 3"),
        ({"Celia": {"utility": {"value": "x"}}}, "must be a number; got 'x'"),
    ],
)
def test_malformed_totals_are_refused(totals, match):
    with pytest.raises(ValueError, match=match):
        agent_utilities_from_totals(totals, "a", "b")


def test_standings_accumulate_and_rank_with_ties():
    out = [
        RoundOutcome(1, "pool", "A", {"a": 2.5, "b": 1.0}, "h1", 20.0),
        RoundOutcome(2, "pool", "A", {"b": 1.0, "a": -0.5}, "h2", 30.0),
        RoundOutcome(3, "final", "F", {"a": 10.0, "c": 1.0}, "h1", 5.0),
    ]
    got = [(s.rank, s.name, s.rounds, s.total, s.mean) for s in standings(out, "agent")]
    assert got == [(1, "a", 3, 12.0, 4.0), (2, "b", 2, 2.0, 1.0), (3, "c", 1, 1.0, 1.0)]
    pool_only = standings(out, "agent", stages=["pool"])
    assert [(s.rank, s.name, s.total) for s in pool_only] == [(1, "a", 2.0), (1, "b", 2.0)]
    humans = standings(out, "human", names=["h3"])
    assert [(s.name, s.total) for s in humans] == [("h2", 30.0), ("h1", 25.0), ("h3", 0.0)]
    with pytest.raises(ValueError, match="kind must be"):
        standings(out, "robot")  # type: ignore[arg-type]


def test_dummy_is_flagged_on_the_leaderboard():
    out = [RoundOutcome(1, "pool", "A", {"dummy-1": 9.0, "a": 1.0}, "h", 0.0)]
    rows = standings(out, "agent")
    assert [(r.name, r.dummy) for r in rows] == [("dummy-1", True), ("a", False)]


def test_pool_play_to_final_end_to_end():
    """Plan pools, score them, qualify, play semis and a final: the winners follow the sums."""
    rng = np.random.default_rng(11)
    agents = ["a", "b", "c", "d", "e", "f", "g"]
    skill = {"a": 5, "b": 1, "c": 4, "d": 2, "e": 6, "f": 3, "g": 0, "dummy-1": 7}
    humans = ["h1", "h2"]
    plan = plan_pool_play(agents, humans, 2, rng)
    outcomes = [
        RoundOutcome(
            r.number, r.stage, r.group, {a: float(skill[a]) for a in r.agents}, r.human, 1.0
        )
        for r in plan.rounds
    ]
    ranked = pool_standings(outcomes, plan.groups)
    for group, order in ranked.items():
        assert order == sorted(plan.groups[group], key=lambda a: -skill[a])
    seeds = qualifiers(ranked, 2)
    assert "dummy-1" not in seeds and len(seeds) == 4
    semi = plan_knockout(seeds, humans, rng, 2, first_number=len(plan.rounds) + 1)
    res = {r.number: {a: float(skill[a]) for a in r.agents} for r in semi.rounds}
    finalists = match_winners(semi, res)
    final = plan_knockout(finalists, humans, rng, 2, first_number=semi.rounds[-1].number + 1)
    res_f = {r.number: {a: float(skill[a]) for a in r.agents} for r in final.rounds}
    (champion,) = match_winners(final, res_f)
    assert champion == max(seeds, key=lambda a: skill[a])
