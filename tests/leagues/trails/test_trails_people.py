"""Simulated people: each model's rule on a hand-made state, and the population report
that sets agents beside PDAs, simulated people and logged people."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
import pytest

from accord.leagues.trails.agent import make_view
from accord.leagues.trails.analysis import population_report
from accord.leagues.trails.board import Board
from accord.leagues.trails.engine import Game, Propose, Setup, TurnRecord
from accord.leagues.trails.generator import CLASSES, generate
from accord.leagues.trails.match import AGENTS, play
from accord.leagues.trails.people import (
    SIMULATED_PEOPLE,
    Cooperative,
    Forgetful,
    Opportunist,
    Reciprocal,
)

# player 0 at cell 0 needs a B (cell 1) then an A (cell 2); player 1 the reverse way
SETUP = Setup(Board.parse(["ABA"]), (0, 2), (2, 0), ((3, 1), (1, 2)))


def _view(agent: object, me: int = 0) -> object:
    agent.start(me, np.random.default_rng(0))  # type: ignore[attr-defined]
    return make_view(Game(SETUP), me)


def test_reciprocal_mirrors_the_partners_last_share() -> None:
    agent = Reciprocal()
    view = _view(agent)
    assert agent.transfer(view, (2, 1), (0, 1)) == (2, 1)  # first deal: in full
    rec = TurnRecord(0, 0, Propose((2, 0), (0, 2)), accepted=True)
    rec.promised, rec.sent = [[2, 0], [0, 2]], [[2, 0], [0, 1]]  # the partner sent 1 of 2
    agent.observe(view, rec)  # type: ignore[arg-type]
    assert agent.share == 0.5
    assert agent.transfer(view, (2, 2), (0, 1)) == (2, 0)  # half of 4, colour by colour
    rec.sent = [[2, 0], [0, 0]]
    agent.observe(view, rec)  # type: ignore[arg-type]
    assert agent.transfer(view, (2, 2), (0, 1)) == (0, 0)
    rejected = TurnRecord(1, 1, Propose((1, 0), (0, 1)), accepted=False)
    agent.observe(view, rejected)  # type: ignore[arg-type]
    assert agent.share == 0.0  # a rejected offer is no deal: nothing changes


def test_opportunist_keeps_its_word_only_while_it_needs_the_partner() -> None:
    agent = Opportunist()
    view = _view(agent)  # player 0 holds an A and a B: it can reach its goal
    assert view.independent(0, view.chips)  # type: ignore[attr-defined]
    assert agent.transfer(view, (1, 0), (0, 1)) == (0, 0)
    needy = Setup(Board.parse(["ABA"]), (0, 2), (2, 0), ((3, 0), (1, 2)))
    agent.start(0, np.random.default_rng(0))
    view = make_view(Game(needy), 0)
    assert not view.independent(0, view.chips)
    assert agent.transfer(view, (1, 0), (0, 1)) == (1, 0)
    # it accepts only a gain: a B for an A frees it (gain), an A for nothing does not
    assert agent.respond(view, Propose((0, 1), (1, 0)))
    assert not agent.respond(view, Propose((0, 0), (1, 0)))


def test_cooperative_accepts_a_small_loss_and_keeps_its_word() -> None:
    agent = Cooperative()
    view = _view(agent)  # best now: at the goal with 2 chips left: 100 + 10
    assert agent.respond(view, Propose((0, 0), (1, 0)))  # gives a spare A: -5
    assert not agent.respond(view, Propose((0, 0), (2, 0)))  # two: -10
    assert not agent.respond(view, Propose((0, 0), (0, 2)))  # more Bs than it holds
    assert agent.transfer(view, (2, 0), (0, 0)) == (2, 0)


def test_forgetful_sends_each_chip_with_its_probability() -> None:
    agent = Forgetful()
    view = _view(agent)
    sent = sum(sum(agent.transfer(view, (3, 1), (0, 0))) for _ in range(500))
    assert 0.65 < sent / 2000 < 0.75  # keep = 0.7, 2000 chips
    agent.keep = 1.0
    assert agent.transfer(view, (3, 1), (0, 0)) == (3, 1)


@pytest.mark.parametrize("cls", CLASSES)
def test_simulated_people_play_every_class_cleanly(cls: str) -> None:
    assert set(SIMULATED_PEOPLE) <= set(AGENTS)
    for name in SIMULATED_PEOPLE:
        r = play(generate(cls, 4), [name, "purb"], seed=2)
        assert r["end"] is not None and not r["violations"] and r["agents"][0] == name


def _study_csv(path: Path) -> Path:
    history = [
        {
            "turn": 0,
            "proposer": 0,
            "give": [1, 0],
            "take": [0, 1],
            "accepted": True,
            "promised": [[1, 0], [0, 1]],
            "sent": [[0, 0], [0, 1]],
        }
    ]
    data = {"player": 0, "scores": [-10, 15], "history": history, "condition": "mutual-vs-purb"}
    with path.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["seq", "time", "at", "stream", "party", "kind", "data"])
        w.writerow([1, "t", 0.0, "trails", "p1", "trails.end", json.dumps(data)])
    return path


def test_population_report_sets_agents_beside_three_populations(tmp_path: Path) -> None:
    pdas, sims = ["reliable", "unreliable"], ["sim-cooperative", "sim-opportunist"]
    report = population_report(
        ["purb"], pdas, sims, study=_study_csv(tmp_path / "events.csv"), boards=1, seed=3
    )
    assert set(report) == {
        "agents-vs-pdas",
        "agents-vs-simulated-people",
        "people",
        "agents-vs-people",
    }
    assert set(report["agents-vs-pdas"]) == {"purb", *pdas}
    assert set(report["agents-vs-simulated-people"]) == {"purb", *sims}
    # purb meets each of the 2 members on 3 boards (one a class) in both seats; a member
    # meets the other member in both seats and itself once a board (a self-play game is
    # one unit: its two seats are not independent)
    assert report["agents-vs-simulated-people"]["purb"]["games"] == 2 * 3 * 2
    assert report["agents-vs-simulated-people"]["sim-cooperative"]["games"] == 3 * 2 + 3
    assert report["agents-vs-pdas"]["reliable"]["kept"] == 1.0
    assert report["people"]["person"] == {
        "games": 1,
        "n": 1,
        "score": -10.0,
        "score_ci95": None,
        "goal_rate": 0.0,
        "kept": 0.0,
        "reliability": round(0.9 / 1.9, 3),
    }
    assert report["agents-vs-people"]["purb"]["score"] == 15.0
    assert report["agents-vs-people"]["purb"]["kept"] == 1.0
