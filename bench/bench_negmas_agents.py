"""Every agent class of the NegMAS agent packages through the bridge: load, play, check.

For each class exported by ``negmas_genius_agents`` and ``negmas_negolog``:

* **load**: ``accord.agents.get_agent("package:Class")`` builds it;
* **play**: one session against Accord's Boulware on a real ANAC scenario (100 rounds)
  ends without a failure of the agent (agreement or not);
* **check**: ``accord.agents.check_negotiator`` (what ``accord agents check`` runs) passes,
  or its message is the reason.

Each agent gets at most ``--budget`` seconds (an alarm; an agent that hangs fails with
that reason; the packages are imported and the scenario loaded before any budget
starts). Writes a Markdown table to ``--out``. ``--jobs N`` checks N agents at once,
each in a worker process of its own (the table's order stays the packages' order; the
seconds column is each agent's own wall time, so it grows with the load).

    .venv/bin/python bench/bench_negmas_agents.py --out bench/results/negmas-agents.md
    .venv/bin/python bench/bench_negmas_agents.py --jobs 2
"""

from __future__ import annotations

import argparse
import importlib
import multiprocessing
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


class _Serial:
    """A one-process stand-in for a pool (``--jobs 1``): ``imap`` is plain ``map``."""

    def __enter__(self) -> _Serial:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def imap(self, fn: Any, jobs: list[tuple[str, int]]) -> Any:
        return map(fn, jobs)


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


_SCENARIO: list[Any] = []  # loaded once per worker process


def prepare(packages: list[str]) -> None:
    """Load the scenario and import the packages (outside any agent's budget)."""
    warnings.filterwarnings("ignore")
    for package in packages:
        importlib.import_module(package)
    if not _SCENARIO:
        _SCENARIO.append(load_scenario(SCENARIO))


def timed(job: tuple[str, int]) -> tuple[str, str, str, str, str]:
    """:func:`one` on ``path`` with this process's scenario, and its wall seconds."""
    path, budget = job
    start = time.perf_counter()
    load, play, check, reason = one(path, _SCENARIO[0], budget)
    return load, play, check, f"{time.perf_counter() - start:.1f}", reason


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=REPO / "bench" / "results" / "negmas-agents.md")
    parser.add_argument("--budget", type=int, default=120)
    parser.add_argument("--packages", default="negmas_genius_agents,negmas_negolog")
    parser.add_argument("--limit", type=int, default=0, help="only the first N classes a package")
    parser.add_argument("--jobs", type=int, default=1, help="agents checked at once")
    args = parser.parse_args()
    warnings.filterwarnings("ignore")
    paths = []
    for package in args.packages.split(","):
        names = list(agents_in_package(package))
        paths += [f"{package}:{name}" for name in (names[: args.limit] if args.limit else names)]
    jobs = [(path, args.budget) for path in paths]
    rows = []
    packages = args.packages.split(",")
    if args.jobs > 1:
        pool: Any = multiprocessing.get_context("spawn").Pool(args.jobs, prepare, (packages,))
    else:
        prepare(packages)
        pool = _Serial()
    with pool:
        for path, (load, play, check, took, reason) in zip(
            paths, pool.imap(timed, jobs), strict=True
        ):
            rows.append((path, load, play, check, took, reason.replace("|", "/")))
            print(
                f"{path:55s} load={load} play={play} check={check} {took:>5}s {reason[:120]}",
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
