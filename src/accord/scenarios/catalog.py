"""The definitions of the bundled scenarios; ``python -m accord.scenarios.catalog`` writes them.

Every profile is linear additive with weights summing to 1 and a best value worth 1 on
each issue, so the files read the same in GENIUS. Profiles are listed in role order and
their names sort in that order (so a GENIUS export keeps it).

    >>> sorted(CATALOG)
    ['car_purchase', 'holiday', 'job_offer', 'lunch', 'meeting', 'supply_contract']
    >>> build("supply_contract").space.cardinality
    1000000
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from accord.core.errors import InvalidScenario
from accord.core.outcomes import CategoricalIssue, IntegerIssue, Issue, OutcomeSpace
from accord.core.scenario import Scenario
from accord.core.utilities import Evaluator, LinearAdditiveUtility, LinearEvaluator

Profile = tuple[str, Sequence[float], Sequence[Evaluator], float, float | None]


def _scenario(name: str, issues: Sequence[Issue], profiles: Sequence[Profile]) -> Scenario:
    space = OutcomeSpace(issues)
    utilities = []
    for pname, weights, evaluators, rv, disc in profiles:
        if abs(sum(weights) - 1.0) > 1e-9:
            raise InvalidScenario(f"{name}/{pname}: weights sum to {sum(weights)}, not 1")
        u = LinearAdditiveUtility(space, weights, evaluators, rv, disc, normalize=False)
        for k, table in enumerate(u.tables):
            if abs(table.max() / u.weights[k] - 1.0) > 1e-12:
                raise InvalidScenario(f"{name}/{pname}: issue {k} has no value worth 1")
        utilities.append(u)
    return Scenario(name, space, tuple(utilities), tuple(p[0] for p in profiles))


def _evals(issue: CategoricalIssue, values: Sequence[float]) -> dict[Any, float]:
    return dict(zip(issue.values(), values, strict=True))


Row = tuple[Sequence[float], Sequence[Sequence[float] | LinearEvaluator], float, float | None]


def _profiles(issues: Sequence[Issue], table: dict[str, Row]) -> list[Profile]:
    """Profiles from ``name -> (weights, evaluations, reservation, discount)`` rows, in
    order. A categorical issue's evaluations list one number per value."""
    profiles: list[Profile] = []
    for name, (weights, evaluations, rv, disc) in table.items():
        evaluators: list[Evaluator] = []
        for issue, ev in zip(issues, evaluations, strict=True):
            if isinstance(ev, LinearEvaluator):
                evaluators.append(ev)
            elif isinstance(issue, CategoricalIssue):
                evaluators.append(_evals(issue, ev))
            else:
                raise InvalidScenario(
                    f"{name}: issue {issue.name!r} needs an evaluator, got {ev!r}"
                )
        profiles.append((name, weights, evaluators, rv, disc))
    return profiles


def lunch() -> Scenario:
    """PRIANAC quick-start lunch domain (alice has the guide's profile; bob opposes her)."""
    food = CategoricalIssue("Food", ["Hamburger", "Pizza"])
    drink = CategoricalIssue("Drink", ["Cola", "Beer"])
    table: dict[str, Row] = {
        "alice": ([0.3, 0.7], [[0.7, 1.0], [0.2, 1.0]], 0.0, None),
        "bob": ([0.6, 0.4], [[1.0, 0.5], [1.0, 0.4]], 0.0, None),
    }
    return _scenario("lunch", [food, drink], _profiles([food, drink], table))


def job_offer() -> Scenario:
    """A candidate and an employer agree on salary, start date and remote days."""
    salary = CategoricalIssue("salary", ["40k", "45k", "50k", "55k", "60k"])
    start = CategoricalIssue("start", ["now", "1 month", "2 months", "3 months"])
    remote = CategoricalIssue("remote days", ["0", "1", "2", "3"])
    issues = [salary, start, remote]
    table: dict[str, Row] = {
        "candidate": ([0.55, 0.15, 0.3], [[0.0, 0.3, 0.6, 0.85, 1.0], [0.4, 1.0, 0.8, 0.5],
                                          [0.1, 0.5, 0.9, 1.0]], 0.3, 0.9),
        "employer": ([0.5, 0.3, 0.2], [[1.0, 0.9, 0.7, 0.4, 0.1], [1.0, 0.8, 0.4, 0.1],
                                       [1.0, 0.8, 0.5, 0.2]], 0.2, None),
    }  # fmt: skip
    return _scenario("job_offer", issues, _profiles(issues, table))


