"""Pool scheduling of the HUMAINE competition manager (section 1, Appendix E)."""

from __future__ import annotations

from collections import Counter, defaultdict
from itertools import combinations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from accord.leagues.humaine.manager.schedule import (
    ScheduleError,
    StagePlan,
    is_dummy,
    knockout_stage_name,
    make_pools,
    match_winners,
    plan_knockout,
    plan_pool_play,
    qualifiers,
)


def rng(seed: int = 0) -> np.random.Generator:
    return np.random.default_rng(seed)


def names(n: int, prefix: str = "agent") -> list[str]:
    return [f"{prefix}{i}" for i in range(n)]


def check_stage(plan: StagePlan, humans: list[str], per_pair: int) -> None:
    """Every structural promise of a stage plan (used for pools and knockouts)."""
    members = {g: set(m) for g, m in plan.groups.items()}
    by_pair: dict[frozenset[str], list] = defaultdict(list)
    for r in plan.rounds:
        assert r.celia != r.watson
        assert {r.celia, r.watson} <= members[r.group], "agents of a round share its group"
        by_pair[frozenset(r.agents)].append(r)
    for group, m in plan.groups.items():
        for a, b in combinations(sorted(m), 2):
            meetings = by_pair[frozenset((a, b))]
            assert len(meetings) == per_pair, f"{a} and {b} of {group} meet {per_pair} times"
            # utilities of the pair: each pair (u1, u2) is played both ways
            uses = Counter((r.utility_of(a), r.utility_of(b)) for r in meetings)
            for (ua, ub), n in uses.items():
                assert uses[(ub, ua)] == n, f"{a}/{b} swap utilities: {uses}"
                assert ua != ub
            celia_count = Counter(r.celia for r in meetings)
            assert celia_count[a] == celia_count[b] == per_pair // 2, "avatar names swap too"
    # no seller utility is shared by two different pairs
    owners: dict[int, set[frozenset[str]]] = defaultdict(set)
    for r in plan.rounds:
        owners[r.celia_utility].add(frozenset(r.agents))
        owners[r.watson_utility].add(frozenset(r.agents))
    assert all(len(o) == 1 for o in owners.values())
    assert sorted(owners) == list(range(plan.n_seller_utilities))
    # slots: nobody twice in a slot, at most one round per human per slot
    by_slot: dict[int, list] = defaultdict(list)
    for r in plan.rounds:
        by_slot[r.slot].append(r)
    for rounds in by_slot.values():
        agents = [a for r in rounds for a in r.agents]
        assert len(agents) == len(set(agents))
        assert len({r.human for r in rounds}) == len(rounds) <= len(humans)
    assert [r.number for r in plan.rounds] == sorted(r.number for r in plan.rounds)
    assert [r.slot for r in plan.rounds] == sorted(r.slot for r in plan.rounds)
    # humans: balanced load and buyer utilities drawn from one permuted set
    load = Counter(r.human for r in plan.rounds)
    counts = [load.get(h, 0) for h in humans]
    assert max(counts) - min(counts) <= 1
    assert plan.n_buyer_utilities == max(counts)
    for h in humans:
        seen = [r.buyer_utility for r in plan.rounds if r.human == h]
        assert len(seen) == len(set(seen)), "no buyer utility twice for one human"
        assert list(plan.buyer_orders[h][: len(seen)]) == seen
        assert sorted(plan.buyer_orders[h]) == list(range(plan.n_buyer_utilities))


def test_even_number_of_agents_needs_no_dummy():
    pools = make_pools(names(6), 2, rng())
    assert sorted(len(p) for p in pools.values()) == [3, 3]
    assert sorted(a for p in pools.values() for a in p) == sorted(names(6))


def test_odd_number_of_agents_gets_one_dummy_in_one_pool():
    pools = make_pools(names(7), 2, rng(5))
    assert [len(p) for p in pools.values()] == [4, 4]
    dummies = [a for p in pools.values() for a in p if is_dummy(a)]
    assert dummies == ["dummy-1"]
    assert sorted(a for p in pools.values() for a in p if not is_dummy(a)) == sorted(names(7))


