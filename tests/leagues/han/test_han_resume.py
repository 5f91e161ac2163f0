"""A running game survives a server restart: replayed from the study's SQLite file."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx

from accord.leagues.han.server import create_han_app
from accord.web.clock import VirtualClock
from accord.web.testing import ServerThread


def _app(db: Path, clock: VirtualClock) -> Any:
    return create_han_app(db, ["fair"], time_limit=120.0, password="secret-pw", clock=clock)


def test_a_running_game_continues_after_a_restart_with_board_history_and_time(
    tmp_path: Path,
) -> None:
    db, clock = tmp_path / "han.sqlite", VirtualClock()
    app, study, _ = _app(db, clock)
    with ServerThread(app) as srv:
        (inv,) = study.invite(1)
        p = httpx.Client(base_url=srv.url, timeout=10)
        assert p.post(inv.path).status_code == 303
        consent = {"agree": True, "version": "1"}
        assert p.post("/api/participant/consent", json=consent).status_code == 200
        assert p.get("/api/han/state").status_code == 200  # the game starts at t=0
        clock.advance(4.0)
        r = p.post("/api/han/event", json={"kind": "SEND_EXPRESSION", "emotion": "smug"})
        assert r.status_code == 422  # refused at parse time, kept in the record
        clock.advance(3.0)
        offer = [[3, 0, 2], [2, 0, 3], [3, 0, 2], [3, 0, 2]]
        assert p.post("/api/han/event", json={"kind": "SEND_OFFER", "offer": offer}).is_success
        clock.advance(2.5)
        r = p.post("/api/han/event", json={"kind": "SEND_MESSAGE", "preset": 3, "delay": 0.5})
        assert r.is_success
        clock.advance(1.5)
        r = p.post("/api/han/event", json={"kind": "SEND_MESSAGE", "text": "all mine"})
        assert r.status_code == 422  # refused by the rules (menu only)
        clock.advance(6.0)
        before = p.get("/api/han/state").json()
        cookies = p.cookies
    assert before["left"] == 120.0 - 17.0 and "result" not in before
    assert len(before["refused"]) == 2
    texts = [h["text"] for h in before["history"]]
    assert any(t.startswith("offer: you get ") for t in texts) and len(texts) >= 3
    assert not any("[[" in t for t in texts)  # offers in words, never raw lists

    # a new server on the same file, same clock: exactly the same game
    app2, _, service2 = _app(db, clock)
    with ServerThread(app2) as srv2:
        assert service2.matches == {}
        p2 = httpx.Client(base_url=srv2.url, timeout=10, cookies=cookies)
        after = p2.get("/api/han/state").json()
        assert after == before
        # and its clock goes on
        clock.advance(1.0)
        assert p2.get("/api/han/state").json()["left"] == 120.0 - 18.0
    # time the server is down counts: the game clock is the wall clock since the start
    clock.advance(4.0)
    app3, _, _ = _app(db, clock)
    with ServerThread(app3) as srv3:
        p3 = httpx.Client(base_url=srv3.url, timeout=10, cookies=cookies)
        s = p3.get("/api/han/state").json()
        assert s["left"] == 120.0 - 22.0 and s["history"][: len(texts)] == before["history"]
        clock.advance(200.0)
        s = p3.get("/api/han/state").json()
        assert s["result"]["outcome"] in ("timeout", "deal")
