"""The competition server over HTTP: a game, bad input, reused links, results, CSV, resume."""

from __future__ import annotations

import csv
import io
import time
from pathlib import Path

import httpx

from accord.leagues.han.server import create_han_app
from accord.web.testing import ServerThread

SURVEY = {
    "use_again": 6,
    "not_recommend": 2,
    "use_frequently": 5,
    "liked_partner": 6,
    "trusted_partner": 5,
}


def start(url: str, path: str) -> httpx.Client:
    c = httpx.Client(base_url=url, timeout=10)
    r = c.post(path)
    assert r.status_code == 303
    assert (
        c.post("/api/participant/consent", json={"agree": True, "version": "1"}).status_code == 200
    )
    return c


def test_a_game_over_http_with_bad_input_a_reused_link_and_results(tmp_path: Path) -> None:
    app, study, service = create_han_app(
        tmp_path / "han.sqlite", ["fair", "tough"], time_limit=30.0, password="secret-pw"
    )
    with ServerThread(app) as srv:
        inv = study.invite(2)
        p = start(srv.url, inv[0].path)
        s = p.get("/api/han/state").json()
        assert s["issues"] == ["Oil", "Iron", "Foodstuffs", "Lumber"] and s["values"] == [
            4,
            3,
            1,
            2,
        ]
        assert s["batna"] == 4 and "agent_points" not in str(s)
        # malformed, too many items, accept with no full offer, free text: refused, recorded
        r = p.post("/api/han/event", json={"kind": "SEND_EXPRESSION", "emotion": "smug"})
        assert r.status_code == 422 and "emotion must be one of" in r.json()["error"]
        r = p.post(
            "/api/han/event",
            json={"kind": "SEND_OFFER", "offer": [[0, 0, 6], [0, 5, 0], [0, 5, 0], [0, 5, 0]]},
        )
        assert r.status_code == 422 and "issue 'Oil' has 5 items" in r.json()["error"]
        r = p.post("/api/han/event", json={"kind": "FORMAL_ACCEPT"})
        assert r.status_code == 422
        r = p.post("/api/han/event", json={"kind": "SEND_MESSAGE", "text": "give me all"})
        assert r.status_code == 422 and "menu messages only" in r.json()["error"]
        r = p.post(
            "/api/han/event", content=b"{not json", headers={"content-type": "application/json"}
        )
        assert r.status_code == 400
        # the game goes on: once the fair agent's opening offer is out (an offer of
        # ours sent earlier would wait in its inbox while it is busy sending, and its
        # opening would replace ours), a full offer it likes, then both accept
        for _ in range(50):
            if p.get("/api/han/state").json()["offer"] is not None:
                break
            time.sleep(0.1)
        offer = [[3, 0, 2], [2, 0, 3], [3, 0, 2], [3, 0, 2]]
        assert (
            p.post("/api/han/event", json={"kind": "SEND_OFFER", "offer": offer}).status_code == 200
        )
        assert (
            p.post("/api/han/event", json={"kind": "SEND_MESSAGE", "preset": 3}).status_code == 200
        )
        assert p.post("/api/han/event", json={"kind": "FORMAL_ACCEPT"}).status_code == 200
        deadline = 50
        while "result" not in (s := p.get("/api/han/state").json()) and deadline:
            time.sleep(0.2)
            deadline -= 1
        assert s["result"] == {"outcome": "deal", "points": 2 * 4 + 3 * 3 + 2 * 1 + 2 * 2}
        assert len(s["refused"]) == 4
        bad = dict(SURVEY, use_again=9)
        demo = {"age": 30, "gender": "female", "english_first": True, "attention": "agree"}
        assert p.post("/api/han/survey", json={"answers": bad, **demo}).status_code == 422
        r = p.post("/api/han/survey", json={"answers": SURVEY, **demo})
        assert r.status_code == 200 and r.json()["next"] == "/study/done.html"
        # the link works once
        other = httpx.Client(base_url=srv.url, timeout=10)
        assert other.post(inv[0].path).status_code == 409
        admin = httpx.Client(base_url=srv.url, timeout=10)
        assert (
            admin.post(
                "/api/login", json={"username": "experimenter", "password": "secret-pw"}
            ).status_code
            == 200
        )
        res = admin.get("/api/han/results").json()
        assert res[0] == {
            "agent": "fair",
            "games": 1,
            "played": 1,
            "unsurveyed": 0,
            "points": 28.0,
            "points_ci95": None,
            "points_n": 1,
            "likeability": 5.6,
            "likeability_ci95": None,
            "likeability_n": 1,
        }
        rows = list(csv.DictReader(io.StringIO(admin.get("/api/han/games.csv").text)))
        assert len(rows) == 1 and rows[0]["agent1"] == "fair" and rows[0]["userPoints"] == "23"
        assert rows[0]["numUserOffers"] == "1" and rows[0]["numUserMsg"] == "1"
        assert rows[0]["attentionPassed"] == "1" and rows[0]["liked_partner"] == "6"
    # resumable: a new server on the same file knows the finished game
    app2, study2, service2 = create_han_app(
        tmp_path / "han.sqlite", ["fair", "tough"], time_limit=30.0
    )
    assert [r["games"] for r in service2.results()] == [1, 0]


def test_an_unknown_agent_or_a_bad_time_is_refused_before_serving(tmp_path: Path) -> None:
    import pytest

    from accord.core.errors import AccordError

    with pytest.raises(AccordError, match="unknown HAN agent 'nobody'"):
        create_han_app(tmp_path / "a.sqlite", ["fair", "nobody"])
    with pytest.raises(AccordError, match="needs at least one registered agent"):
        create_han_app(tmp_path / "b.sqlite", [])
