"""Pareto frontier, Nash, Kalai and welfare points, on a small and on a 10^6-outcome space.

Shows: ``analyze`` on a bundled scenario (every party's utility of every outcome, the
frontier and the special points), the pure functions on plain utility arrays, a
three-party frontier, session metrics, and the utility-space plot.

    python examples/04_pareto_analysis.py
"""

import tempfile
import time
from pathlib import Path

import numpy as np

from accord.agents import Boulware, Conceder
from accord.core import Deadline, Session
from accord.core.analysis import (
    analyze,
    kalai_point,
    max_welfare,
    nash_point,
    pareto_frontier,
    session_metrics,
)
from accord.formats import load_scenario
from accord.plots import save, session_figure

# The pure functions work on any (outcomes x parties) array of utilities.
points = np.array([[1.0, 0.0], [0.95, 0.35], [0.75, 0.5], [0.6, 0.58], [0.2, 1.0], [0.4, 0.4]])
print(f"frontier rows: {pareto_frontier(points).tolist()}")
print(
    f"Nash row {nash_point(points)}, Kalai row {kalai_point(points)}, "
    f"max-welfare row {max_welfare(points)}"
)
print(f"Nash row with reservations (0.8, 0): {nash_point(points, reservations=[0.8, 0.0])}")

# A bundled scenario with 10^6 outcomes: analysed by enumerating every outcome.
big = load_scenario("supply_contract")
start = time.perf_counter()
a = analyze(big)
took = time.perf_counter() - start
print(
    f"{big.name}: {big.space.cardinality:,} outcomes, {a.frontier.size} on the frontier, "
    f"analysed in {took:.2f} s"
)
print(f"  Nash point utilities {tuple(round(u, 3) for u in a.nash.utilities)}")

# Three parties: the n-party frontier.
holiday = load_scenario("holiday")
h = analyze(holiday)
print(
    f"{holiday.name}: {holiday.n_parties} parties, {h.frontier.size} of "
    f"{holiday.space.cardinality} outcomes are Pareto-optimal"
)

# Where one session ended, and a picture of it.
car = load_scenario("car_purchase")
ca = analyze(car)
result = Session(car.space, [Boulware(), Conceder()], car.utilities, Deadline(rounds=60)).run()
m = session_metrics(result, car, ca)
print(
    f"car_purchase session: {result.reason.value}, welfare {m.welfare:.3f}, "
    f"distance to Pareto {m.pareto_distance:.3f}, Pareto-optimal {m.pareto_optimal}"
)
with tempfile.TemporaryDirectory() as tmp:
    png = save(session_figure(car, result, ca), Path(tmp) / "car.png")
    print(f"plot: {png.name}, {png.stat().st_size // 1024} kB")
