"""Every agent class of the NegMAS agent packages through the bridge: load, play, check.

For each class exported by ``negmas_genius_agents`` and ``negmas_negolog``:

* **load**: ``accord.agents.get_agent("package:Class")`` builds it;
* **play**: one session against Accord's Boulware on a real ANAC scenario (100 rounds)
  ends without a failure of the agent (agreement or not);
* **check**: ``accord.agents.check_negotiator`` (what ``accord agents check`` runs) passes,
  or its message is the reason.

Each agent gets at most ``--budget`` seconds (an alarm; an agent that hangs fails with
that reason). Writes a Markdown table to ``--out``.

    .venv/bin/python bench/bench_negmas_agents.py --out bench/results/negmas-agents.md
"""

from __future__ import annotations

import argparse
import signal
import time
import warnings
from pathlib import Path
from typing import Any

from accord.agents import Boulware, check_negotiator, get_agent
from accord.agents.registry import agents_in_package
from accord.core import Deadline, Session
from accord.formats import load_scenario
from benchlib import genius_folder

REPO = Path(__file__).resolve().parents[1]
SCENARIO = genius_folder("anac2012_CameraB")


class Budget(Exception):
    pass


def _alarm(signum: int, frame: Any) -> None:
    raise Budget("ran past its time budget")


def one(path: str, scenario: Any, budget: int) -> tuple[str, str, str, str]:
    signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(budget)
    load = play = check = "-"
    reason = ""
    try:
        try:
            get_agent(path)
            load = "yes"
        except Exception as exc:  # noqa: BLE001 - the table records any failure
            return "no", "-", "-", f"load: {type(exc).__name__}: {exc}"
        result = Session(
            scenario.space,
            [get_agent(path), Boulware()],
            scenario.utilities[:2],
            Deadline(rounds=100),
            seed=1,
            time_limit=5.0,
        ).run()
        if result.failure is None:
            play = "yes"
        else:
            play = "no"
            reason = f"play: {result.failure.kind.value}: {result.failure.message}"
        try:
            check_negotiator(lambda: get_agent(path), rounds=30, time_limit=2.0)
            check = "yes"
        except Exception as exc:  # noqa: BLE001
            check = "no"
            reason = (reason + "; " if reason else "") + f"check: {exc}"
    except Budget as exc:
        reason = (reason + "; " if reason else "") + str(exc)
    finally:
        signal.alarm(0)
    return load, play, check, reason


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=REPO / "bench" / "results" / "negmas-agents.md")
    parser.add_argument("--budget", type=int, default=120)
    parser.add_argument("--packages", default="negmas_genius_agents,negmas_negolog")
    parser.add_argument("--limit", type=int, default=0, help="only the first N classes a package")
    args = parser.parse_args()
    warnings.filterwarnings("ignore")
    scenario = load_scenario(SCENARIO)
    rows = []
    for package in args.packages.split(","):
        names = list(agents_in_package(package))
        for name in names[: args.limit] if args.limit > 0 else names:
            path = f"{package}:{name}"
            start = time.perf_counter()
            load, play, check, reason = one(path, scenario, args.budget)
            took = time.perf_counter() - start
            rows.append((path, load, play, check, f"{took:.1f}", reason.replace("|", "/")))
            print(
                f"{path:55s} load={load} play={play} check={check} {took:5.1f}s {reason[:120]}",
                flush=True,
            )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    n = len(rows)
    counts = {
        k: sum(1 for r in rows if r[i] == "yes")
        for i, k in ((1, "load"), (2, "play"), (3, "check"))
    }
    lines = [
        f"# NegMAS agent packages through the bridge ({n} classes)",
        "",
        f"load {counts['load']}/{n}, play {counts['play']}/{n}, check {counts['check']}/{n}",
        "",
        "| agent | load | play | check | seconds | reason |",
        "|---|---|---|---|---|---|",
        *[f"| {' | '.join(r)} |" for r in rows],
    ]
    args.out.write_text("\n".join(lines) + "\n")
    print(f"load {counts['load']}/{n}, play {counts['play']}/{n}, check {counts['check']}/{n}")


if __name__ == "__main__":
    main()
