"""Core engine benchmark: Accord against negmas 0.16.0, interleaved run by run.

Sessions per CPU second for 100-round bilateral Boulware-vs-Conceder sessions on 3x5,
3x7, 3x10, 5x10 and 6x10 issue-by-value domains, on ANAC 2011 Energy (390,625
outcomes) and on ANAC 2016 AgentHp2 energygrid (5,764,801 outcomes: 8 integer issues
of 7 values, linear; the first two of its three profiles), the start-up of a
10^6-outcome session, and the Pareto frontier at 10^5 and 10^6 outcomes (interleaved,
CPU).

Both sides get the same domains, profiles and concession curves (the peer's
Boulware/Conceder aspiration ``1 - t**4`` and ``1 - t**0.25``; ours ``1 - t**(1/e)``
with e = 0.25 and 4). Every session on both sides builds new agents and runs their
set-up. What "cold" means, mode by mode (ours):

* **guarded** (the default a tournament runs, the headline): every agent call under
  :class:`accord.tournament.guard.Guarded`; *cold per agent*: each session makes new
  agents and each runs its own ``on_start``; what depends only on the profile (its
  utility of every outcome and their sort order, :func:`accord.core.inverse.inverse_of`)
  is built by the first session on that profile and shared by the later ones, as in a
  tournament, where every profile plays many sessions;
* **scenario**: guarded, *cold per scenario*: nothing is shared, every session sorts its
  profiles again (``clear_inverses()`` before each), as the peer's agents do;
* **bare**: cold per agent as ``guarded``, no guard (``Session.run`` on the agents).

Each batch, on both sides, starts with one untimed session: it builds a profile's sorted
outcomes for the modes that share them, and on the peer's side (a fresh process per
batch) it runs the roughly 90 modules negmas imports on its first session (its GENIUS
bridge, plotly: about 50 ms of CPU, no session's own work; until 2026-11-27 it was inside
the peer's timed batch of 40 and made a 3x5 peer session look about 1.6x slower, so the
ratios printed before then are too high by about that much). Every repetition runs each of our modes and a peer batch (a child process in
bench/.venv-negmas) back to back, the side that goes first alternating; each side times
its own batch by ``time.process_time`` (CPU) and ``perf_counter`` (wall); each ratio pairs
the two batches of one repetition, and the table gives the median and the range over
the repetitions.

    python bench/bench_core.py            # 5 repetitions (several minutes)
    python bench/bench_core.py --smoke    # tiny: 3x5 only, ours only, no peer
"""

from __future__ import annotations

import argparse
import contextlib
import json
import subprocess
import time
from pathlib import Path

import numpy as np

from accord.agents.timebased import TimeDependent
from accord.core import Deadline, Scenario, Session
from accord.core.generate import random_linear_scenario
from accord.core.inverse import clear_inverses
from accord.core.negotiator import Negotiator
from accord.tournament.guard import Guarded
from benchlib import genius_folder, load, summary, versions
from peer_venv import peer_python

HERE = Path(__file__).resolve().parent
PEER_VENV, PEER = ".venv-negmas", "negmas==0.16.0"
PEER_PY = HERE / PEER_VENV / "bin" / "python"
DOMAINS = [(3, 5), (3, 7), (3, 10), (5, 10), (6, 10)]
ANAC = "anac2011_Energy"
ANAC_BIG = "anac2016_AgentHp2_energygrid_integer"  # 7^8 = 5,764,801 outcomes, linear
ANAC_BIG_NAME = "anac2016_energygrid"  # its first two profiles (it has three)
LIMIT = 60.0  # seconds per call under the guard (the tournament default's order)


def domain_json(s: Scenario) -> dict[str, object]:
    """The scenario as plain data for the peer (values, weights, normalised evaluations)."""
    issues = [[i.name, list(i.values())] for i in s.space.issues]
    profiles = []
    for u in s.utilities:
        evals = [
            [u.evaluation(k, v) for v in issue.values()]  # type: ignore[attr-defined]
            for k, issue in enumerate(s.space.issues)
        ]
        profiles.append({"weights": u.weights.tolist(), "evaluations": evals})  # type: ignore[attr-defined]
    return {"issues": issues, "profiles": profiles}


