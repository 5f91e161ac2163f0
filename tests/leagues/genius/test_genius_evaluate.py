"""Section 4: the KBAgent against the PDA pool; intervals with each opponent as the unit."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from accord.leagues.genius.evaluate import (
    Record,
    evaluate,
    people_records,
    round_robin,
    summarise,
)
from accord.leagues.genius.loading import load_domain
from accord.leagues.genius.match import Match
from accord.leagues.genius.pdas import PDAS, make_agent
from accord.leagues.genius.store import GeniusStore

# Three type pairs cover every type of both sides once and keep the test near 10 s.
PAIRS = [(0, 1), (1, 2), (2, 0)]


def test_the_kbagent_is_above_the_pdas_median_on_both_domains() -> None:
    table = round_robin(["kbagent", *PDAS], ["job_candidate", "england_zimbabwe"], type_pairs=PAIRS)
    for domain, means in table.items():
        pdas = [v for k, v in means.items() if k != "kbagent"]
        assert len(pdas) >= 8
        assert means["kbagent"] > float(np.median(pdas)), (domain, means)


def test_every_pda_is_distinct_and_ends_sessions_cleanly() -> None:
    d = load_domain("england_zimbabwe")
    utilities = {}
    for name in PDAS:
        r = Match(d, [make_agent(name), make_agent("conceder")], (0, 2), seed=5).run()
        assert r.invalid == (0, 0), name
        utilities[name] = r.utilities
    assert len(PDAS) >= 8 and len(set(utilities.values())) >= 6


def test_pdas_are_reproducible_from_their_seed() -> None:
    d = load_domain("job_candidate")
    runs = [
        Match(d, [make_agent("bayes"), make_agent("coin")], (1, 1), seed=4).run() for _ in range(2)
    ]
    assert runs[0].to_dict() == runs[1].to_dict()


def test_evaluation_covers_every_type_pair_both_sides_and_repetitions() -> None:
    recs = evaluate("kbagent", ["job_candidate"], pool=["conceder", "optout"], reps=2)
    assert len(recs) == 2 * 2 * 9 * 2
    assert {(r.side, r.agent_type, r.opponent_type) for r in recs} == {
        (s, a, b) for s in (0, 1) for a in range(3) for b in range(3)
    }


def _rec(opponent: str, utility: float) -> Record:
    return Record("d", "a", opponent, 0, 0, 0, 0, utility, 0.0, "agreement", True, True, False, 3)


def test_intervals_treat_each_opponent_as_the_unit() -> None:
    # opponent x: 10 sessions at 100; opponent y: 1 session at 200 -> unit means 100, 200
    recs = [_rec("x", 100.0)] * 10 + [_rec("y", 200.0)]
    s = summarise(recs)
    assert s["utility"].mean == 150.0 and s["utility"].n == 2
    # t(0.975, 1) = 12.7062; sd = 70.7107; half = 12.7062 * 70.7107 / sqrt(2) = 635.31
    assert s["utility"].high - 150.0 == pytest.approx(12.706204736 * 50.0, rel=1e-6)
    assert math.isnan(summarise([_rec("x", 1.0)])["utility"].low)


def test_people_sessions_in_the_store_are_compared_per_person(tmp_path: Path) -> None:
    d = load_domain("job_candidate")
    with GeniusStore(tmp_path / "g.sqlite") as store:
        for k, person in enumerate(["p001", "p002"]):
            m = Match(d, [make_agent("kbagent"), make_agent("fair")], (0, k), seed=k)
            m.run()
            store.save(m.session, f"s{k}", ("agent:kbagent", person), population="people")
        recs = people_records(store, "kbagent", "job_candidate")
    assert [r.opponent for r in recs] == ["p001", "p002"]
    assert summarise(recs)["utility"].n == 2