def car_purchase() -> Scenario:
    """A buyer and a seller haggle over a car; the price (k EUR) is an integer issue."""
    price = IntegerIssue("price", 22, 30)
    model = CategoricalIssue("model", ["Base", "Comfort", "Sport"])
    color = CategoricalIssue("color", ["White", "Black", "Silver", "Red", "Blue"])
    warranty = CategoricalIssue("warranty", ["1 year", "2 years", "3 years", "5 years"])
    delivery = CategoricalIssue("delivery", ["1 week", "2 weeks", "1 month", "3 months"])
    issues = [price, model, color, warranty, delivery]
    table: dict[str, Row] = {
        "buyer": (
            [0.4, 0.2, 0.1, 0.2, 0.1],
            [
                LinearEvaluator(-0.125, 3.75),  # 1 at 22k, 0 at 30k
                [0.3, 1.0, 0.8],
                [0.6, 1.0, 0.8, 0.2, 0.5],
                [0.1, 0.4, 0.7, 1.0],
                [1.0, 0.9, 0.6, 0.1],
            ],
            0.35,
            0.8,
        ),
        "seller": (
            [0.5, 0.15, 0.05, 0.2, 0.1],
            [
                LinearEvaluator(0.125, -2.75),  # 0 at 22k, 1 at 30k
                [0.5, 0.8, 1.0],
                [1.0, 0.9, 0.9, 0.6, 0.7],
                [1.0, 0.8, 0.5, 0.1],
                [0.5, 0.7, 1.0, 0.8],
            ],
            0.3,
            None,
        ),
    }
    return _scenario("car_purchase", issues, _profiles(issues, table))


def _ramp(n: int, rising: bool, floor: float = 0.0) -> list[float]:
    """``n`` evenly spaced evaluations from ``floor`` to 1 (or 1 down to ``floor``)."""
    vals = [round(floor + (1.0 - floor) * k / (n - 1), 4) for k in range(n)]
    return vals if rising else vals[::-1]


def _peak(n: int, at: int, width: float) -> list[float]:
    """Evaluations worth 1 at index ``at`` falling off linearly (at least 0.05)."""
    return [round(max(0.05, 1.0 - abs(k - at) / width), 4) for k in range(n)]


def supply_contract() -> Scenario:
    """A buyer and a supplier negotiate a supply contract: 6 issues x 10 values (10^6)."""
    quantity = CategoricalIssue("quantity", [str(q) for q in range(100, 1001, 100)])
    price = CategoricalIssue("unit price", [f"{9 + 0.5 * k:.2f}" for k in range(10)])
    week = CategoricalIssue("delivery week", [str(w) for w in range(1, 11)])
    payment = CategoricalIssue("payment days", [str(15 * k) for k in range(10)])
    penalty = CategoricalIssue("late penalty", [f"{k}%" for k in range(10)])
    grade = CategoricalIssue("quality grade", list("ABCDEFGHIJ"))
    issues = [quantity, price, week, payment, penalty, grade]
    buyer = [
        _peak(10, 5, 5.0),
        _ramp(10, rising=False),
        _ramp(10, rising=False, floor=0.1),
        _ramp(10, rising=True, floor=0.2),
        _ramp(10, rising=True),
        _ramp(10, rising=False, floor=0.3),
    ]
    supplier = [
        _ramp(10, rising=True, floor=0.1),
        _ramp(10, rising=True),
        _peak(10, 6, 8.0),
        _ramp(10, rising=False),
        _ramp(10, rising=False, floor=0.2),
        _ramp(10, rising=True, floor=0.4),
    ]
    table: dict[str, Row] = {
        "buyer": ([0.15, 0.3, 0.15, 0.1, 0.1, 0.2], buyer, 0.4, None),
        "supplier": ([0.2, 0.35, 0.1, 0.15, 0.1, 0.1], supplier, 0.35, 0.95),
    }
    return _scenario("supply_contract", issues, _profiles(issues, table))


