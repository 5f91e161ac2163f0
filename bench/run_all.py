"""Regenerate every generated table of BENCHMARKS.md in one command.

Each benchmark below runs as its own script (a fresh interpreter, this tree's Accord on
``PYTHONPATH``); its output replaces the block between ``<!-- run_all:NAME -->`` and
``<!-- /run_all:NAME -->`` in BENCHMARKS.md, and the block ``run_all:meta`` records when,
the load before and after, and the versions. The scripts interleave their two sides run
by run and print medians and ranges themselves.

    python bench/run_all.py                    # every benchmark (about 15 min on a quiet machine)
    python bench/run_all.py --only core,scml_sizes,startup
    python bench/run_all.py --skip core,profile
    python bench/run_all.py --smoke            # tiny inputs, ours only; prints, writes nothing
    python bench/run_all.py --list

Every benchmark is in ``--smoke``; that is what tests/bench/test_bench_smoke.py runs: it
checks that each benchmark still runs, never a time (four at once: most of their wall
time is imports and servers starting). A full run takes one benchmark at a time and
stamps each block with its wall and CPU seconds (the script and its children) and the
load; the meta block gives the run's total. A partial run (``--only``/``--skip``) adds a
line to the meta block saying which blocks it replaced, when and at what load. If a
benchmark fails, the others' blocks are still written (and the run exits non-zero).
"""

from __future__ import annotations

import argparse
import datetime
import re
import resource
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from benchlib import HERE, ROOT, load, src_env, versions


@dataclass(frozen=True)
class Bench:
    """A benchmark script, its full arguments and its smoke arguments (``{tmp}`` stands
    for a scratch folder); ``tail``: keep only the last lines of its output (0: all)."""

    name: str
    script: str
    full: tuple[str, ...] = ()
    smoke: tuple[str, ...] = ("--smoke",)
    tail: int = 0


BENCHES = [
    Bench("startup", "bench_startup.py"),
    Bench("core", "bench_core.py"),
    Bench("profile", "profile_actions.py", ("--before", "f04f33b", "--runs", "5")),
    Bench(
        "scml_sizes", "bench_scml_sizes.py", ("--reps", "2", "--reps-large", "1", "--days", "10")
    ),
    Bench("scml", "bench_scml.py", ("--quick",)),
    Bench("tournament", "bench_tournament.py", ("--rounds", "2", "--scaling-rounds", "3")),
    Bench("guard", "bench_guard.py", ("--reps", "5"), ("--reps", "1")),
    Bench("scml_isolation", "bench_scml_isolation.py", ("--days", "15"), ("--days", "2")),
    Bench(
        "scml_market",
        "bench_scml_market.py",
        ("--worlds", "5", "--days", "30"),
        ("--worlds", "1", "--days", "10"),
    ),
    Bench(
        "scml_worlds", "bench_scml_worlds.py", ("0", "5", "--days", "30"), ("0", "1", "--days", "3")
    ),
    Bench("realtime", "bench_realtime.py", ("--seconds", "30"), ("--seconds", "0.5")),
    Bench("sandbox", "bench_sandbox.py", ("--runs", "2"), ("--runs", "1", "--only", "call")),
    Bench("study_latency", "bench_study_latency.py", ("--runs", "2", "--seconds", "15")),
    Bench("humaine", "bench_humaine.py", (), ("--rounds", "1", "--seconds", "1")),
    Bench(
        "speech",
        "bench_speech_accuracy.py",
        ("--no-general", "--no-fsg"),
        ("--limit", "1", "--no-general", "--no-fsg"),
        tail=4,
    ),
    Bench("negmas_bridge", "bench_negmas_bridge.py", ("--part", "overhead")),
    Bench(
        "negmas_agents",
        "bench_negmas_agents.py",
        ("--budget", "30", "--jobs", "2"),
        ("--limit", "1", "--packages", "negmas_negolog", "--out", "{tmp}/agents.md"),
        tail=1,
    ),
    Bench(
        "diplomacy",
        "bench_diplomacy.py",
        ("--runs", "3", "--before", "none"),
        ("--runs", "1", "--before", "none", "--last-year", "1901"),
    ),
]
MARK = re.compile(r"(<!-- run_all:(\w+) -->\n)(.*?)(<!-- /run_all:\2 -->)", re.S)


def cpu_children() -> float:
    """CPU seconds (user + system) of every child this process has reaped so far."""
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def run(bench: Bench, smoke: bool, tmp: str) -> tuple[str, float]:
    """The script's stdout and its wall seconds; RuntimeError with its stderr if it fails."""
    args = [a.replace("{tmp}", tmp) for a in (bench.smoke if smoke else bench.full)]
    t0 = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, str(HERE / bench.script), *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=src_env(),
        check=False,
    )
    if proc.returncode != 0:
        raise RuntimeError(f"{bench.script} {' '.join(args)} failed:\n{proc.stderr[-3000:]}")
    out = proc.stdout.rstrip()
    if bench.tail and not smoke:
        out = "\n".join(out.splitlines()[-bench.tail :])
    return out, time.perf_counter() - t0


def write(path: Path, blocks: dict[str, str]) -> list[str]:
    """Replace the marked blocks of ``path``; return the names that had no block."""
    text = path.read_text()
    found = set()

    def sub(m: re.Match[str]) -> str:
        name = m.group(2)
        if name not in blocks:
            return m.group(0)
        found.add(name)
        return f"{m.group(1)}```text\n{blocks[name]}\n```\n{m.group(4)}"

    path.write_text(MARK.sub(sub, text))
    return [n for n in blocks if n not in found]


