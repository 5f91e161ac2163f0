"""The live channel over HTTP: the state comes when something happens, not on a poll."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path

import httpx

from accord.leagues.han.server import create_han_app
from accord.web.testing import ServerThread


def _events(lines: Iterator[str]) -> Iterator[tuple[str, dict]]:
    kind = ""
    for line in lines:
        if line.startswith("event: "):
            kind = line[7:]
        elif line.startswith("data: "):
            yield kind, json.loads(line[6:])


def test_the_live_stream_sends_the_state_on_events_and_ends_with_the_result(
    tmp_path: Path,
) -> None:
    app, study, _ = create_han_app(tmp_path / "han.sqlite", ["fair"], time_limit=8.0)
    with ServerThread(app) as srv:
        (inv,) = study.invite(1)
        p = httpx.Client(base_url=srv.url, timeout=20)
        assert p.post(inv.path).status_code == 303
        consent = {"agree": True, "version": "1"}
        assert p.post("/api/participant/consent", json=consent).status_code == 200
        with p.stream("GET", "/api/han/live") as r:
            assert r.headers["content-type"].startswith("text/event-stream")
            events = _events(r.iter_lines())
            kind, first = next(events)
            assert kind == "state" and first["left"] > 7.0 and "result" not in first
            for _, s in events:  # the agent's opening (greeting, smile, offer) comes pushed
                if any(h["who"] == "agent" and "offer" in h["text"] for h in s["history"]):
                    break
            # the opening is over well before the 5 s tick: the stream now sleeps until it
            assert s["left"] > 8.0 - 3.5
            sent = time.monotonic()
            poster = httpx.Client(base_url=srv.url, timeout=10, cookies=p.cookies)
            r2 = poster.post("/api/han/event", json={"kind": "SEND_MESSAGE", "preset": 3})
            assert r2.status_code == 200
            # the person's message reaches the stream at once, not on the 5 s heartbeat
            for _, s in events:
                if any(h["who"] == "person" for h in s["history"]):
                    break
            # (a generous bound for a loaded machine, still below the heartbeat's 5 s)
            assert time.monotonic() - sent < 4.0
            # then the time limit: the last event carries the result and the stream ends
            states = [s for _, s in events]
            assert states[-1]["result"]["outcome"] == "timeout"
            assert all("result" not in s for s in states[:-1])
