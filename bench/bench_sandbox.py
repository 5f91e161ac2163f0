"""The sandbox's cost: sandboxed (``accord.sandbox``, ``os`` mode) against in-process, side by side.

Figures, each interleaved run by run (in-process, then sandboxed, then in-process...),
same timing method on both sides (``time.perf_counter`` for wall time; CPU time of this
process and its reaped children from ``resource.getrusage``), median with min-max and n:

* start-up per agent: ``start_sandbox`` to the first answer (bubblewrap + interpreter
  + Accord), ``os`` and ``process`` modes, and a tournament's negotiator host with the
  Frequency agent (what each sandboxed entrant pays once), wall and the agent's CPU;
  the same forked from a zygote (:mod:`accord.sandbox.zygote`, as a tournament's
  sandboxes start), and each zygote's own start (paid once per run);
* one call: a JSON round trip to a started sandbox against a Python call;
* a negotiation tournament: 4 built-in agents (Boulware, Conceder, Linear, Frequency)
  on the bundled 3-party ``holiday`` scenario, no self-play, 2 repetitions (144
  sessions), serial: ``sandbox="none"`` against ``sandbox="os"`` (the default: many
  sessions at once, each sandbox answering all its pending calls in one request,
  :mod:`accord.tournament.multiplex`; a sandbox is never given a profile its agent's
  opponents play, :mod:`accord.tournament.admission`, so each agent gets one sandbox
  per side: 12 for the run, start-up included) and against one sandbox per agent
  serving one session at a time (``--many-only`` leaves this slow side out); with
  ``--unforked`` also the default with every sandbox started by bubblewrap rather than
  forked from a zygote (:mod:`accord.sandbox.zygote`): the start-up's share, same tree;
* ``long`` (only when asked for, ``--only long``): the same with 8 repetitions (576
  sessions), where start-up weighs less;
* the same with agents that compute 0.5 ms of CPU per call (``sandbox_agents.Thinker``),
  as agents with opponent models do: where the sandbox's per-call cost stops mattering;
* an SCML world: 4 traders over 10 days, in-process against ``IsolatedAgent`` (``os``);
* a HAN tournament: fair and tough against two simulated participants on example-1
  (a fresh sandbox per game, as the rules demand), ``sandbox="none"`` against ``"os"``.

CPU time: ``cpu`` counts the organiser's process (and its reaped children); the agents
run in bubblewrap's PID namespace, whose processes this process never reaps, so for the
tournaments their CPU is read from ``/proc`` just before the sandboxes close (``agents
cpu``); the summary gives the CPU ratio both ways.

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
    """Run every side once per run, the order alternating run by run; a side may return
    a dict of extra figures (``agents_cpu``: CPU seconds of its sandboxed processes;
    ``round_trips``, ``calls``)."""
    out: dict[str, dict[str, Any]] = {
        k: {
            "wall": [],
            "cpu": [],
            "load": [],
            "agents_cpu": [],
            "round_trips": [],
            "calls": [],
            "sandboxes": [],
        }  # fmt: skip
        for k in sides
    }
    for r in range(runs):
        order = list(sides) if r % 2 == 0 else list(reversed(sides))  # interleaved
        for side in order:
            out[side]["load"].append(os.getloadavg()[0])
            c0, t0 = _cpu(), time.perf_counter()
            extra = sides[side]() or {}
            out[side]["wall"].append(time.perf_counter() - t0)
            out[side]["cpu"].append(_cpu() - c0)
            for key, value in extra.items():
                out[side][key].append(value)
    print(f"\n{name}")
    for side, d in out.items():
        w, c = _summary(d["wall"]), _summary(d["cpu"])
        line = (
            f"  {side:22} wall {w['median']:7.3f} s [{w['min']:.3f}-{w['max']:.3f}]  "
            f"cpu {c['median']:6.3f} s [{c['min']:.3f}-{c['max']:.3f}]"
        )
        if d["agents_cpu"]:
            a = _summary(d["agents_cpu"])
            line += f"  agents cpu {a['median']:6.3f} s [{a['min']:.3f}-{a['max']:.3f}]"
        if d["round_trips"]:
            line += (
                f"  {statistics.median(d['round_trips']):.0f} requests for "
                f"{statistics.median(d['calls']):.0f} calls"
            )
        if d["sandboxes"]:
            line += f"  {statistics.median(d['sandboxes']):.0f} sandboxes"
        print(f"{line}  n={w['n']}  load {statistics.median(d['load']):.1f}")
    return out


def tree_cpu(root: int | None = None) -> float:
    """CPU seconds (user + system) used so far by the living descendants of ``root``
    (this process): the sandboxed agents run in bubblewrap's PID namespace and are never
    reaped by this process, so ``RUSAGE_CHILDREN`` does not see them; read from /proc."""
    root = os.getpid() if root is None else root
    tick = os.sysconf("SC_CLK_TCK")
    children: dict[int, list[tuple[int, float]]] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        cpu = sum(int(x) for x in fields[11:15]) / tick  # utime stime cutime cstime
        children.setdefault(int(fields[1]), []).append((int(name), cpu))
    total, stack = 0.0, [root]
    while stack:
        for pid, cpu in children.get(stack.pop(), ()):
            total += cpu
            stack.append(pid)
    return total


class _AgentsCpu:
    """Samples :func:`tree_cpu` right before a tournament closes its sandboxes, and
    counts them (``boxes``: the sandboxes the run kept, all alive at its end)."""

    def __init__(self) -> None:
        from accord.tournament import isolation, runner

        self.runner, self.isolation = runner, isolation
        self.seconds = 0.0
        self.boxes = 0
        self._close = runner.close_sandboxes

    def __enter__(self) -> _AgentsCpu:
        def close() -> None:
            self.seconds = tree_cpu()
            pool = self.isolation
            self.boxes = sum(len(v) for v in pool._idle.values()) + len(pool._busy)
            self._close()

        self.runner.close_sandboxes = close  # type: ignore[assignment]
        return self

    def __exit__(self, *exc: object) -> None:
        self.runner.close_sandboxes = self._close  # type: ignore[assignment]


def startup(n: int) -> dict[str, Any]:
    """Seconds from start_sandbox to the first answer (interleaved): the echo host in
    ``os`` and ``process`` modes, and a tournament's negotiator host with a built-in
    agent (what each sandboxed entrant of a tournament pays once), wall and CPU."""
    from accord.sandbox.zygote import close_zygotes
    from accord.tournament.config import AgentSpec
    from accord.tournament.isolation import HOST

    kinds = {
        "os": (ECHO, "echo", "os", False),
        "process": (ECHO, "echo", "process", False),
        "os, negotiator": (HOST, "frequency", "os", False),
        "forked": (ECHO, "echo", "os", True),
        "forked, negotiator": (HOST, "frequency", "os", True),
    }
    limits = Limits(startup_timeout=120)
    preload = ("accord.tournament.agents",)
    zygotes = []
    for host in (ECHO, HOST):  # each zygote once, before the runs: what a run pays once
        t0, c0 = time.perf_counter(), tree_cpu()
        start_sandbox(host, "echo", limits=limits, fork=True, preload=preload).close()
        zygotes.append((host, time.perf_counter() - t0, tree_cpu() - c0))
    times: dict[str, list[float]] = {k: [] for k in kinds}
    cpus: dict[str, list[float]] = {k: [] for k in kinds}
    for _ in range(n):
        for kind, (host, agent, mode, fork) in kinds.items():
            t0, c0 = time.perf_counter(), tree_cpu()
            box = start_sandbox(host, agent, mode=mode, limits=limits, fork=fork)
            if host == ECHO:
                box.call("echo", 0)
            else:
                box.call("check", {"spec": AgentSpec("F", agent)}, trusted_pickle=True)
            times[kind].append(time.perf_counter() - t0)
            cpus[kind].append(tree_cpu() - c0)
            box.close()
    close_zygotes()
    print("\nstart-up per agent (start_sandbox to first answer; CPU of the agent's processes)")
    for host, wall, cpu in zygotes:
        print(
            f"  zygote of {host.rsplit(':', 1)[1]}: {wall * 1000:.1f} ms, cpu {cpu * 1000:.1f} ms (once; a first sandbox forked)"
        )
    for kind, xs in times.items():
        s, c = _summary(xs), _summary(cpus[kind])
        print(
            f"  {kind:15} {s['median'] * 1000:7.1f} ms [{s['min'] * 1000:.1f}-{s['max'] * 1000:.1f}]"
            f"  cpu {c['median'] * 1000:6.1f} ms [{c['min'] * 1000:.1f}-{c['max'] * 1000:.1f}]"
            f"  n={s['n']}"
        )
    return {k: {"wall": _summary(xs), "cpu": _summary(cpus[k])} for k, xs in times.items()}


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


def tournament(
    runs: int, tmp: Path, reps: int = 2, one_at_a_time: bool = True, unforked: bool = False
) -> dict[str, Any]:
    """The bundled 3-party tournament: in-process, sandboxed (the default: many sessions
    at once, one request per sandbox per turn; its sandboxes forked from a zygote) and
    sandboxed one session at a time (the path before batching), interleaved run by run;
    start-up included. ``unforked``: also the default with every sandbox started by
    bubblewrap (no zygote), the start-up before :mod:`accord.sandbox.zygote`."""
    from accord.tournament.config import TournamentConfig
    from accord.tournament.executors import SerialExecutor
    from accord.tournament.runner import run_tournament

    agents = ("boulware", "conceder", "linear", "frequency")
    sessions = [0]

    def side(mode: str, multiplex: bool = True, fork: bool = True) -> Callable[[], Any]:
        def go() -> dict[str, float]:
            from accord.sandbox import zygote

            cfg = TournamentConfig(agents, ("holiday",), reps=reps, self_play=False, sandbox=mode)
            ex = SerialExecutor(multiplex)
            zygote_for = zygote.zygote_for
            if not fork:
                zygote.zygote_for = lambda *a, **k: None  # type: ignore[assignment]
            try:
                with _AgentsCpu() as agents_cpu:
                    run = run_tournament(cfg, tmp / f"t-{mode}.sqlite", ex, fresh=True)
            finally:
                zygote.zygote_for = zygote_for  # type: ignore[assignment]
            assert run.ran == run.total
            sessions[0] = run.total
            if mode == "none":
                return {}
            out = {"agents_cpu": agents_cpu.seconds, "sandboxes": agents_cpu.boxes}
            if ex.hub is not None:
                out.update(round_trips=ex.hub.round_trips, calls=ex.hub.calls)
            return out

        return go

    sides = {"in-process": side("none"), "sandboxed": side("os")}
    if unforked:
        sides["sandboxed, no zygote"] = side("os", fork=False)
    if one_at_a_time:
        sides["sandboxed, one at a time"] = side("os", multiplex=False)
    res = _side_by_side(
        f"negotiation tournament (3 parties, serial, {reps} repetitions)", runs, sides
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
        "--only",
        default="",
        help="comma-separated: startup,call,tournament,long,thinkers,scml,han",
    )
    ap.add_argument(
        "--many-only",
        action="store_true",
        help="leave out the tournament played one session per sandbox at a time (slow)",
    )
    ap.add_argument(
        "--unforked",
        action="store_true",
        help="add the tournament with every sandbox started by bubblewrap (no zygote)",
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
            out["tournament"] = tournament(
                args.runs, Path(tmp), one_at_a_time=not args.many_only, unforked=args.unforked
            )
        if "long" in only:  # opt-in: a minute or more
            out["long"] = tournament(args.runs, Path(tmp), reps=8, one_at_a_time=False)
        if want("thinkers"):
            out["thinkers"] = thinkers(args.runs, Path(tmp))
        if want("scml"):
            out["scml"] = scml_world(args.runs)
        if want("han"):
            out["han"] = han(args.runs)
    print("\nthroughput sandboxed / in-process (median wall and CPU time ratios):")
    for key in ("tournament", "long", "thinkers", "scml", "han"):
        if key in out:
            line = f"  {key:11} wall {_ratio(out[key]):.2f}  cpu {_ratio(out[key], 'cpu'):.2f}"
            boxed = out[key]["sandboxed"]
            if boxed["agents_cpu"]:  # the organiser's and the agents' CPU together
                total = [c + a for c, a in zip(boxed["cpu"], boxed["agents_cpu"], strict=True)]
                inside = statistics.median(out[key]["in-process"]["cpu"])
                line += f"  cpu with the agents' {inside / statistics.median(total):.2f}"
            print(line)
            if "sandboxed, no zygote" in out[key]:
                plain = {
                    "in-process": out[key]["in-process"],
                    "sandboxed": out[key]["sandboxed, no zygote"],
                }
                print(
                    f"  {'(no zygote)':11} wall {_ratio(plain):.2f}  cpu {_ratio(plain, 'cpu'):.2f}"
                )
    if args.json is not None:
        args.json.write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
