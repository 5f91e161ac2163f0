"""Regenerate every generated table of BENCHMARKS.md in one command.

Each benchmark below runs as its own script (a fresh interpreter, this tree's Accord on
``PYTHONPATH``); its output replaces the block between ``<!-- run_all:NAME -->`` and
``<!-- /run_all:NAME -->`` in BENCHMARKS.md, and the block ``run_all:meta`` records when,
the load before and after, and the versions. The scripts interleave their two sides run
by run and print medians and ranges themselves.

    python bench/run_all.py                    # every benchmark (an hour or more)
    python bench/run_all.py --only core,scml_sizes,startup
    python bench/run_all.py --smoke            # tiny inputs, ours only; prints, writes nothing
    python bench/run_all.py --list

``--smoke`` is what tests/bench/test_bench_smoke.py runs: it checks that each benchmark
still runs, never a time.
"""

from __future__ import annotations

import argparse
import datetime
import re
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from benchlib import HERE, ROOT, load, src_env, versions


@dataclass(frozen=True)
class Bench:
    """A benchmark script, its full arguments and its smoke arguments (None: not in smoke)."""

    name: str
    script: str
    full: tuple[str, ...] = ()
    smoke: tuple[str, ...] | None = ("--smoke",)
    why_not: str = ""


BENCHES = [
    Bench("startup", "bench_startup.py"),
    Bench("core", "bench_core.py"),
    Bench("scml_sizes", "bench_scml_sizes.py"),
    Bench("profile", "profile_actions.py"),
    Bench("scml", "bench_scml.py", smoke=("--smoke",)),
    Bench("tournament", "bench_tournament.py", smoke=("--smoke",)),
    Bench("guard", "bench_guard.py", smoke=("--reps", "1")),
    Bench("scml_isolation", "bench_scml_isolation.py", smoke=("--days", "2")),
    Bench("scml_market", "bench_scml_market.py", smoke=("--worlds", "1", "--days", "10")),
    Bench("realtime", "bench_realtime.py", ("--seconds", "30"), ("--seconds", "0.5")),
    Bench(
        "humaine",
        "bench_humaine.py",
        smoke=None,
        why_not="starts a uvicorn server and 20 rounds; see its own --rounds/--seconds",
    ),
    Bench(
        "diplomacy",
        "bench_diplomacy.py",
        ("--runs", "3", "--before", "none"),
        None,
        "plays whole Diplomacy games (tens of seconds each)",
    ),
    Bench(
        "negmas_bridge",
        "bench_negmas_bridge.py",
        ("--part", "overhead"),
        None,
        "imports negmas and its ported agents (tens of seconds)",
    ),
]
MARK = re.compile(r"(<!-- run_all:(\w+) -->\n)(.*?)(<!-- /run_all:\2 -->)", re.S)


def run(bench: Bench, smoke: bool) -> tuple[str, float]:
    """The script's stdout and its wall seconds; RuntimeError with its stderr if it fails."""
    args = bench.smoke if smoke else bench.full
    assert args is not None
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
    return proc.stdout.rstrip(), time.perf_counter() - t0


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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--smoke", action="store_true", help="tiny inputs; print, write nothing")
    ap.add_argument("--only", default="", help="comma-separated names (see --list)")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--out", type=Path, default=ROOT / "BENCHMARKS.md")
    args = ap.parse_args()
    if args.list:
        for b in BENCHES:
            note = "" if b.smoke is not None else f"  (not in --smoke: {b.why_not})"
            print(f"{b.name:<16} bench/{b.script}{note}")
        return
    only = {n for n in args.only.split(",") if n}
    unknown = only - {b.name for b in BENCHES}
    if unknown:
        sys.exit(f"unknown benchmark(s) {sorted(unknown)}; use one of {[b.name for b in BENCHES]}")
    chosen = [b for b in BENCHES if (not only or b.name in only)]
    if args.smoke:
        chosen = [b for b in chosen if b.smoke is not None]
    before = load()
    blocks: dict[str, str] = {}
    failed = []
    for b in chosen:
        print(f"== {b.name} (bench/{b.script})", flush=True)
        try:
            out, secs = run(b, args.smoke)
        except RuntimeError as exc:
            failed.append(b.name)
            print(exc, flush=True)
            continue
        print(out + f"\n[{secs:.1f} s]\n", flush=True)
        stamp = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
        blocks[b.name] = f"[bench/{b.script} {' '.join(b.full)}: {stamp}, {secs:.0f} s]\n{out}"
    if failed:
        sys.exit(f"failed: {', '.join(failed)}")
    if args.smoke:
        return
    stamp = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    if not only:  # a partial run stamps only its own blocks
        blocks["meta"] = (
            f"generated by bench/run_all.py {' '.join(sys.argv[1:])}".rstrip()
            + f"\n{stamp}; load before / after: {before} / {load()}\n{versions()}"
        )
    missing = write(args.out, blocks)
    if missing:
        print(f"no <!-- run_all:NAME --> block in {args.out.name} for: {', '.join(missing)}")


if __name__ == "__main__":
    main()
