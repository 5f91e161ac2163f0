"""Section 8 and Appendix A.3: the rotation of the worked example, the basic
configuration draws, isolated worlds of the collusion track and the score as the
truncated mean of equation 3 over all worlds."""

from __future__ import annotations

import math
from collections import defaultdict

import pytest

from accord.leagues.scml.generate import generate_config
from accord.leagues.scml.runner import run_tournament, run_world
from accord.leagues.scml.tournament import TournamentSpec, build_schedule, truncated_mean
from accord.leagues.scml.world import World

A3 = ["A0", "A1", "A2"]  # the agent types of the worked example (schedule only)


def test_rotation_of_the_worked_example():
    spec = TournamentSpec(
        A3, track="collusion", n_configs=2, n_per_world=3, n_repetitions=2, non_competitors=("OC",)
    )
    mains = [r for r in build_schedule(spec) if r.kind == "collusion"]
    assert len(mains) == 2 * 2 * 3  # K M C(C, M) = 2 x 3 x 1 per basic configuration
    for b in range(2):
        runs = [r for r in mains if r.config_index == b]
        first = [r for r in runs if r.rotation == 0]
        sets = [first[0].groups[t] for t in A3]  # B_i is the set given to A_i first
        # rotation 1: B_0 -> A_1, B_1 -> A_2, B_2 -> A_0; rotation 2: B_0 -> A_2, ...
        for r in runs:
            for j, fs in enumerate(sets):
                assert r.groups[A3[(j + r.rotation) % 3]] == fs
        assert sorted((r.rotation, r.repetition) for r in runs) == [
            (i, k) for i in range(3) for k in range(2)
        ]
        # every agent type meets every factory set K times
        seen = defaultdict(int)
        for r in runs:
            for t, fs in r.groups.items():
                seen[(t, fs)] += 1
        assert set(seen.values()) == {2} and len(seen) == 9
        # the leftover factories go to the organisers' agents
        assigned = {f for fs in sets for f in fs}
        for r in runs:
            others = [a for f, a in enumerate(r.agents) if f not in assigned]
            assert set(others) <= {"OC"}


def test_basic_configuration_draws_of_a3():
    spec = TournamentSpec(
        ["a", "b", "c", "d"],
        track="collusion",
        n_configs=40,
        n_per_world=3,
        n_steps=10,
        non_competitors=("donothing",),
        seed=2,
    )
    runs = [r for r in build_schedule(spec) if r.kind == "collusion"]
    copies_seen, levels_seen = set(), set()
    for b in range(40):
        rs = [r for r in runs if r.config_index == b]
        assert len(rs) == 3 * math.comb(4, 3)  # K M C(C, M) with K = 1
        assert len({(r.config_seed, r.factories_per_level) for r in rs}) == 1
        counts = rs[0].factories_per_level
        levels_seen.add(len(counts))
        assert 2 <= len(counts) <= 5 and min(counts) >= 2  # L ~ U{2..5}, |A|_l >= 2
        sets = list(rs[0].groups.values())
        (a_i,) = {len(fs) for fs in sets}  # each set has A_i factories
        copies_seen.add(a_i)
        assert 2 <= a_i <= 4  # collusion: A_i ~ U{2..4}
        assert sum(counts) >= a_i * 3  # enough factories for A_i x M assignable ones
        flat = [f for fs in sets for f in fs]
        assert len(set(flat)) == len(flat) == a_i * 3  # a partition into M disjoint sets
        for r in rs:
            assert sorted(f for fs in r.groups.values() for f in fs) == sorted(flat)
    assert copies_seen == {2, 3, 4} and levels_seen == {2, 3, 4, 5}
    std = build_schedule(TournamentSpec(["a", "b", "c"], n_configs=5, n_per_world=3))
    assert {len(fs) for r in std for fs in r.groups.values()} == {1}  # A_i = 1


def test_the_collusion_track_runs_one_isolated_world_per_factory_of_each_set():
    spec = TournamentSpec(
        ["trader", "random"],
        track="collusion",
        n_configs=1,
        n_per_world=2,
        n_steps=6,
        non_competitors=("donothing",),
        seed=5,
    )
    runs = build_schedule(spec)
    for main in (r for r in runs if r.kind == "collusion"):
        iso = [r for r in runs if r.parent == main.id]
        for t, fs in main.groups.items():
            mine = [r for r in iso if t in r.groups]
            # M isolated worlds: the competitor controls exactly one of its factories
            assert sorted(r.groups[t] for r in mine) == [(f,) for f in fs]
            for r in mine:
                assert [f for f, a in enumerate(r.agents) if a == t] == list(r.groups[t])
                assert (r.config_seed, r.seed) == (main.config_seed, main.seed)
                (f,) = r.groups[t]
                for g in set(fs) - {f}:
                    assert r.agents[g] == "donothing"  # non-competitors run the rest


def test_scores_are_truncated_means_of_equation_3_over_all_worlds(tmp_path):
    spec = TournamentSpec(
        ["trader", "random"],
        n_configs=2,
        n_per_world=2,
        n_steps=6,
        trim_top=1,
        trim_bottom=1,
        seed=1,
        isolation="none",
    )
    res = run_tournament(spec, tmp_path / "t.sqlite", executor="serial")
    per_type = defaultdict(list)
    for w in res.worlds:
        run = w["run"]
        cfg = generate_config(
            n_steps=run.n_steps,
            factories_per_level=list(run.factories_per_level),
            seed=run.config_seed,
        )
        world = World(cfg, list(run.agents), seed=run.seed).run()
        expected = world.type_scores({t: list(fs) for t, fs in run.groups.items()})
        assert w["scores"] == pytest.approx(expected, rel=1e-12)  # eq. 3 per type and world
        assert run_world(run)["scores"] == w["scores"]  # a world is a pure function of its run
        for t, s in w["scores"].items():
            per_type[t].append(s)
    for t in spec.competitors:
        scores = per_type[t]
        assert len(scores) == 4  # K M C(C, M) x 2 configurations
        assert res.scores[t]["score"] == pytest.approx(truncated_mean(scores, 1, 1))
        assert res.scores[t]["score"] == pytest.approx(sum(sorted(scores)[1:3]) / 2)
        assert res.scores[t]["mean"] == pytest.approx(sum(scores) / 4)