def test_three_pools_fill_with_one_dummy_per_short_pool():
    pools = make_pools(names(7), 3, rng(1))
    assert [len(p) for p in pools.values()] == [3, 3, 3]
    assert [sum(is_dummy(a) for a in p) for p in pools.values()] == [0, 1, 1]


def test_pools_are_random_but_reproducible():
    a = make_pools(names(8), 2, rng(1))
    assert a == make_pools(names(8), 2, rng(1))
    assert any(make_pools(names(8), 2, rng(s)) != a for s in range(2, 6))


@pytest.mark.parametrize(
    ("agents", "pools", "match"),
    [
        (["a", "a", "b"], 1, "unique; repeated: \\['a'\\]"),
        (["a", "dummy-x"], 1, "may not start with 'dummy-'"),
        (["a", "b"], 2, "need at least 4 agents"),
        (["a"], 1, "need at least 2 agents"),
        (["a", "b"], 0, "n_pools must be between 1 and 26; got 0"),
        (["a", ""], 1, "non-empty"),
    ],
)
def test_bad_pool_requests_say_what_is_wrong(agents, pools, match):
    with pytest.raises(ScheduleError, match=match):
        make_pools(agents, pools, rng())


def test_each_pair_meets_twice_with_utilities_swapped():
    humans = names(3, "h")
    plan = plan_pool_play(names(6), humans, 2, rng(2))
    assert plan.stage == "pool"
    assert len(plan.rounds) == 2 * (2 * 3)  # 2 pools x C(3, 2) pairs x 2 meetings
    check_stage(plan, humans, per_pair=2)
    for r1 in plan.rounds:
        (r2,) = [r for r in plan.rounds if r is not r1 and set(r.agents) == set(r1.agents)]
        assert r2.celia == r1.watson and r2.watson == r1.celia
        assert r2.celia_utility == r1.celia_utility  # the seat keeps u1; the agents swap
        assert r2.utility_of(r1.celia) == r1.watson_utility


def test_dummy_plays_its_pool_like_any_agent():
    plan = plan_pool_play(names(5), ["h1", "h2"], 2, rng(4))
    dummy_rounds = [r for r in plan.rounds if any(is_dummy(a) for a in r.agents)]
    assert len(dummy_rounds) == 2 * 2  # the dummy meets its 2 pool mates twice
    check_stage(plan, ["h1", "h2"], per_pair=2)


def test_humans_get_the_same_buyer_utilities_in_different_orders():
    humans = names(4, "h")
    plan = plan_pool_play(names(4), humans, 1, rng(7))  # 12 rounds, 3 per human
    check_stage(plan, humans, per_pair=2)
    sets = {h: sorted(r.buyer_utility for r in plan.rounds if r.human == h) for h in humans}
    assert all(s == [0, 1, 2] for s in sets.values())
    orders = {tuple(r.buyer_utility for r in plan.rounds if r.human == h) for h in humans}
    assert len(orders) > 1, "orders are permuted across humans"


def test_a_single_human_plays_every_round_in_sequence():
    plan = plan_pool_play(names(3), ["solo"], 1, rng(0))
    assert [r.slot for r in plan.rounds] == list(range(6))
    assert sorted(r.buyer_utility for r in plan.rounds) == list(range(6))


def test_rounds_run_in_parallel_when_humans_allow():
    humans = names(3, "h")
    plan = plan_pool_play(names(6), humans, 1, rng(3))  # 30 rounds, 3 disjoint pairs per slot
    check_stage(plan, humans, per_pair=2)
    slots = Counter(r.slot for r in plan.rounds)
    assert max(slots.values()) == 3
    assert len(slots) < 30


def test_opponents_are_ordered_at_random():
    orders = {
        tuple(r.agents for r in plan_pool_play(names(4), ["h"], 1, rng(s)).rounds) for s in range(5)
    }
    assert len(orders) > 1


def test_no_humans_is_a_clear_error():
    with pytest.raises(ScheduleError, match="at least one human"):
        plan_pool_play(names(4), [], 1, rng())


