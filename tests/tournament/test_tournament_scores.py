"""Scores: exact welfare / Nash values, bootstrap intervals, neighbour tests, breakdowns."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from tournament_helpers import small_config

from accord.core.errors import ConfigError
from accord.tournament.results import Results
from accord.tournament.runner import run_tournament
from accord.tournament.schedule import schedule
from accord.tournament.scores import (
    agent_vs_agent,
    bootstrap_ci,
    by_scenario,
    compare,
    leaderboard,
    leaderboards,
    statistic,
)


def hand_results(tmp_path: Path) -> pd.DataFrame:
    """Write two sessions by hand and read them back through ``Results``."""
    import sqlite3

    from accord.tournament.store import Store

    out = tmp_path / "hand.sqlite"
    Store(out).close()
    with sqlite3.connect(out) as c:
        c.execute("INSERT INTO meta VALUES ('config', '{}')")
        for sid, idx, agents in (("s1", 0, '["A","B"]'), ("s2", 1, '["A","C","B"]')):
            c.execute(
                "INSERT INTO specs VALUES (?,?,?,?,?,?,?,?)",
                (sid, idx, "x", agents, "[0,1]", 0, 0, 1),
            )
            c.execute(
                "INSERT INTO sessions VALUES (" + ",".join("?" * 20) + ")",
                (
                    sid,
                    idx,
                    "x",
                    0,
                    0,
                    "[1]",
                    "agreement",
                    None,
                    0.5,
                    3,
                    2,
                    None,
                    None,
                    None,
                    None,
                    None,
                    0.1,
                    0.0,
                    0.1,
                    "h",
                ),
            )
        c.executemany(
            "INSERT INTO parties VALUES (?,?,?,?,?,?,?)",
            [
                ("s1", 0, "A", 0, "p0", 0.6, 0.2),
                ("s1", 1, "B", 1, "p1", 0.5, 0.3),
                ("s2", 0, "A", 0, "p0", 0.9, 0.5),
                ("s2", 1, "C", 1, "p1", 0.4, 0.1),
                ("s2", 2, "B", 2, "p2", 0.5, 0.6),
            ],
        )
    res = Results(out)
    df = res.parties
    res.close()
    return df


def test_welfare_and_nash_exact_values(tmp_path: Path) -> None:
    df = hand_results(tmp_path).set_index(["session_id", "agent"])
    # session 1: welfare 0.6 + 0.5, Nash 0.6 * 0.5, gains (0.4, 0.2)
    assert df.loc[("s1", "A"), "welfare"] == pytest.approx(1.1, abs=1e-15)
    assert df.loc[("s1", "B"), "nash"] == pytest.approx(0.30, abs=1e-15)
    assert df.loc[("s1", "A"), "nash_gain"] == pytest.approx(0.4 * 0.2, abs=1e-15)
    # session 2: welfare 1.8, Nash 0.9 * 0.4 * 0.5 = 0.18; B is below its reservation so
    # its gain is clipped to 0 and the gain product is 0
    assert df.loc[("s2", "C"), "welfare"] == pytest.approx(1.8, abs=1e-15)
    assert df.loc[("s2", "C"), "nash"] == pytest.approx(0.18, abs=1e-15)
    assert df.loc[("s2", "C"), "nash_gain"] == 0.0
    assert df.loc[("s2", "C"), "n_parties"] == 3


def test_leaderboards_from_hand_values(tmp_path: Path) -> None:
    df = hand_results(tmp_path)
    util = leaderboard(df, "utility", n_boot=500)
    assert util["agent"].tolist() == ["A", "B", "C"]
    assert util["score"].tolist() == pytest.approx([0.75, 0.5, 0.4], abs=1e-15)
    assert util["n"].tolist() == [2, 2, 1]
    assert util["rank"].tolist() == [1, 2, 3]
    welfare = leaderboard(df, "welfare", n_boot=500)
    # A and B sat in both sessions (mean welfare 1.45), C only in session 2 (1.8)
    assert dict(zip(welfare.agent, welfare.score, strict=True)) == pytest.approx(
        {"C": 1.8, "A": 1.45, "B": 1.45}, abs=1e-15
    )
    assert welfare["agent"].tolist() == ["C", "A", "B"]  # ties by name
    nash = leaderboard(df, "nash", n_boot=500)
    assert nash.set_index("agent").loc["A", "score"] == pytest.approx((0.30 + 0.18) / 2)
    assert set(leaderboards(df, n_boot=100)) == {"utility", "welfare", "nash"}


def test_truncated_mean_exact() -> None:
    assert statistic([1, 2, 3, 4, 100]) == 22.0
    assert statistic([1, 2, 3, 4, 100], trim=0.2) == 3.0
    # 10 values, trim 0.1 drops one from each end
    assert statistic(np.arange(10.0) ** 2, trim=0.1) == pytest.approx(
        np.mean(np.arange(1, 9.0) ** 2)
    )
    with pytest.raises(ConfigError, match="trim must be in \\[0, 0.5\\), got 0.5"):
        statistic([1.0], trim=0.5)


def test_bootstrap_matches_a_direct_computation() -> None:
    x = np.random.default_rng(1).random(37)
    lo, hi = bootstrap_ci(x, n_boot=1000, seed=5, block=1000)
    rng = np.random.default_rng(5)
    means = x[rng.integers(0, x.size, size=(1000, x.size))].mean(axis=1)
    assert (lo, hi) == tuple(np.quantile(means, [0.025, 0.975]))
    # blocking does not change the draws
    assert bootstrap_ci(x, n_boot=1000, seed=5, block=7) == (lo, hi)
    assert lo < x.mean() < hi
    assert bootstrap_ci(x, n_boot=1000, seed=6) != (lo, hi)
    assert bootstrap_ci([0.3] * 10) == pytest.approx((0.3, 0.3), abs=1e-15)
    tlo, thi = bootstrap_ci(x, trim=0.1, n_boot=500, seed=5)
    assert tlo < stats.trim_mean(x, 0.1) < thi


def test_neighbour_tests_use_scipy_values() -> None:
    a, b = [0.9, 0.8, 0.85, 0.95, 0.7], [0.1, 0.3, 0.2, 0.25, 0.4]
    assert compare(a, b) == stats.mannwhitneyu(a, b, alternative="two-sided").pvalue
    assert compare(a, a) == pytest.approx(1.0)
    assert compare([0.5, 0.5], [0.5, 0.5, 0.5]) == 1.0
    p = compare(a, b, test="permutation")
    assert 0 < p < 0.05
    with pytest.raises(ConfigError, match="test must be one of"):
        compare(a, b, test="t")
    df = pd.DataFrame({"agent": ["A"] * 5 + ["B"] * 5, "utility": a + b})
    board = leaderboard(df, n_boot=200)
    assert board["differs_next"].tolist() == [True, False]
    assert board["p_next"].iloc[0] == pytest.approx(compare(a, b))
    assert np.isnan(board["p_next"].iloc[1])


def test_breakdowns_and_bad_metric(tmp_path: Path) -> None:
    df = hand_results(tmp_path)
    vs = agent_vs_agent(df)
    assert vs.loc["A", "B"] == pytest.approx(0.75)  # A met B in both sessions
    assert vs.loc["A", "C"] == pytest.approx(0.9)
    assert vs.loc["C", "A"] == pytest.approx(0.4)
    assert np.isnan(vs.loc["A", "A"])
    per = by_scenario(df)
    assert per.loc["A", "x"] == pytest.approx(0.75)
    with pytest.raises(ConfigError, match="unknown score 'profit'"):
        leaderboard(df, "profit")


def test_scores_of_a_real_run_are_reproducible(tmp_path: Path) -> None:
    out = tmp_path / "t.sqlite"
    run_tournament(small_config(reps=1), out)
    res = Results(out)
    one = leaderboard(res.parties, "utility", n_boot=300, seed=3)
    two = leaderboard(res.parties, "utility", n_boot=300, seed=3)
    pd.testing.assert_frame_equal(one, two)
    for r in one.itertuples():
        assert r.ci_low <= r.score <= r.ci_high
    res.close()


def test_identical_repetitions_do_not_narrow_the_interval(tmp_path: Path) -> None:
    """Deterministic agents repeat bit-identical sessions: three copies are one unit."""
    from tournament_helpers import small_config

    from accord.tournament.results import Results
    from accord.tournament.runner import run_tournament
    from accord.tournament.scores import leaderboard

    boards = {}
    for reps in (1, 3):
        out = tmp_path / f"r{reps}.sqlite"
        run_tournament(small_config(reps=reps, seed=5), out)
        res = Results(out)
        boards[reps] = leaderboard(res.parties, "utility", n_boot=500)
        res.close()
    one, three = boards[1], boards[3]
    assert one.agent.tolist() == three.agent.tolist()
    assert (three.n == 3 * one.n).all()
    assert (three.n_eff == one.n_eff).all()  # effective n does not grow with copies
    assert three.score.tolist() == pytest.approx(one.score.tolist())
    assert three.ci_low.tolist() == pytest.approx(one.ci_low.tolist())
    assert three.ci_high.tolist() == pytest.approx(one.ci_high.tolist())
    # units: every session setup of the agent (scenario x opponents x role) once
    setups = {(s.scenario, s.agents, s.rotation) for s in schedule(small_config(reps=1))}
    for r in one.itertuples():
        assert r.n_eff == sum(r.agent in a for _, a, _ in setups)


def test_each_repetition_has_its_own_seed_so_stochastic_agents_differ(tmp_path: Path) -> None:
    from tournament_helpers import table

    from accord.tournament.config import TournamentConfig
    from accord.tournament.runner import run_tournament

    cfg = TournamentConfig(
        ["R=accord.agents.simple:RandomNegotiator", "accord.agents.timebased:Boulware"],
        ["builtin:bilateral"],
        reps=3,
        seed=2,
    )
    specs = schedule(cfg)
    by_setup: dict[tuple[object, ...], set[int]] = {}
    for s in specs:
        by_setup.setdefault((s.scenario, s.agents, s.rotation), set()).add(s.seed)
    assert all(len(seeds) == 3 for seeds in by_setup.values())
    out = tmp_path / "r.sqlite"
    run_tournament(cfg, out)
    rows = table(
        out,
        "SELECT sp.agents, sp.rotation, t.outcomes FROM traces t JOIN specs sp "
        'ON sp.id = t.session_id WHERE sp.agents = \'["R", "R"]\'',
    )
    by: dict[tuple[object, ...], set[object]] = {}
    for agents, rot, outcomes in rows:
        by.setdefault((agents, rot), set()).add(outcomes)
    assert by and all(len(v) == 3 for v in by.values())  # three different negotiations
