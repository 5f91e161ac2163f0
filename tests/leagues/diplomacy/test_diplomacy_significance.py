"""Significance between neighbours: exact permutation tests on hand-made examples."""

from __future__ import annotations

import pytest

from accord.leagues.diplomacy.scoring import Standing
from accord.leagues.diplomacy.significance import (
    EXACT_SIGNS,
    neighbour_tests,
    paired_p,
    two_sample_p,
)


def test_paired_sign_flip_exact_by_hand() -> None:
    # per-game differences 2, 1, 0, -1, 3: the zero drops out, |sum| = 5. Flipping a
    # subset S of {2, 1, 1, 3} (total 7) gives |7 - 2 sum(S)|, >= 5 when sum(S) <= 1
    # ({}, {1}, {1}) or >= 6 (their complements): 6 of 16 assignments.
    assert paired_p([2, 1, 0, -1, 3]) == (6 / 16, True)
    # all four games won by 1: only all-plus and all-minus reach |4|.
    assert paired_p([1, 1, 1, 1]) == (2 / 16, True)
    assert paired_p([0, 0]) == (1.0, True)
    assert paired_p([3, -3]) == (1.0, True)


def test_two_sample_exact_by_hand() -> None:
    # a = [3, 5], b = [1, 2, 0]: statistic |3 sum(a) - 2 sum(b)| = |5 sum(a) - 22|, 18
    # observed. The 10 pairs of the pool have sums 8, 4, 5, 3, 6, 7, 5, 3, 1, 2 ->
    # statistics 18, 2, 3, 7, 8, 13, 3, 7, 17, 12: only the observed split reaches 18.
    assert two_sample_p([3, 5], [1, 2, 0]) == (1 / 10, True)
    # a = [1, 2], b = [1, 2]: statistic |2 sum(a) - 2 sum(b)|, 0 observed: every split.
    assert two_sample_p([1, 2], [1, 2]) == (1.0, True)
    assert two_sample_p([], [1]) == (1.0, True)


def test_large_samples_use_seeded_resampling() -> None:
    diffs = [1] * (EXACT_SIGNS + 4)
    p, exact = paired_p(diffs, resamples=2000)
    assert not exact and p == 1 / 2001  # no random assignment reaches |20|
    assert paired_p(diffs, resamples=2000) == (p, exact)  # reproducible
    p2, exact2 = two_sample_p([5] * 20, [0] * 20, resamples=500)
    assert not exact2 and p2 == 1 / 501


def test_neighbour_tests_pick_the_criterion_and_pairing() -> None:
    rows = [
        Standing("A", 4, 8, 30, 0),
        Standing("B", 4, 4, 20, 0),
        Standing("C", 4, 4, 16, 0),
        Standing("D", 2, 2, 9, 0),
    ]
    per_game = {
        # A, B and C played games g1-g4 together; D played h1-h2 in another group.
        "A": {"g1": (4, 9), "g2": (2, 7), "g3": (1, 6), "g4": (1, 8)},
        "B": {"g1": (1, 5), "g2": (1, 5), "g3": (1, 5), "g4": (1, 5)},
        "C": {"g1": (1, 4), "g2": (1, 4), "g3": (1, 4), "g4": (1, 4)},
        "D": {"h1": (1, 4), "h2": (1, 5)},
    }
    ab, bc, cd = neighbour_tests(rows, per_game)
    # A vs B by points, paired: differences 3, 1, 0, 0 -> signs over {3, 1}: |4| in 2 of 4.
    assert (ab.by, ab.test, ab.games, ab.mean_diff) == (
        "points",
        "paired sign-flip permutation",
        4,
        1.0,
    )
    assert (ab.p, ab.exact, ab.significant) == (0.5, True, False)
    # B vs C: equal points, so centres: differences 1, 1, 1, 1 -> 2 of 16.
    assert (bc.by, bc.p, bc.significant) == ("centres", 0.125, False)
    # C vs D: equal points (4 vs 2 is not equal: points decide), two samples.
    assert cd.by == "points" and cd.test == "two-sample permutation" and cd.games == 6
    # C's points 1,1,1,1 and D's 1,1: every split has the same statistic 0.
    assert cd.p == 1.0 and cd.mean_diff == 0.0


def test_a_clear_difference_is_significant() -> None:
    rows = [Standing("A", 8, 40, 80, 0), Standing("B", 8, 8, 20, 0)]
    per_game = {
        "A": {f"g{i}": (5, 10) for i in range(8)},
        "B": {f"g{i}": (1, 2) for i in range(8)},
    }
    (t,) = neighbour_tests(rows, per_game, alpha=0.05)
    assert t.p == pytest.approx(2 / 256) and t.significant
    assert t.to_json()["significant"] is True
