"""A sequence of games on the web: in order, one agent instance, a survey after each."""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Any

import httpx

from accord.leagues.han.server import create_han_app
from accord.web.clock import VirtualClock
from accord.web.testing import ServerThread

SURVEY = {
    "answers": {k: 4 for k in ("use_again", "not_recommend", "use_frequently", "liked_partner",
                                "trusted_partner")},
    "age": 30, "gender": "x", "english_first": True, "attention": "agree",
}  # fmt: skip


def _app(db: Path, clock: VirtualClock) -> Any:
    return create_han_app(
        db,
        ["fair"],
        game=["example-1", "example-2"],
        time_limit=30.0,
        password="secret-pw",
        clock=clock,
    )


def test_two_games_against_one_agent_instance_survive_a_restart(tmp_path: Path) -> None:
    db, clock = tmp_path / "han.sqlite", VirtualClock()
    app, study, service = _app(db, clock)
    with ServerThread(app) as srv:
        (inv,) = study.invite(1)
        p = httpx.Client(base_url=srv.url, timeout=10)
        assert p.post(inv.path).status_code == 303
        consent = {"agree": True, "version": "1"}
        assert p.post("/api/participant/consent", json=consent).status_code == 200
        s = p.get("/api/han/state").json()
        assert (s["game"], s["games"], s["issues"][0]) == (1, 2, "Oil")
        batna1 = s["batna"]
        (pid,) = service.matches
        agent = service.agent_of[pid]
        assert p.post("/api/han/survey", json=SURVEY).status_code == 409  # game not over
        clock.advance(31.0)
        assert p.get("/api/han/state").json()["result"]["outcome"] == "timeout"
        r = p.post("/api/han/survey", json=SURVEY).json()
        assert r == {"done": False, "next": "/han.html"}
        s = p.get("/api/han/state").json()  # the second game, fresh clock, same agent
        assert (s["game"], s["left"], "result" in s) == (2, 30.0, False)
        assert s["issues"] != ["Oil", "Iron", "Foodstuffs", "Lumber"]
        assert service.agent_of[pid] is agent
        clock.advance(2.0)
        assert p.post("/api/han/event", json={"kind": "SEND_MESSAGE", "preset": 1}).is_success
        clock.advance(3.0)
        before = p.get("/api/han/state").json()
        cookies = p.cookies
    # restarted: the agent is rebuilt from both games, and game 2 goes on where it was
    app2, _, service2 = _app(db, clock)
    with ServerThread(app2) as srv2:
        p2 = httpx.Client(base_url=srv2.url, timeout=10, cookies=cookies)
        assert p2.get("/api/han/state").json() == before
        assert service2.played[pid] == 1
        clock.advance(30.0)
        assert p2.get("/api/han/state").json()["result"]["outcome"] == "timeout"
        r = p2.post("/api/han/survey", json=SURVEY).json()
        assert r == {"done": True, "next": "/study/done.html"}
        assert p2.get("/api/han/state").status_code == 409
        admin = httpx.Client(base_url=srv2.url, timeout=10)
        admin.post("/api/login", json={"username": "experimenter", "password": "secret-pw"})
        rows = list(csv.DictReader(io.StringIO(admin.get("/api/han/games.csv").text)))
        assert [r["currentGame"] for r in rows] == ["0", "1"]
        assert [(r["timedout"], r["userPoints"]) for r in rows] == [
            ("1", str(batna1)),
            ("1", str(before["batna"])),
        ]
