"""The negotiator view is changed only through its public owner-side updater."""

from __future__ import annotations

import ast
from pathlib import Path

import source_scan
from accord.core.negotiator import NegotiatorView, OfferLog
from accord.core.outcomes import CategoricalIssue, OutcomeSpace
from accord.core.utilities import LinearAdditiveUtility

SRC = Path(__file__).resolve().parents[2] / "src" / "accord"


def _view() -> NegotiatorView:
    space = OutcomeSpace([CategoricalIssue("x", ["a", "b"])])
    u = LinearAdditiveUtility(space, [1.0], [{"a": 1.0, "b": 0.0}])
    return NegotiatorView(u, 0, ["me", "you"], OfferLog([]), (0, 0))


def test_update_sets_what_the_properties_show() -> None:
    view = _view()
    view.update(0.25, step=5, round=2, standing=("a",), proposer=1)
    assert (view.time, view.step, view.round) == (0.25, 5, 2)
    assert (view.standing_offer, view.standing_proposer) == (("a",), 1)
    assert view.state() == (0.25, 5, 2, ("a",), 1)


def test_state_round_trips_through_update() -> None:
    a, b = _view(), _view()
    a.update(0.75, 9, 4, ("b",), 0)
    b.update(*a.state())
    assert b.state() == a.state()


def test_no_module_touches_the_views_private_fields() -> None:
    private = set(NegotiatorView.__slots__)
    found = []
    for path in source_scan.files(SRC):
        if path == SRC / "core" / "negotiator.py":
            continue
        for node in source_scan.nodes(path):
            if (
                isinstance(node, ast.Attribute)
                and node.attr in private
                and not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"))
            ):
                found.append(f"{path.relative_to(SRC)}:{node.lineno} {ast.unparse(node)}")
    assert found == [], "use NegotiatorView.update() / its properties instead:\n" + "\n".join(found)
