"""The GENIUS negotiation page on the shared play routes: ``GET /api/genius/live`` sends
the page's state at once and again after each committed change (a refused or unreadable
action tells no page), and ends once the negotiation is over."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest

from accord.leagues.genius.protocol import VirtualClock
from accord.leagues.genius.server import condition, create_genius_app, genius_design
from accord.leagues.genius.service import GeniusStudy
from accord.web.testing import ServerThread, read_sse

PW = "pw-genius-stream"


def _person(url: str, path: str) -> httpx.Client:
    c = httpx.Client(base_url=url, timeout=30, trust_env=False)
    c.post(path)
    assert c.post("/api/participant/consent", json={"agree": True, "version": "1"}).is_success
    return c


def test_the_page_stream_follows_committed_changes_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    clock = VirtualClock(1000.0)
    design = genius_design([condition("person", turn_seconds=60)])
    app, study = create_genius_app(tmp_path, design, password=PW, clock=clock)
    service: GeniusStudy = app.state.genius
    woken: list[tuple[str, ...]] = []
    wake = service.live_pages.wake

    def spy(*pids: str) -> None:
        assert not study.store.conn.in_transaction  # told after the commit only
        woken.append(pids)
        wake(*pids)

    monkeypatch.setattr(service.live_pages, "wake", spy)
    with ServerThread(app) as server:
        alice, bob = (_person(server.url, inv.path) for inv in study.invite(2))
        assert alice.get("/api/genius/state").json()["status"] == "waiting"
        with alice.stream("GET", "/api/genius/live") as r:
            lines = r.iter_lines()
            assert read_sse(lines, 1) == [("state", {"status": "waiting",
                                                     "message": "waiting for the other participant"})]  # fmt: skip
            mine = bob.get("/api/genius/state").json()  # pairs them: both pages told
            ((event, first),) = read_sse(lines, 1)
            assert (event, first["status"], first["side"], mine["side"]) == (
                "state",
                "running",
                0,
                1,
            )
            told = len(woken)
            bad = alice.post(
                "/api/genius/action", json={"kind": "offer", "values": {"Salary": "x"}}
            )
            junk = alice.post(
                "/api/genius/action", content=b"{", headers={"content-type": "application/json"}
            )
            assert (bad.status_code, junk.status_code, len(woken)) == (422, 400, told)
            full = {i["name"]: i["values"][0] for i in first["issues"]}
            offer = alice.post("/api/genius/action", json={"kind": "offer", "values": full})
            assert offer.status_code == 200
            ((_, second),) = read_sse(lines, 1)
            assert [o["values"] for o in second["offers"]] == [full] and len(woken) > told
            assert second == alice.get("/api/genius/state").json()
            accept = {"kind": "accept", "offer": offer.json()["offer"]}
            assert bob.post("/api/genius/action", json=accept).status_code == 200
            rest: list[Any] = []
            for _, state in read_sse(lines, 10):  # until the stream ends
                rest.append(state)
                if state["status"] == "ended":
                    break
            assert rest[-1]["result"]["reason"] == "agreement"
