"""The PRIANAC lunch domain built from scratch, and one alternating-offers session on it.

Shows: issues and an outcome space, linear additive utilities (U = 0.91 for
Hamburger + Beer, the quick-start example), a session stepped by hand and then run to
the end, its trace and typed result, and where the agreement sits (Pareto, Nash).

    python examples/01_lunch_session.py
"""

from accord.agents import Boulware, Conceder
from accord.core import (
    CategoricalIssue,
    Deadline,
    LinearAdditiveUtility,
    OutcomeSpace,
    Scenario,
    Session,
)
from accord.core.analysis import analyze, session_metrics

space = OutcomeSpace(
    [CategoricalIssue("Food", ["Hamburger", "Pizza"]), CategoricalIssue("Drink", ["Cola", "Beer"])]
)
alice = LinearAdditiveUtility(
    space,
    weights={"Food": 0.3, "Drink": 0.7},
    evaluators={"Food": {"Hamburger": 0.7, "Pizza": 1.0}, "Drink": {"Cola": 0.2, "Beer": 1.0}},
)
bob = LinearAdditiveUtility(
    space,
    weights={"Food": 0.6, "Drink": 0.4},
    evaluators={"Food": {"Hamburger": 1.0, "Pizza": 0.5}, "Drink": {"Cola": 1.0, "Beer": 0.4}},
)
lunch = Scenario("lunch", space, (alice, bob), ("alice", "bob"))
print(f"outcomes: {space.cardinality}")
print(f"U_alice(Hamburger, Beer) = {alice(('Hamburger', 'Beer')):.2f}")

session = Session(space, [Boulware(), Conceder()], lunch.utilities, Deadline(rounds=10), seed=0)
session.step()  # Boulware (first mover) proposes
session.step()  # Conceder rejects and counter-proposes
print(f"after 2 steps the standing offer is {session.standing_offer}")
result = session.run()  # the rest of the session

for entry in result.trace[-3:]:
    who = result.names[entry.party]
    print(
        f"  step {entry.step:2d} t={entry.time:.2f} {who:9s} {entry.action.value} {entry.outcome}"
    )
print(f"ended by {result.reason.value} after {result.steps} steps: {result.agreement}")
print(
    "utilities: "
    + ", ".join(f"{n}={u:.2f}" for n, u in zip(result.names, result.utilities, strict=True))
)

analysis = analyze(lunch)
metrics = session_metrics(result, lunch, analysis)
print(f"Pareto frontier: {analysis.frontier_outcomes()}")
print(f"Nash point: {analysis.nash.outcome}")
print(
    f"agreement is Pareto-optimal: {metrics.pareto_optimal}, "
    f"distance to Nash {metrics.nash_distance:.3f}"
)