def holiday() -> Scenario:
    """Three friends plan a holiday together (3 parties, 240 outcomes)."""
    place = CategoricalIssue("destination", ["Beach", "Mountains", "City", "Countryside", "Island"])
    length = CategoricalIssue("duration", ["3 days", "5 days", "1 week", "2 weeks"])
    lodging = CategoricalIssue("lodging", ["Hotel", "Apartment", "Camping", "Hostel"])
    travel = CategoricalIssue("transport", ["Car", "Train", "Plane"])
    issues = [place, length, lodging, travel]
    table: dict[str, Row] = {
        "alex": ([0.4, 0.2, 0.25, 0.15], [[1.0, 0.3, 0.5, 0.2, 0.9], [0.3, 0.6, 1.0, 0.8],
                                          [1.0, 0.8, 0.1, 0.3], [0.4, 0.6, 1.0]], 0.25, None),
        "billie": ([0.3, 0.3, 0.2, 0.2], [[0.2, 1.0, 0.4, 0.8, 0.3], [0.2, 0.5, 0.8, 1.0],
                                          [0.3, 0.6, 1.0, 0.5], [1.0, 0.7, 0.2]], 0.2, 0.9),
        "casey": ([0.25, 0.15, 0.35, 0.25], [[0.6, 0.4, 1.0, 0.3, 0.7], [1.0, 0.9, 0.6, 0.2],
                                             [0.5, 1.0, 0.2, 0.8], [0.5, 1.0, 0.6]], 0.3, None),
    }  # fmt: skip
    return _scenario("holiday", issues, _profiles(issues, table))


def meeting() -> Scenario:
    """Four colleagues schedule a meeting (4 parties, 300 outcomes)."""
    day = CategoricalIssue("day", ["Mon", "Tue", "Wed", "Thu", "Fri"])
    time = CategoricalIssue("time", ["09:00", "11:00", "13:00", "15:00", "17:00"])
    length = CategoricalIssue("length", ["30 min", "60 min", "90 min"])
    place = CategoricalIssue("place", ["Office", "Cafe", "Online", "Client site"])
    issues = [day, time, length, place]
    table: dict[str, Row] = {
        "ana": ([0.35, 0.35, 0.1, 0.2], [[1.0, 0.8, 0.6, 0.4, 0.1], [1.0, 0.9, 0.3, 0.5, 0.2],
                                         [1.0, 0.6, 0.2], [0.7, 0.3, 1.0, 0.1]], 0.2, None),
        "ben": ([0.2, 0.3, 0.3, 0.2], [[0.1, 0.5, 1.0, 0.7, 0.4], [0.2, 1.0, 0.6, 0.8, 0.3],
                                       [0.4, 1.0, 0.7], [1.0, 0.5, 0.4, 0.2]], 0.25, 0.95),
        "chloe": ([0.3, 0.2, 0.2, 0.3], [[0.5, 0.4, 0.3, 1.0, 0.8], [0.1, 0.5, 0.8, 1.0, 0.9],
                                         [0.3, 0.8, 1.0], [0.6, 1.0, 0.2, 0.4]], 0.15, None),
        "dev": ([0.25, 0.25, 0.25, 0.25], [[0.8, 1.0, 0.5, 0.3, 0.6], [0.6, 0.7, 1.0, 0.4, 0.1],
                                           [1.0, 0.7, 0.3], [0.3, 0.2, 0.5, 1.0]], 0.3, None),
    }  # fmt: skip
    return _scenario("meeting", issues, _profiles(issues, table))


#: name -> (builder, one-line description)
CATALOG: dict[str, tuple[Callable[[], Scenario], str]] = {
    "lunch": (lunch, "PRIANAC quick-start lunch domain: 2 issues x 2 values, bilateral"),
    "job_offer": (job_offer, "job offer: 3 issues (80 outcomes), bilateral, one discounted"),
    "car_purchase": (
        car_purchase,
        "car purchase: 5 issues with an integer price (2,160 outcomes), bilateral",
    ),
    "supply_contract": (
        supply_contract,
        "supply contract: 6 issues x 10 values (10^6 outcomes), bilateral",
    ),
    "holiday": (holiday, "holiday planning: 4 issues (240 outcomes), 3 parties"),
    "meeting": (meeting, "meeting scheduling: 4 issues (300 outcomes), 4 parties"),
}


def build(name: str) -> Scenario:
    """Build a bundled scenario from its definition (not from its file)."""
    return CATALOG[name][0]()


def write_all(folder: Path | None = None) -> list[Path]:
    """Write every catalogued scenario as ``<name>.json`` (default: this package)."""
    from accord.formats.native import write_native

    out = folder or Path(__file__).parent
    return [write_native(b(), out / f"{n}.json", d) for n, (b, d) in CATALOG.items()]


if __name__ == "__main__":  # pragma: no cover
    for p in write_all(Path(sys.argv[1]) if len(sys.argv) > 1 else None):
        print(p)
