"""Other participants' request latency under ``accord han serve`` with a hung and a slow agent.

Five participants play at once on one server (uvicorn on loopback in its own process, as
``serve`` runs it, so that the clients here never share its interpreter; agents each in their
own process, the default): three against the example agent ``fair``, one against an agent
that never answers the start of its game (``Hung``: killed at the 5 s per-call deadline,
its game ends with both BATNAs) and one against an agent that takes 8 s to build and 4 s
per event (``Slow``: inside the deadline, never stopped). Every participant keeps its live
stream open and sends a request every 0.25 s (the state, a face, the state, a preset
message). The figure is the latency of the three ``fair`` participants' requests
(p50/p90/p99/max, n requests) while the hostile two play; their own latency is shown too.

``--base-src DIR`` runs the same load against another source tree (e.g. the code before
the change, ``git archive <rev> src | tar -x -C DIR``), alternating run by run.

    python bench/bench_study_latency.py                 # 2 runs, 25 s of load each
    python bench/bench_study_latency.py --base-src /tmp/base/src --runs 2
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
SRC = HERE.parent / "src"
AGENTS = ["fair", "han_latency_agents.Hung", "han_latency_agents.Slow"]
CONSENT = {"agree": True, "version": "1"}
WANT = {"fair": 3, "han_latency_agents.Hung": 1, "han_latency_agents.Slow": 1}


def one_run(seconds: float, want: dict[str, int] = WANT) -> dict[str, Any]:
    """One server (its own process, as ``accord han serve`` runs) and five participants
    driven from this process; latencies in ms per condition."""
    import httpx

    from accord.web.fuzzing import experimenter
    from accord.web.testing import ServerProcess

    tmp = tempfile.mkdtemp(prefix="han-lat-")
    kwargs = {"db": Path(tmp) / "han.sqlite", "agents": AGENTS, "time_limit": 600.0,
              "password": "bench-password-1"}  # fmt: skip
    lat: dict[str, list[float]] = {c: [] for c in want}
    stop = threading.Event()
    with ServerProcess("accord.leagues.han.server:create_han_app", **kwargs) as srv:
        admin = experimenter(srv.url, "bench-password-1")
        people: list[tuple[str, httpx.Client]] = []
        have = dict.fromkeys(WANT, 0)
        while any(have[c] < n for c, n in want.items()):
            (inv,) = admin.post("/api/study/invites", json={"count": 1}).json()
            c = httpx.Client(base_url=srv.url, timeout=120, trust_env=False)
            c.post(httpx.URL(inv["link"]).path)
            c.post("/api/participant/consent", json=CONSENT)
            cond = str(c.get("/api/participant").json()["condition"])
            if have[cond] < want.get(cond, 0):
                have[cond] += 1
                people.append((cond, c))
        for cond, c in people:  # the fair games start (their own agent's start-up)
            if cond == "fair":
                c.get("/api/han/state")

        def stream(c: httpx.Client) -> None:
            try:
                with c.stream("GET", "/api/han/live") as r:
                    for _ in r.iter_lines():
                        if stop.is_set():
                            return
            except httpx.HTTPError:
                return

        def load(cond: str, c: httpx.Client) -> None:
            reqs = [
                ("GET", "/api/han/state", None),
                ("POST", "/api/han/event", {"kind": "SEND_EXPRESSION", "emotion": "happy"}),
                ("GET", "/api/han/state", None),
                ("POST", "/api/han/event", {"kind": "SEND_MESSAGE", "preset": 3}),
            ]
            k = 0
            while not stop.is_set():
                method, path, body = reqs[k % len(reqs)]
                k += 1
                t0 = time.perf_counter()
                with contextlib.suppress(httpx.HTTPError):
                    c.request(method, path, json=body)
                lat[cond].append((time.perf_counter() - t0) * 1000)
                stop.wait(0.25)

        threads = [threading.Thread(target=stream, args=(c,), daemon=True) for _, c in people]
        threads += [threading.Thread(target=load, args=p, daemon=True) for p in people]
        for t in threads:
            t.start()
        time.sleep(seconds)
        stop.set()
        for _, c in people:
            c.close()  # ends the live streams
        for t in threads:
            t.join(15)
    return {c: _stats(v) for c, v in lat.items()}


def _stats(ms: list[float]) -> dict[str, float]:
    import numpy as np

    a = np.array(ms or [float("nan")])
    p = np.percentile(a, [50, 90, 99])
    return {"n": len(ms), "p50": p[0], "p90": p[1], "p99": p[2], "max": float(a.max())}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=25.0)
    ap.add_argument("--runs", type=int, default=2)
    ap.add_argument("--base-src", type=Path, default=None)
    ap.add_argument(
        "--smoke", action="store_true", help="tiny: one fair participant for 0.5 s, no hostiles"
    )
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        print(json.dumps(one_run(args.seconds)))
        return
    if args.smoke:
        fair = one_run(0.5, {"fair": 1})["fair"]
        print(f"smoke: one fair participant alone, n={fair['n']} p50={fair['p50']:.1f} ms")
        return
    sides = {"ours": SRC} | ({"base": args.base_src} if args.base_src else {})
    out: dict[str, list[dict[str, Any]]] = {s: [] for s in sides}
    for k in range(args.runs):
        for side in list(sides)[:: 1 if k % 2 == 0 else -1]:  # interleaved, order alternating
            env = {**os.environ, "PYTHONPATH": f"{sides[side]}{os.pathsep}{HERE}"}
            cmd = [sys.executable, __file__, "--child", "--seconds", str(args.seconds)]
            res = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True)
            out[side].append(json.loads(res.stdout.strip().splitlines()[-1]))
            fair = out[side][-1]["fair"]
            print(
                f"run {k + 1} {side:>4}: fair participants' requests n={fair['n']} "
                f"p50={fair['p50']:.1f} p90={fair['p90']:.1f} p99={fair['p99']:.1f} "
                f"max={fair['max']:.1f} ms",
                flush=True,
            )
    print(f"\nload average {os.getloadavg()}, python {platform.python_version()}, "
          f"{os.cpu_count()} cores")  # fmt: skip
    for side, runs in out.items():
        for cond in WANT:
            p99 = sorted(r[cond]["p99"] for r in runs)
            med = sorted(r[cond]["p50"] for r in runs)
            print(
                f"{side:>4} {cond:<26} p99 per run {[round(x, 1) for x in p99]} ms, "
                f"p50 per run {[round(x, 1) for x in med]} ms, "
                f"n={sum(r[cond]['n'] for r in runs)}"
            )


if __name__ == "__main__":
    main()
