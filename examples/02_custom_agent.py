"""Write a negotiator, check it, and play it in a session and in a learning tournament.

Shows: the agent in ``examples/my_agent.py`` (about 40 lines), the conformance check
that ``accord agents check`` runs, a session against a built-in agent, and a tournament
that names the agent by import path and lets it read its earlier sessions
(``view.memory``), repetition after repetition.

    python examples/02_custom_agent.py
"""

import tempfile
from pathlib import Path

from my_agent import Aspirant  # the script's folder is on sys.path

from accord.agents import Boulware, check_negotiator
from accord.core import Deadline, Session
from accord.formats import load_scenario
from accord.tournament import Results, TournamentConfig, run_tournament

report = check_negotiator(Aspirant)  # raises ProtocolViolation on any misbehaviour
print(f"check passed: {report.sessions} sessions, {report.agreements} agreements")

job = load_scenario("job_offer")
result = Session(job.space, [Aspirant(), Boulware()], job.utilities, Deadline(rounds=50)).run()
print(f"vs Boulware on job_offer: {result.reason.value}, {result.agreement}")

config = TournamentConfig(
    agents=["my_agent:Aspirant", "Boulware=accord.agents.timebased:Boulware"],
    scenarios=["job_offer"],
    reps=3,
    rounds=50,
    self_play=False,
    learning=True,  # repetition r reads the sessions of repetitions < r
)
with tempfile.TemporaryDirectory() as tmp:
    out = Path(tmp) / "learning.sqlite"
    run = run_tournament(config, out, executor="serial")
    print(f"tournament: {run.total} sessions")
    results = Results(out)
    mine = results.parties[results.parties.agent == "Aspirant"]
    for rep, utility in mine.groupby("rep")["utility"].mean().items():
        print(f"  Aspirant, repetition {rep}: mean utility {utility:.3f}")
    results.close()