def utc() -> str:
    return datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")


def commit() -> str:
    """This tree's commit (short), with "+ changes" if it has uncommitted ones (other
    than BENCHMARKS.md, which the run writes)."""

    def git(*a: str) -> str:
        return subprocess.run(["git", *a], cwd=ROOT, capture_output=True, text=True).stdout

    head = git("rev-parse", "--short", "HEAD").strip() or "?"
    changed = [
        line
        for line in git("status", "--porcelain", "--untracked-files=no").splitlines()
        if not line.endswith("BENCHMARKS.md")
    ]
    return head + (" + changes" if changed else "")


def peers() -> str:
    """The peers' versions, each read in its own venv (absent venvs are skipped)."""
    found = []
    for venv, pkg in ((".venv-negmas", "negmas"), (".venv-scml", "scml")):
        py = HERE / venv / "bin" / "python"
        if py.exists():
            code = f"import importlib.metadata as m; print(m.version('{pkg}'))"
            out = subprocess.run([str(py), "-c", code], capture_output=True, text=True)
            found.append(f"{pkg} {out.stdout.strip() or '?'}")
    return "peers (their own venvs): " + (", ".join(found) or "none installed")


def meta_text(path: Path) -> str:
    """The meta block's text as it is in ``path`` (without its fences), or ""."""
    for m in MARK.finditer(path.read_text()):
        if m.group(2) == "meta":
            return m.group(3).removeprefix("```text\n").removesuffix("```\n").rstrip("\n")
    return ""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--smoke", action="store_true", help="tiny inputs; print, write nothing")
    ap.add_argument("--only", default="", help="comma-separated names (see --list)")
    ap.add_argument("--skip", default="", help="comma-separated names to leave out")
    ap.add_argument("--list", action="store_true")
    ap.add_argument(
        "--jobs",
        type=int,
        default=0,
        help="benchmarks run at once (default: 4 with --smoke, whose benchmarks mostly wait "
        "on servers and imports; 1 otherwise, so that timings do not disturb each other)",
    )
    ap.add_argument("--out", type=Path, default=ROOT / "BENCHMARKS.md")
    args = ap.parse_args()
    if args.list:
        for b in BENCHES:
            print(f"{b.name:<16} bench/{b.script} {' '.join(b.full)}".rstrip())
        return
    only = {n for n in args.only.split(",") if n}
    skip = {n for n in args.skip.split(",") if n}
    unknown = (only | skip) - {b.name for b in BENCHES}
    if unknown:
        sys.exit(f"unknown benchmark(s) {sorted(unknown)}; use one of {[b.name for b in BENCHES]}")
    chosen = [b for b in BENCHES if (not only or b.name in only) and b.name not in skip]
    jobs = args.jobs or (4 if args.smoke else 1)
    before = load()
    start, cpu0, last_cpu = time.perf_counter(), cpu_children(), cpu_children()
    at = commit()  # the code that runs (BENCHMARKS.md itself may change meanwhile)
    blocks: dict[str, str] = {}
    failed = []
    errors: list[str] = []  # each failed script's error, repeated last (a log's tail shows it)
    with tempfile.TemporaryDirectory(prefix="run_all-") as tmp, ThreadPoolExecutor(jobs) as pool:
        futures = [pool.submit(run, b, args.smoke, tmp) for b in chosen]
        for b, fut in zip(chosen, futures, strict=True):
            print(f"== {b.name} (bench/{b.script})", flush=True)
            try:
                out, secs = fut.result()
            except RuntimeError as exc:
                failed.append(b.name)
                errors.append(str(exc))
                print(exc, flush=True)
                continue
            # one at a time (the full run): the CPU its script and children used
            cpu, last_cpu = cpu_children() - last_cpu, cpu_children()
            cpu_txt = f", CPU {cpu:.0f} s" if jobs == 1 else ""
            print(out + f"\n[{secs:.1f} s{cpu_txt}]\n", flush=True)
            blocks[b.name] = (
                f"[bench/{b.script} {' '.join(b.full)}".rstrip()
                + f": {utc()}, wall {secs:.0f} s{cpu_txt}, load when it ended {load()}]\n{out}"
            )
    if failed:
        print("\n\n".join(errors), file=sys.stderr)
    if not args.smoke:
        wall, cpu = time.perf_counter() - start, cpu_children() - cpu0
        what = (
            f"{utc()}: bench/run_all.py {' '.join(sys.argv[1:])}".rstrip()
            + f" on {at}, wall {wall / 60:.1f} min, CPU {cpu / 60:.1f} min, load before"
            f" / after: {before} / {load()}"
            + (f"; FAILED (block kept from before): {', '.join(failed)}" if failed else "")
        )
        if not only and not skip:
            blocks["meta"] = f"{what}\n{versions()}; {peers()}"
        else:  # a partial run stamps its own blocks and says so under the full run's line
            old = meta_text(args.out)
            blocks["meta"] = f"{old}\n  then {what}" if old else what
        missing = write(args.out, blocks)
        if missing:
            print(f"no <!-- run_all:NAME --> block in {args.out.name} for: {', '.join(missing)}")
        print(what)
    if failed:
        sys.exit(f"failed: {', '.join(failed)}")


if __name__ == "__main__":
    main()
