"""The analysis on real scenarios: ANAC 2014 reference frontiers and the lunch domain."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import real_scenarios
from accord.core import Deadline, Negotiator, Response, Session
from accord.core.analysis import analyze, session_metrics


def folder(name: str) -> Path:
    return real_scenarios.genius(name)


def load(path: Path):
    formats = pytest.importorskip("accord.formats")
    return formats.load_scenario(path)


def reference(path: Path) -> np.ndarray:
    """pareto.xml holds plain "u1, u2" lines."""
    return np.loadtxt(path / "pareto.xml", delimiter=",", ndmin=2)


def test_anac2014_frontier_of_ten_to_the_ten_outcomes_matches_pareto_xml():
    path = folder("anac2014_10issuesDiscountedwithRV")
    a = analyze(load(path))
    ref = reference(path)
    got = a.frontier_utilities[::-1]  # ours by u1 descending, the file by u1 ascending
    assert got.shape == ref.shape == (8, 2)
    assert np.abs(got - ref).max() <= 1e-6  # the file has 32-bit floats
    # the representative outcomes really reach those utilities
    s = load(path)
    for pos, values in zip(a.frontier, a.frontier_utilities, strict=True):
        p = a.point(int(pos))
        assert [u(p.outcome) for u in s.utilities] == pytest.approx(values.tolist())
        assert s.space.outcome_at(p.index) == p.outcome


def test_y2014_reference_points_are_all_on_our_frontier():
    path = folder("y2014_10issueswithRV")
    a = analyze(load(path))
    points = reference(path)
    assert len(points) >= 5  # a reference frontier to compare with (an empty one passes all)
    for r in points:
        assert np.abs(a.frontier_utilities - r).max(axis=1).min() <= 1e-6


class Takes(Negotiator):
    def __init__(self, outcome=None):
        super().__init__()
        self.outcome = outcome

    def propose(self, view):
        return self.outcome

    def respond(self, view, offer):
        return Response.ACCEPT


def test_session_metrics_on_a_huge_nonlinear_scenario():
    path = folder("anac2014_10issuesDiscountedwithRV")
    s = load(path)
    a = analyze(s)
    nash = a.nash.outcome
    result = Session(s.space, [Takes(nash), Takes()], list(s.utilities), Deadline(rounds=10)).run()
    m = session_metrics(result, s, a)
    assert m.pareto_distance == 0.0 and m.nash_distance == 0.0 and m.pareto_optimal
    assert m.outcome_utilities == pytest.approx(a.nash.utilities)