def peer(job: dict[str, object]) -> dict[str, float]:
    out = subprocess.run(
        [str(PEER_PY), str(HERE / "peers" / "negmas_core.py")],
        input=json.dumps(job),
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


MODES = ["guarded", "scenario", "bare"]


def ours(s: Scenario, n: int, mode: str, rounds: int = 100) -> tuple[float, float]:
    """(CPU seconds, wall seconds) for ``n`` sessions in ``mode`` (guarded, scenario, bare),
    after one untimed session in that mode (as the peer's batch: see the module's doc)."""
    c0 = t0 = 0.0
    for seed in range(-1, n):
        if seed == 0:
            c0, t0 = time.process_time(), time.perf_counter()
        if mode == "scenario":
            clear_inverses()
        negs: list[Negotiator] = [TimeDependent(0.25, "Boulware"), TimeDependent(4.0, "Conceder")]
        if mode != "bare":
            negs = [Guarded(neg, k, LIMIT) for k, neg in enumerate(negs)]
        Session(s.space, negs, s.utilities, Deadline(rounds=rounds), seed=max(seed, 0)).run()
    return time.process_time() - c0, time.perf_counter() - t0


def ours_start(s: Scenario) -> tuple[float, float]:
    """(CPU, wall) seconds from building a session to its first offer (both agents
    initialised, cold per scenario: nothing built before)."""
    clear_inverses()
    c0, t0 = time.process_time(), time.perf_counter()
    session = Session(
        s.space,
        [TimeDependent(0.25, "Boulware"), TimeDependent(4.0, "Conceder")],
        s.utilities,
        Deadline(rounds=100),
    )
    session.step()
    return time.process_time() - c0, time.perf_counter() - t0


def ours_pareto(s: Scenario) -> float:
    """CPU seconds for the frontier, the utilities of every outcome included (as the peer)."""
    from accord.core.analysis import pareto_frontier

    c0 = time.process_time()
    pareto_frontier(np.column_stack([u.all() for u in s.utilities]))
    return time.process_time() - c0


def scenarios(smoke: bool) -> list[tuple[str, Scenario]]:
    if smoke:
        return [("3x5", random_linear_scenario(3, 5, 2, seed=305))]
    out = [
        (f"{ni}x{nv}", random_linear_scenario(ni, nv, 2, seed=ni * 100 + nv)) for ni, nv in DOMAINS
    ]
    from accord.formats import load_scenario

    with contextlib.suppress(FileNotFoundError):  # absent from the bundled test copies
        out.append((ANAC, load_scenario(genius_folder(ANAC))))
    with contextlib.suppress(FileNotFoundError):  # the 10^6+ ANAC domain (3 profiles)
        big = load_scenario(genius_folder(ANAC_BIG))
        out.append((ANAC_BIG_NAME, Scenario(big.name, big.space, tuple(big.utilities[:2]))))
    return out


def fmt(xs: list[float], digits: int = 1) -> str:
    m, lo, hi = summary(xs)
    return f"{m:.{digits}f} ({lo:.{digits}f}-{hi:.{digits}f})"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--smoke", action="store_true", help="tiny: 3x5, ours only")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument(
        "--reps-large",
        type=int,
        default=3,
        help="repetitions on domains of 10^4 outcomes or more (their ratios are far above the "
        "targets and their peer batches cost seconds each; 0: --reps)",
    )
    ap.add_argument("--domains", default="", help="only these domains, e.g. 3x5,3x7 (default: all)")
    ap.add_argument("--no-extras", action="store_true", help="skip the start-up and Pareto parts")
    args = ap.parse_args()
    only = {d for d in args.domains.split(",") if d}
    smoke = args.smoke
    reps = 1 if smoke else args.reps
    reps_large = reps if smoke else (args.reps_large or reps)
    if not smoke:
        peer_python(PEER_VENV, PEER)
    start_load = load()
    modes = MODES
    rows = []
    for name, s in scenarios(smoke):
        if only and name not in only:
            continue
        size = int(s.space.cardinality)
        # smoke: enough sessions (~10 ms) that a batch never reads 0 s of CPU (20 once did)
        # batches of about 0.1-0.3 s of CPU on the small domains (600 and 40 sessions until
        # 2026-11-27: 40 ms ours, so one busy moment moved a repetition's ratio by a tenth)
        n_ours = 200 if smoke else (1500 if size < 10**4 else 30 if size < 10**6 else 6)
        n_peer = 100 if size < 10**4 else 2 if size < 10**6 else 1
        rate: dict[str, list[float]] = {m: [] for m in [*modes, "peer"]}
        ratio: dict[str, list[float]] = {m: [] for m in modes}
        walls: dict[str, list[float]] = {"guarded": [], "peer": []}
        job = {"kind": "sessions", "domain": domain_json(s), "sessions": n_peer, "rounds": 100}
        for r in range(reps_large if size >= 10**4 else reps):
            sides = [*modes, "peer"] if r % 2 == 0 else ["peer", *modes]
            got: dict[str, float] = {}
            for side in sides:
                if side == "peer":
                    if smoke:
                        continue
                    res = peer(job)
                    got["peer"] = n_peer / res["cpu"]
                    walls["peer"].append(n_peer / res["seconds"])
                else:
                    cpu, wall = ours(s, n_ours, side)
                    got[side] = n_ours / cpu
                    if side == "guarded":
                        walls["guarded"].append(n_ours / wall)
            for side, v in got.items():
                rate[side].append(v)
            if "peer" in got:
                for m in modes:
                    ratio[m].append(got[m] / got["peer"])
        rows.append((name, size, rate, ratio, walls))
    print(
        f"Sessions per CPU second, 100-round Boulware vs Conceder; interleaved repetitions "
        f"(n: {reps} below 10^4 outcomes, {reps_large} from 10^4), median (min-max)"
    )
    print(f"load before / after: {start_load} / {load()}; {versions(PEER_PY, 'negmas')}")
    print("guarded: every agent call under the in-process guard (the default), cold per agent:")
    print("  new agents each session, each runs its set-up; a profile's sorted outcomes are")
    print("  built by its first session and shared (as in a tournament). scenario: guarded,")
    print("  cold per scenario: nothing shared, every session sorts again (as the peer's agents).")
    print("  bare: cold per agent, no guard.")
    head = f"{'domain':<16} {'outcomes':>8} {'guarded':>22} {'scenario':>22} {'bare':>22}"
    print(head + f" {'negmas':>18}")
    for name, size, rate, _, _ in rows:
        peer_txt = fmt(rate["peer"], 2) if rate["peer"] else "-"
        print(
            f"{name:<16} {size:>8} {fmt(rate['guarded']):>22} {fmt(rate['scenario']):>22} "
            f"{fmt(rate['bare']):>22} {peer_txt:>18}"
        )
    if not smoke:
        print("\nRatio to negmas per repetition (CPU), median (min-max); wall sessions/s medians")
        print(
            f"{'domain':<16} {'guarded':>20} {'scenario':>20} {'bare':>22} "
            f"{'wall: guarded':>14} {'negmas':>8}"
        )
        for name, _, _, ratio, walls in rows:
            print(
                f"{name:<16} {fmt(ratio['guarded']) + 'x':>20} {fmt(ratio['scenario']) + 'x':>20} "
                f"{fmt(ratio['bare']) + 'x':>22} {summary(walls['guarded'])[0]:>14.1f} "
                f"{summary(walls['peer'])[0]:>8.2f}"
            )

    if args.no_extras:
        return
    big = random_linear_scenario(4 if smoke else 6, 10, 2, seed=7)
    starts = [ours_start(big) for _ in range(5)]
    cpu = summary([c * 1000 for c, _ in starts])
    wall = summary([w * 1000 for _, w in starts])
    print(
        f"\n{int(big.space.cardinality)}-outcome session start (build + both agents ready + "
        f"first offer), n=5: CPU {cpu[0]:.1f} ms ({cpu[1]:.1f}-{cpu[2]:.1f}), wall "
        f"{wall[0]:.1f} ms ({wall[1]:.1f}-{wall[2]:.1f}); target < 100 ms at 10^6"
    )
    if smoke:
        return
    print(
        "\nPareto frontier, interleaved run by run (the side that goes first alternating), "
        "CPU seconds, median (min-max); ratio per pair"
    )
    print(f"{'outcomes':>9} {'n':>2} {'accord':>22} {'negmas':>22} {'ratio':>22}")
    for ni, n in ((5, 3), (6, 2)):
        s = random_linear_scenario(ni, 10, 2, seed=ni)
        mine: list[float] = []
        theirs: list[float] = []
        for r in range(n):
            for side in ("ours", "peer") if r % 2 == 0 else ("peer", "ours"):
                if side == "ours":
                    mine.append(ours_pareto(s))
                else:
                    theirs.append(peer({"kind": "pareto", "domain": domain_json(s)})["cpu"])
        pairs = [t / m for m, t in zip(mine, theirs, strict=True)]
        print(
            f"{10**ni:>9} {n:>2} {fmt(mine, 4):>22} {fmt(theirs, 3):>22} {fmt(pairs) + 'x':>22}",
            flush=True,
        )


if __name__ == "__main__":
    main()
