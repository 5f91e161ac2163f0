"""HUMAINE orchestrator benchmark: relay latency and throughput with concurrent rounds.

Three processes on loopback:

- the orchestrator (uvicorn, SQLite store in WAL mode, our R0-R4 engine);
- the parties: every agent and human UI of every round, served by one lean HTTP server
  that plays its part in the dialogue: when Celia receives the human's utterance she
  relays an offer, when Watson receives Celia's offer he relays his, when the human UI
  receives Watson's offer the human speaks again (a closed loop: each message is sent
  only after the previous one was delivered, as in a real conversation);
- this driver, which sets the rounds up, starts the dialogues and collects figures.

Reported: relay latency (POST /relayMessage until its reply), delivery latency (POST
until the next speaker's /receiveMessage arrives), messages per second over all rounds,
and the orchestrator's CPU time per message. Every message carries its speaker's secret,
is judged by R0-R4, delivered to every party (4 calls per message) and stored in SQLite.

Two modes:

- closed loop (default): R0's 5 s and R3's 50 ms are set to zero (they would otherwise
  cap each round at one utterance per 5 s and block the reply sent the moment the other
  seller's arrived), and each message is sent as soon as the previous one arrived: the
  most load the orchestrator can take;
- ``--rules``: the spec's rules as they are (R0 = 5 s, R2's 2 s window, R3's 50 ms), at
  the pace of a real round: in each round the human speaks every 5 s (to Celia), Celia
  answers 0.2-1.5 s after hearing the human, Watson 0.1-0.4 s after hearing Celia (both
  within R2's 2 s). The rounds' 5 s ticks are spread evenly.

The original platform has no runnable peer here, so only our figures are printed.

    python bench/bench_humaine.py                  # 20 rounds, 10 s, closed loop
    python bench/bench_humaine.py --rules --seconds 60
    python bench/bench_humaine.py --rounds 5 --seconds 3
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
import numpy as np

from accord.leagues.humaine.credentials import new_secret
from accord.leagues.humaine.testing import BUYER_UTILITY, COSTS_C, COSTS_W, seller_utility
from accord.web.http11 import Connection

ORCH_SCRIPT = """
import sys, uvicorn
from accord.leagues.humaine.orchestrator import create_orchestrator_app
from accord.leagues.humaine.rules import RuleConfig
db = sys.argv[2] if sys.argv[2] != "-" else None
rules = RuleConfig() if sys.argv[3] == "rules" else RuleConfig(human_gap=0, simultaneity=0)
app = create_orchestrator_app(db_path=db, rule_config=rules, call_timeout=5, admin_secret=sys.argv[4])
uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[1]), log_level="warning", access_log=False)
"""

NEXT = {("Celia", "Human"): "Celia", ("Watson", "Celia"): "Watson", ("ui", "Watson"): "Human"}
OFFER = {"type": "SellOffer", "quantity": {"egg": 2}, "price": {"unit": "USD", "value": 4.5}}
PERIOD = 5.0
"""--rules: seconds between two human utterances of a round (R0's gap)."""


def secret(rid: str, speaker: str) -> str:
    """The per-round secret the driver gives each speaker (the parties send it back)."""
    return f"bench-secret-{rid}-{speaker}-0123456789"


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process (Linux /proc), 0 if unavailable."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return 0.0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


# ---------------------------------------------------------------- parties process
class Parties:
    """All parties of all rounds; paths are /{roundId}/{party}/{route}."""

    def __init__(self, eo: str) -> None:
        self.eo = eo
        self.until = 0.0
        self.rules = False
        self.rng = np.random.default_rng(7)
        self.by_speaker: dict[str, list[float]] = {}
        self.sent: dict[str, float] = {}
        self.relay: list[float] = []
        self.delivery: list[float] = []
        self.blocked = 0
        self.count = 0
        self.conns: dict[tuple[str, str], tuple[Connection, asyncio.Lock]] = {}
        self.tasks: set[asyncio.Task[None]] = set()

    async def speak(self, rid: str, speaker: str) -> None:
        if time.monotonic() >= self.until:
            return
        self.count += 1
        text = f"{speaker} {rid} #{self.count}: 2 eggs for 4.5 USD"
        msg: dict[str, Any] = {"roundId": rid, "speaker": speaker, "text": text}
        msg["token"] = secret(rid, speaker)
        if speaker == "Human":
            msg |= {"addressee": "Celia", "role": "buyer"}
        else:
            msg |= {"addressee": "Human", "role": "seller", "bid": OFFER}
        key = (rid, speaker)
        if key not in self.conns:
            self.conns[key] = (Connection(self.eo), asyncio.Lock())
        conn, lock = self.conns[key]
        async with lock:
            t0 = time.monotonic()
            self.sent[text] = t0
            status, reply = await conn.post_json("/relayMessage", msg, 30)
            self.relay.append(time.monotonic() - t0)
            kind = "human" if speaker == "Human" else "agent"
            self.by_speaker.setdefault(kind, []).append(time.monotonic() - t0)
        if status != 200 or not reply.get("permitted"):
            self.blocked += 1

    async def human_every_period(self, rid: str, offset: float) -> None:
        """--rules: the human of round ``rid`` speaks every PERIOD seconds (R0 allows no
        less: each utterance waits at least PERIOD + 20 ms after the previous one)."""
        await asyncio.sleep(offset)
        tick = last = time.monotonic()
        while time.monotonic() < self.until:
            last = time.monotonic()
            await self.speak(rid, "Human")
            tick += PERIOD
            await asyncio.sleep(max(tick, last + PERIOD + 0.02) - time.monotonic())

    async def later(self, delay: float, rid: str, speaker: str) -> None:
        await asyncio.sleep(delay)
        await self.speak(rid, speaker)

    def spawn(self, coro: Any) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self.tasks.add(task)
        task.add_done_callback(self._done)

    def _done(self, task: asyncio.Task[None]) -> None:
        self.tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            print(f"party task failed: {task.exception()!r}", file=sys.stderr)

    async def route(self, path: str, body: bytes) -> bytes:
        parts = path.strip("/").split("/")
        if parts[0] == "go":
            job = json.loads(body)
            self.until = time.monotonic() + job["seconds"]
            self.rules = bool(job.get("rules"))
            n = len(job["rounds"])
            for k, rid in enumerate(job["rounds"]):
                if self.rules:
                    self.spawn(self.human_every_period(rid, k * PERIOD / n))
                else:
                    self.spawn(self.speak(rid, "Human"))
            return b'{"status":"started"}'
        if parts[0] == "stats":
            return json.dumps(
                {
                    "relay": self.relay,
                    "delivery": self.delivery,
                    "by_speaker": self.by_speaker,
                    "blocked": self.blocked,
                    "idle": not self.tasks,
                }
            ).encode()
        rid, party, route = parts[-3:]
        if route == "receiveMessage":
            msg = json.loads(body)
            nxt = NEXT.get((party, msg["speaker"]))
            t0 = self.sent.pop(msg["text"], None) if nxt is not None else None
            if t0 is not None and nxt is not None:
                self.delivery.append(time.monotonic() - t0)
                if not self.rules:
                    self.spawn(self.speak(rid, nxt))
                elif nxt != "Human":  # sellers answer within R2's 2 s; the human keeps time
                    lo, hi = (0.2, 1.5) if nxt == "Celia" else (0.1, 0.4)
                    self.spawn(self.later(float(self.rng.uniform(lo, hi)), rid, nxt))
        return b'{"status":"acknowledged"}'

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                lines = head.split(b"\r\n")
                path = lines[0].split(b" ")[1].decode()
                n = 0
                for line in lines[1:]:
                    if line.lower().startswith(b"content-length:"):
                        n = int(line.split(b":")[1])
                body = await reader.readexactly(n) if n else b""
                out = await self.route(path, body)
                writer.write(
                    b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: "
                    + str(len(out)).encode()
                    + b"\r\n\r\n"
                    + out
                )
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            writer.close()


def serve_parties(port: int, eo: str) -> None:
    async def main() -> None:
        parties = Parties(eo)
        server = await asyncio.start_server(parties.handle, "127.0.0.1", port)
        async with server:
            await server.serve_forever()

    asyncio.run(main())


# ------------------------------------------------------------------------ driver
def wait_up(client: httpx.Client, url: str) -> None:
    for _ in range(400):
        try:
            client.get(url)
            return
        except httpx.HTTPError:
            time.sleep(0.05)
    raise RuntimeError(f"{url} did not come up")


def bench(rounds: int, seconds: float, db: bool, rules: bool = False) -> dict[str, Any]:
    eo_port, parties_port = free_port(), free_port()
    eo = f"http://127.0.0.1:{eo_port}"
    pu = f"http://127.0.0.1:{parties_port}"
    db_arg = str(Path(tempfile.mkdtemp()) / "eo.sqlite") if db else "-"
    admin = new_secret()  # the operator's: the benchmark starts the rounds
    procs = [
        subprocess.Popen(
            [
                sys.executable,
                "-c",
                ORCH_SCRIPT,
                str(eo_port),
                db_arg,
                "rules" if rules else "-",
                admin,
            ]
        ),  # fmt: skip
        subprocess.Popen([sys.executable, __file__, "--serve-parties", str(parties_port), eo]),
    ]
    try:
        headers = {"X-Accord-Admin": admin}
        with httpx.Client(timeout=30, trust_env=False, headers=headers) as client:
            wait_up(client, eo + "/health")
            wait_up(client, pu + "/stats")
            ids = []
            for k in range(rounds):
                rid = f"bench-{k}"
                body = {
                    "roundId": rid,
                    "agents": [
                        {"url": f"{pu}/{rid}/Celia", "name": "Celia",
                         "utilityFunction": seller_utility(COSTS_C),
                         "token": secret(rid, "Celia")},
                        {"url": f"{pu}/{rid}/Watson", "name": "Watson",
                         "utilityFunction": seller_utility(COSTS_W),
                         "token": secret(rid, "Watson")},
                    ],
                    "human": {"utilityFunction": BUYER_UTILITY, "token": secret(rid, "Human")},
                    "durations": {"warmUp": 0, "round": 600, "post": 1},
                    "humanUIs": [{"url": f"{pu}/{rid}/ui", "name": "ui"}],
                }  # fmt: skip
                client.post(eo + "/initializeRound", json=body).raise_for_status()
                client.post(eo + "/startRound", json={"roundId": rid}).raise_for_status()
                ids.append(rid)
            time.sleep(0.5)
            cpu0 = cpu_seconds(procs[0].pid)
            t0 = time.monotonic()
            client.post(pu + "/go", json={"rounds": ids, "seconds": seconds, "rules": rules})
            time.sleep(seconds)
            while not (stats := client.get(pu + "/stats").json())["idle"]:
                time.sleep(0.05)
            elapsed = time.monotonic() - t0
            cpu = cpu_seconds(procs[0].pid) - cpu0
    finally:
        for p in procs:
            p.terminate()
            try:
                p.wait(5)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait(5)
    r = np.array(stats["relay"]) * 1000
    d = np.array(stats["delivery"]) * 1000
    n = len(r)
    by = {k: np.array(v) * 1000 for k, v in stats["by_speaker"].items()}
    return {
        "mode": "rules on" if rules else "closed loop, R0 = R3 window = 0",
        "human_p50": float(np.percentile(by["human"], 50)) if "human" in by else 0.0,
        "human_p99": float(np.percentile(by["human"], 99)) if "human" in by else 0.0,
        "agent_p50": float(np.percentile(by["agent"], 50)) if "agent" in by else 0.0,
        "agent_p99": float(np.percentile(by["agent"], 99)) if "agent" in by else 0.0,
        "load": os.getloadavg(),
        "rounds": rounds,
        "messages": n,
        "seconds": elapsed,
        "msgs_per_s": n / elapsed,
        "relay_p50": float(np.percentile(r, 50)),
        "relay_p99": float(np.percentile(r, 99)),
        "delivery_p50": float(np.percentile(d, 50)),
        "delivery_p99": float(np.percentile(d, 99)),
        "blocked": stats["blocked"],
        "cpu_ms_per_msg": cpu / max(1, n) * 1000,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--rounds", type=int, default=20)
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--no-db", action="store_true", help="run the orchestrator without SQLite")
    ap.add_argument(
        "--rules", action="store_true", help="the spec's rules and a real round's pace (see above)"
    )
    ap.add_argument("--serve-parties", nargs=2, metavar=("PORT", "EO"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.serve_parties:
        serve_parties(int(args.serve_parties[0]), args.serve_parties[1])
        return
    load = os.getloadavg()
    res = bench(args.rounds, args.seconds, not args.no_db, args.rules)
    rows = [
        ("concurrent rounds", f"{res['rounds']}"),
        ("messages relayed", f"{res['messages']}"),
        ("  of which blocked", f"{res['blocked']}"),
        ("messages per second", f"{res['msgs_per_s']:.1f}"),
        ("relay latency p50 (ms)", f"{res['relay_p50']:.2f}"),
        ("relay latency p99 (ms)", f"{res['relay_p99']:.2f}"),
        ("  human messages p50 (ms)", f"{res['human_p50']:.2f}"),
        ("  human messages p99 (ms)", f"{res['human_p99']:.2f}"),
        ("  agent messages p50 (ms)", f"{res['agent_p50']:.2f}"),
        ("  agent messages p99 (ms)", f"{res['agent_p99']:.2f}"),
        ("delivery latency p50 (ms)", f"{res['delivery_p50']:.2f}"),
        ("delivery latency p99 (ms)", f"{res['delivery_p99']:.2f}"),
        ("orchestrator CPU/msg (ms)", f"{res['cpu_ms_per_msg']:.2f}"),
    ]
    print()
    print(f"HUMAINE orchestrator, Accord ({res['mode']}; SQLite: {'off' if args.no_db else 'on'})")
    print(f"  load average before / after: {load[0]:.2f} / {res['load'][0]:.2f} (2 cores)")
    for name, value in rows:
        print(f"  {name:<28}{value:>12}")
    print("  original HUMAINE platform: no runnable peer here (its Node.js services are absent)")


if __name__ == "__main__":
    main()
