"""The sandbox's cost: sandboxed (``accord.sandbox``, ``os`` mode) against in-process, side by side.

Figures, each interleaved run by run (in-process, then sandboxed, then in-process...),
same timing method on both sides (``time.perf_counter`` for wall time; CPU time of this
process and its reaped children from ``resource.getrusage``), median with min-max and n:

* start-up per agent: ``start_sandbox`` to the first answer (bubblewrap + interpreter
  + Accord), ``os`` and ``process`` modes;
* one call: a JSON round trip to a started sandbox against a Python call;
* a negotiation tournament: 4 built-in agents (Boulware, Conceder, Linear, Frequency)
  on the bundled 3-party ``holiday`` scenario, no self-play, 2 repetitions, serial, ``sandbox="none"`` against ``sandbox="os"`` (one sandbox per agent, kept across
  the sessions; start-up included);
* the same with agents that compute 0.5 ms of CPU per call (``sandbox_agents.Thinker``),
  as agents with opponent models do: where the sandbox's per-call cost stops mattering;
* an SCML world: 4 traders over 10 days, in-process against ``IsolatedAgent`` (``os``);
* a HAN tournament: fair and tough against two simulated participants on example-1
  (a fresh sandbox per game, as the rules demand), ``sandbox="none"`` against ``"os"``.

CPU time: for the sandboxed side it counts the organiser's process only (the agents run
in bubblewrap's PID namespace, whose processes are not reaped by this process, so their
CPU time does not reach ``RUSAGE_CHILDREN``); compare wall times.

The load average (1 min) is shown before each side's runs; on a machine shared by other
work the sandboxed side, which waits on another process at every call, suffers more from
it than the in-process side (the scheduler's wake-up latency adds to each round trip).

    python bench/bench_sandbox.py             # 3 runs each
    python bench/bench_sandbox.py --runs 1    # quick
    python bench/bench_sandbox.py --only startup,thinkers
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import accord
from accord.sandbox import Limits, sandbox_available, start_sandbox

ECHO = "accord.sandbox.host:EchoHost"


def _cpu() -> float:
    me = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def _timed(fn: Callable[[], Any]) -> tuple[float, float]:
    c0, t0 = _cpu(), time.perf_counter()
    fn()
    return time.perf_counter() - t0, _cpu() - c0


def _summary(xs: list[float]) -> dict[str, float]:
    return {"median": statistics.median(xs), "min": min(xs), "max": max(xs), "n": len(xs)}


def _side_by_side(
    name: str, runs: int, sides: dict[str, Callable[[], Any]]
) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {k: {"wall": [], "cpu": [], "load": []} for k in sides}
    for r in range(runs):
        order = list(sides) if r % 2 == 0 else list(reversed(sides))  # interleaved
        for side in order:
            out[side]["load"].append(os.getloadavg()[0])
            wall, cpu = _timed(sides[side])
            out[side]["wall"].append(wall)
            out[side]["cpu"].append(cpu)
    print(f"\n{name}")
    for side, d in out.items():
        w, c = _summary(d["wall"]), _summary(d["cpu"])
        print(
            f"  {side:12} wall {w['median']:8.3f} s [{w['min']:.3f}-{w['max']:.3f}]  "
            f"cpu {c['median']:8.3f} s [{c['min']:.3f}-{c['max']:.3f}]  n={w['n']}  "
            f"load {statistics.median(d['load']):.1f}"
        )
    return out


def startup(n: int) -> dict[str, Any]:
    """Seconds from start_sandbox to the first answer, per mode (interleaved)."""
    times: dict[str, list[float]] = {"os": [], "process": []}
    for _ in range(n):
        for mode in times:
            t0 = time.perf_counter()
            box = start_sandbox(ECHO, "echo", mode=mode, limits=Limits(startup_timeout=120))
            box.call("echo", 0)
            times[mode].append(time.perf_counter() - t0)
            box.close()
    print("\nstart-up per agent (start_sandbox to first answer)")
    for mode, xs in times.items():
        s = _summary(xs)
        print(
            f"  {mode:8} {s['median'] * 1000:7.1f} ms [{s['min'] * 1000:.1f}-{s['max'] * 1000:.1f}] n={s['n']}"
        )
    return {m: _summary(xs) for m, xs in times.items()}


def call_latency(n: int) -> dict[str, Any]:
    box = start_sandbox(ECHO, "echo", limits=Limits(startup_timeout=120))
    box.call("echo", 0)
    payload = {"state": [0.5, 10, 5, [1, 2, 3], 0], "offers": [[0, [1, 2]]]}

    def local(p: Any) -> Any:
        return p

    out = {}
    for name, fn in (
        ("sandboxed", lambda: box.call("echo", payload)),
        ("python call", lambda: local(payload)),
    ):
        xs = []
        for _ in range(n):
            t0 = time.perf_counter()
            fn()
            xs.append(time.perf_counter() - t0)
        out[name] = _summary(xs)
    box.close()
    print("\none call (JSON round trip to a started sandbox)")
    for name, s in out.items():
        print(
            f"  {name:12} {s['median'] * 1e6:8.1f} us [{s['min'] * 1e6:.1f}-{s['max'] * 1e6:.1f}] n={s['n']}"
        )
    return out


def tournament(runs: int, tmp: Path) -> dict[str, Any]:
    from accord.tournament.config import TournamentConfig
    from accord.tournament.runner import run_tournament

    agents = ("boulware", "conceder", "linear", "frequency")
    sessions = [0]

    def side(mode: str) -> Callable[[], Any]:
        def go() -> None:
            cfg = TournamentConfig(agents, ("holiday",), reps=2, self_play=False, sandbox=mode)
            run = run_tournament(cfg, tmp / f"t-{mode}.sqlite", fresh=True)
            assert run.ran == run.total
            sessions[0] = run.total

        return go

    res = _side_by_side(
        "negotiation tournament (3 parties, serial)",
        runs,
        {"in-process": side("none"), "sandboxed": side("os")},
    )
    print(f"  {sessions[0]} sessions per run")
    return res


def thinkers(runs: int, tmp: Path) -> dict[str, Any]:
    """The same tournament with agents that compute 0.5 ms of CPU per call."""
    from accord.tournament.config import TournamentConfig
    from accord.tournament.runner import run_tournament

    agents = tuple(f"T{i}=sandbox_agents:Thinker" for i in range(3))

    def side(mode: str) -> Callable[[], Any]:
        def go() -> None:
            cfg = TournamentConfig(agents, ("lunch",), reps=1, self_play=False, sandbox=mode)
            run = run_tournament(cfg, tmp / f"k-{mode}.sqlite", fresh=True)
            assert run.ran == run.total

        return go

    return _side_by_side(
        "negotiation tournament, agents computing 0.5 ms per call (2 parties, serial)",
        runs,
        {"in-process": side("none"), "sandboxed": side("os")},
    )


def scml_world(runs: int) -> dict[str, Any]:
    from accord.leagues.scml.generate import generate_config
    from accord.leagues.scml.isolation import IsolatedAgent
    from accord.leagues.scml.isolation import Limits as SCMLLimits
    from accord.leagues.scml.world import World

    cfg = generate_config(n_steps=10, factories_per_level=[2, 2], seed=1)

    def plain() -> None:
        World(cfg, ["trader"] * 4, seed=1).run()

    def boxed() -> None:
        lim = SCMLLimits(call_timeout=60, start_timeout=120)
        World(cfg, [IsolatedAgent("trader", lim) for _ in range(4)], seed=1).run()

    return _side_by_side(
        "SCML world (4 traders, 10 days)", runs, {"in-process": plain, "sandboxed": boxed}
    )


def han(runs: int) -> dict[str, Any]:
    from accord.leagues.han.tournament import run_tournament

    def side(mode: str) -> Callable[[], Any]:
        def go() -> None:
            run_tournament(
                ["fair", "tough"], ["cooperative", "greedy"], games=["example-1"],
                time_limit=60.0, sandbox=mode,
            )  # fmt: skip

        return go

    return _side_by_side(
        "HAN tournament (4 games, a fresh sandbox per game)",
        runs,
        {"in-process": side("none"), "sandboxed": side("os")},
    )


def _ratio(res: dict[str, Any], what: str = "wall") -> float:
    return float(
        statistics.median(res["in-process"][what]) / statistics.median(res["sandboxed"][what])
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--json", type=Path, default=None, help="also write the figures here")
    ap.add_argument(
        "--only", default="", help="comma-separated: startup,call,tournament,thinkers,scml,han"
    )
    args = ap.parse_args()
    why = sandbox_available()
    if why is not None:
        raise SystemExit(f"the OS sandbox cannot run here: {why}")
    bwrap = subprocess.run(["bwrap", "--version"], capture_output=True, text=True).stdout.strip()
    print(
        f"accord {accord.__version__}, Python {platform.python_version()}, {bwrap}, "
        f"{os.cpu_count()} cores, running as uid {os.geteuid()}, load {os.getloadavg()[0]:.1f}"
    )
    out: dict[str, Any] = {}
    only = set(args.only.split(",")) - {""}

    def want(key: str) -> bool:
        return not only or key in only

    with tempfile.TemporaryDirectory() as tmp:
        if want("startup"):
            out["startup"] = startup(max(5, 2 * args.runs))
        if want("call"):
            out["call"] = call_latency(2000)
        if want("tournament"):
            out["tournament"] = tournament(args.runs, Path(tmp))
        if want("thinkers"):
            out["thinkers"] = thinkers(args.runs, Path(tmp))
        if want("scml"):
            out["scml"] = scml_world(args.runs)
        if want("han"):
            out["han"] = han(args.runs)
    print("\nthroughput sandboxed / in-process (median wall and CPU time ratios):")
    for key in ("tournament", "thinkers", "scml", "han"):
        if key in out:
            print(f"  {key:11} wall {_ratio(out[key]):.2f}  cpu {_ratio(out[key], 'cpu'):.2f}")
    if args.json is not None:
        args.json.write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
