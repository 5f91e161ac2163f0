"""Start-up benchmark: ``accord --help`` and ``accord negotiate --help`` against a bare
``import typer, rich`` (the floor of any typer CLI), interleaved run by run.

Each run is a fresh interpreter; its CPU time (user + system, ``RUSAGE_CHILDREN``) and
wall time are taken the same way for every command, and the commands take turns within
every repetition so load hits them alike. Target: both help screens within 1.5x of the
bare import's CPU.

    python bench/bench_startup.py            # 15 repetitions
    python bench/bench_startup.py --smoke    # 2 repetitions (the test suite's check)
"""

from __future__ import annotations

import argparse

from benchlib import PY, child, load, src_env, summary, versions

BASE = ("import typer, rich", [PY, "-c", "import typer, rich"])
CASES = [
    ("accord --help", [PY, "-c", "from accord.cli import app; app()", "--help"]),
    (
        "accord negotiate --help",
        [PY, "-c", "from accord.cli import app; app()", "negotiate", "--help"],
    ),
]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--smoke", action="store_true", help="2 repetitions")
    ap.add_argument("--reps", type=int, default=15)
    args = ap.parse_args()
    reps = 2 if args.smoke else args.reps
    env = src_env()
    runs = [BASE, *CASES]
    cpu: dict[str, list[float]] = {name: [] for name, _ in runs}
    wall: dict[str, list[float]] = {name: [] for name, _ in runs}
    ratio: dict[str, list[float]] = {name: [] for name, _ in CASES}
    start_load = load()
    for r in range(reps):
        order = runs if r % 2 == 0 else runs[::-1]  # who goes first alternates
        this: dict[str, float] = {}
        for name, cmd in order:
            c, w, out = child(cmd, env=env)
            if name != BASE[0] and "Usage" not in out:
                raise RuntimeError(f"{name}: no help screen printed")
            cpu[name].append(c)
            wall[name].append(w)
            this[name] = c
        for name, _ in CASES:
            ratio[name].append(this[name] / this[BASE[0]])
    print(f"Start-up, fresh interpreter per run, {reps} interleaved repetitions")
    print(f"load before / after: {start_load} / {load()}; {versions()}")
    print(f"{'command':<26} {'CPU ms median (min-max)':>26} {'wall ms median (min-max)':>26}")
    for name, _ in runs:
        cm, clo, chi = summary(cpu[name])
        wm, wlo, whi = summary(wall[name])
        print(
            f"{name:<26} {cm * 1e3:>10.0f} ({clo * 1e3:.0f}-{chi * 1e3:.0f}){'':>6}"
            f" {wm * 1e3:>10.0f} ({wlo * 1e3:.0f}-{whi * 1e3:.0f})"
        )
    for name, _ in CASES:
        m, lo, hi = summary(ratio[name])
        mark = "met" if m <= 1.5 else "MISSED"
        print(
            f"{name} / import typer, rich (CPU, per repetition): {m:.2f}x "
            f"(min {lo:.2f}, max {hi:.2f}; target <= 1.5x: {mark})"
        )


if __name__ == "__main__":
    main()