@settings(max_examples=40, deadline=None)
@given(
    n_agents=st.integers(2, 11),
    n_pools=st.integers(1, 3),
    n_humans=st.integers(1, 5),
    seed=st.integers(0, 10_000),
)
def test_pool_plans_keep_every_promise(n_agents, n_pools, n_humans, seed):
    if (n_agents + (-n_agents) % n_pools) // n_pools < 2:
        with pytest.raises(ScheduleError):
            plan_pool_play(names(n_agents), names(n_humans, "h"), n_pools, rng(seed))
        return
    humans = names(n_humans, "h")
    plan = plan_pool_play(names(n_agents), humans, n_pools, rng(seed))
    check_stage(plan, humans, per_pair=2)
    size = len(next(iter(plan.groups.values())))
    assert len(plan.rounds) == n_pools * size * (size - 1)
    if len(plan.rounds) % n_humans == 0:
        for h in humans:
            got = sorted(r.buyer_utility for r in plan.rounds if r.human == h)
            assert got == list(range(plan.n_buyer_utilities))


def test_qualifiers_are_seeded_winners_then_runners_up_without_dummies():
    ranked = {"A": ["a1", "a2", "a3"], "B": ["dummy-1", "b1", "b2"]}
    assert qualifiers(ranked, 1) == ["a1", "b1"]
    assert qualifiers(ranked, 2) == ["a1", "b1", "a2", "b2"]
    with pytest.raises(ScheduleError, match="advance must be 1 or 2"):
        qualifiers(ranked, 3)
    with pytest.raises(ScheduleError, match="at least 2 qualifiers"):
        qualifiers({"A": ["a1"]}, 1)


@pytest.mark.parametrize(
    ("n", "name"), [(2, "final"), (3, "semifinal"), (4, "semifinal"), (6, "quarterfinal")]
)
def test_knockout_stage_names(n, name):
    assert knockout_stage_name(n) == name


def test_semifinals_pair_best_with_worst_seed_and_swap_utilities():
    humans = ["h1", "h2"]
    plan = plan_knockout(["a1", "b1", "a2", "b2"], humans, rng(0), rounds_per_match=4)
    assert plan.stage == "semifinal"
    assert plan.groups == {"M1": ("a1", "b2"), "M2": ("b1", "a2")}
    assert len(plan.rounds) == 8
    check_stage(plan, humans, per_pair=4)


def test_final_with_first_number_continuing_the_competition():
    plan = plan_knockout(["x", "y"], ["h"], rng(0), rounds_per_match=2, first_number=31)
    assert plan.stage == "final" and plan.groups == {"F": ("x", "y")}
    assert [r.number for r in plan.rounds] == [31, 32]


def test_odd_knockout_gives_the_top_seed_a_bye():
    plan = plan_knockout(["a", "b", "c"], ["h"], rng(0))
    assert plan.byes == ("a",) and plan.groups == {"M1": ("b", "c")}


def test_match_winner_is_the_higher_total_and_ties_go_to_the_better_seed():
    plan = plan_knockout(["a1", "b1", "a2", "b2"], ["h"], rng(1), rounds_per_match=2)
    res = {}
    for r in plan.rounds:
        if r.group == "M1":  # a1 3+1 = 4 vs b2 2+2.5 = 4.5: b2 wins
            first = r.meeting == 1
            res[r.number] = {"a1": 3.0 if first else 1.0, "b2": 2.0 if first else 2.5}
        else:  # b1 and a2 tie at 2.0: b1 (seed 2) beats a2 (seed 3)
            res[r.number] = {"b1": 1.0, "a2": 1.0}
    assert match_winners(plan, res) == ["b2", "b1"]
    res.pop(plan.rounds[0].number)
    with pytest.raises(ScheduleError, match="is not finished"):
        match_winners(plan, res)


def test_bad_rounds_per_match():
    with pytest.raises(ScheduleError, match="even and >= 2; got 3"):
        plan_knockout(["a", "b"], ["h"], rng(0), rounds_per_match=3)
