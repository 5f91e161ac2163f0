"""The NegMAS bridge's cost: overhead per action, and a tournament in Accord vs NegMAS.

1. **Overhead per negotiator action.** The same trivial strategy (offer the best
   outcome, reject everything) as a native Accord agent and as a NegMAS negotiator
   through the bridge, each against Accord's Hardliner for 1000 rounds on ANAC 2013
   DefensiveCharms; the difference in time per action is the bridge's own cost. Also
   NegMAS's Boulware through the bridge against Accord's Boulware, both on that session.
2. **The tournament** ``examples/negmas_tournament.yaml`` (ported ANAC agents, five ANAC
   scenarios, 100 rounds) run once through ``accord tournament`` (serial executor) and
   once through NegMAS's ``cartesian_tournament`` (serial, ``njobs=-1``) with the same
   agents, the same utilities (converted by the bridge), the same schedule (every ordered
   pair, no self-play, both profile rotations) and no statistics or plots, timed side by
   side.

Run from the repository root with the extra installed:

    .venv/bin/python bench/bench_negmas_bridge.py            # both parts
    .venv/bin/python bench/bench_negmas_bridge.py --part overhead
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path
from typing import Any

import yaml

REPO = Path(__file__).resolve().parents[1]
YAML = REPO / "examples" / "negmas_tournament.yaml"


def overhead() -> None:
    from negmas.gb.common import ResponseType
    from negmas.sao import BoulwareTBNegotiator, SAONegotiator

    from accord.agents import Boulware, Hardliner
    from accord.bridges.negmas import NegmasNegotiator
    from accord.core import Deadline, Negotiator, Response, Session
    from accord.formats import load_scenario

    class Best(Negotiator):
        def on_start(self, view: Any) -> None:
            self.best = view.best_outcome

        def propose(self, view: Any) -> Any:
            return self.best

        def respond(self, view: Any, offer: Any) -> Response:
            return Response.REJECT

    class NegmasBest(SAONegotiator):
        def on_negotiation_start(self, state: Any) -> None:
            self.top = self.ufun.best()

        def propose(self, state: Any, dest: str | None = None) -> Any:
            return self.top

        def respond(self, state: Any, source: str | None = None) -> ResponseType:
            return ResponseType.REJECT_OFFER

    scenario = load_scenario(
        REPO.parent / "shared" / "scenarios" / "genius" / "anac2013_DefensiveCharms"
    )
    rounds = 1000

    def per_action(make: Any, repeat: int = 5) -> float:
        best = float("inf")
        for _ in range(repeat):
            session = Session(
                scenario.space, [make(), Hardliner()], scenario.utilities, Deadline(rounds=rounds)
            )
            start = time.perf_counter()
            result = session.run()
            best = min(best, (time.perf_counter() - start) / result.steps)
        return best

    native = per_action(Best)
    bridged = per_action(lambda: NegmasNegotiator(NegmasBest(), seed_globals=False))
    boulware = per_action(Boulware)
    negmas_boulware = per_action(lambda: NegmasNegotiator(BoulwareTBNegotiator()))
    print("per action (session of 1000 rounds vs Hardliner, mean over both parties' actions):")
    print(
        f"  trivial strategy: native {native * 1e6:8.1f} us   through the bridge {bridged * 1e6:8.1f} us"
    )
    print(f"  bridge overhead per action of the bridged party: {(bridged - native) * 2e6:8.1f} us")
    print(
        f"  Boulware: Accord {boulware * 1e6:8.1f} us   NegMAS BoulwareTB via bridge {negmas_boulware * 1e6:8.1f} us"
    )


def tournament(scenario_override: list[str] | None = None) -> None:
    from negmas.inout import Scenario as NegmasScenario
    from negmas.tournaments.neg import cartesian_tournament

    from accord.agents.registry import resolve_agent
    from accord.bridges.negmas import outcome_space, utility
    from accord.bridges.negmas.convert import Clock
    from accord.formats import load_scenario

    config = yaml.safe_load(YAML.read_text())
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "accord.sqlite"
        source = YAML
        if scenario_override:
            config["scenarios"] = [
                str(REPO.parent / "shared" / "scenarios" / "genius" / s) for s in scenario_override
            ]
            source = Path(tmp) / "tournament.yaml"
            source.write_text(yaml.safe_dump(config))
        start = time.perf_counter()
        run = subprocess.run(
            [
                str(Path(sys.executable).with_name("accord")),
                "tournament",
                str(source),
                "--executor",
                "serial",
                "--out",
                str(out),
                "--no-report",
            ],
            cwd=REPO,
            capture_output=True,
            text=True,
            env={**os.environ, "COLUMNS": "120"},
        )
        accord_seconds = time.perf_counter() - start
        print(run.stdout[-6000:])
        if run.returncode != 0:
            print(run.stderr[-3000:])
            raise SystemExit("accord tournament failed")

        classes = []
        names = []
        for entry in config["agents"]:
            name, _, path = entry.rpartition("=")
            factory = resolve_agent(path)
            classes.append(factory.negmas_class)  # type: ignore[attr-defined]
            names.append(name or path.rpartition(":")[2])
        scenarios = []
        for folder in config["scenarios"]:
            s = load_scenario((REPO / folder).resolve())
            space = outcome_space(s.space, name=Path(folder).name)
            ufuns = []
            for u in s.utilities:
                nu = utility(u, space, Clock())
                if u.discount is not None:
                    nu.factor = "relative_time"  # NegMAS's own discounting rule
                ufuns.append(nu)
            scenarios.append(NegmasScenario(outcome_space=space, ufuns=tuple(ufuns)))
        start = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            results = cartesian_tournament(
                competitors=classes,
                competitor_names=names,
                scenarios=scenarios,
                n_steps=config["rounds"],
                n_repetitions=config.get("reps", 1),
                rotate_ufuns=True,
                self_play=config.get("self_play", True),
                njobs=-1,
                path=Path(tmp) / "negmas",
                verbosity=0,
                plot_fraction=0.0,
                save_stats=False,
                save_scenario_figs=False,
                raise_exceptions=False,
                storage_optimization="space",
            )
        negmas_seconds = time.perf_counter() - start
        n_negmas = len(results.details)
    print(f"NegMAS cartesian_tournament: {n_negmas} sessions in {negmas_seconds:.1f} s")
    print(f"accord tournament (whole command, imports included): {accord_seconds:.1f} s")
    print(f"ratio NegMAS / Accord: {negmas_seconds / accord_seconds:.2f}")
    print(results.final_scores.head(25).to_string())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", choices=["overhead", "tournament", "all"], default="all")
    parser.add_argument(
        "--scenarios", help="comma-separated GENIUS folder names instead of the example's five"
    )
    args = parser.parse_args()
    warnings.filterwarnings("ignore")
    if args.part in ("overhead", "all"):
        overhead()
    if args.part in ("tournament", "all"):
        tournament(args.scenarios.split(",") if args.scenarios else None)


if __name__ == "__main__":
    main()
