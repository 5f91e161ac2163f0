"""One bad request never bricks a study: a chip count of 10**30 is refused before it is
stored, and a damaged stored game is set aside at start-up while every other game goes on."""

from __future__ import annotations

import json
import logging
import sqlite3
from pathlib import Path

import httpx
import pytest

from accord.leagues.trails.server import create_trails_app, stream_of, trails_design
from accord.web.testing import ServerThread

PW = "pw-trails-rows"


def _person(url: str, path: str) -> httpx.Client:
    c = httpx.Client(base_url=url, trust_env=False, cookies=None)
    c.post(path)
    assert (
        c.post("/api/participant/consent", json={"agree": True, "version": "1"}).status_code == 200
    )
    return c


def test_a_huge_count_is_refused_and_a_damaged_game_is_set_aside(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    folder = tmp_path / "study"
    design = trails_design(["purb"])
    app, study = create_trails_app(folder, design, password=PW)
    with ServerThread(app) as srv:
        a_inv, b_inv = study.invite(2)
        a, b = _person(srv.url, a_inv.path), _person(srv.url, b_inv.path)
        sa, sb = a.get("/api/trails/state").json(), b.get("/api/trails/state").json()
        n = sa["nColors"]
        huge = {"kind": "propose", "give": [10**30] + [0] * (n - 1), "take": [0] * n}
        r = a.post("/api/trails/act", json=huge)
        assert r.status_code == 422 and r.json()["code"] == "out_of_range"
        r = a.post("/api/trails/act", json={**huge, "give": [10**6] + [0] * (n - 1)})
        assert r.status_code == 422 and "less than or equal to 1000" in r.json()["error"]
        assert a.get("/api/trails/state").json() == sa  # nothing changed
        sb = b.post("/api/trails/act", json={"kind": "pass"}).json()
        a_game, b_game = sa["game"], sb["game"]
    # restart: both games as they were
    app2, study2 = create_trails_app(folder, design, password=PW)
    with ServerThread(app2) as srv:
        a.base_url = b.base_url = httpx.URL(srv.url)
        assert a.get("/api/trails/state").json()["turn"] == sa["turn"]
        assert b.get("/api/trails/state").json()["phase"] == sb["phase"]
    # damage a's stored play (an action no rules can read), then restart again
    with sqlite3.connect(folder / "study.sqlite") as conn:
        bad = {"party": 0, "now": 1.0, "tick": 1.0, "events": [],
               "action": {"kind": "propose", "args": {"give_0": 10**30, "take": "x"}}}  # fmt: skip
        conn.execute(
            "INSERT INTO events (at, stream, party, kind, data) VALUES (0, ?, NULL, 'act', ?)",
            (stream_of(a_game), json.dumps(bad)),
        )
    with caplog.at_level(logging.ERROR, logger="accord.trails"):
        app3, study3 = create_trails_app(folder, design, password=PW)
    assert f"game {a_game} cannot be restored and is set aside" in caplog.text
    with ServerThread(app3) as srv:
        a.base_url = b.base_url = httpx.URL(srv.url)
        r = a.get("/api/trails/state")
        assert r.status_code == 409 and r.json()["code"] == "game_unreadable"
        assert "contact the experimenter" in r.json()["error"]
        again = b.get("/api/trails/state").json()
        assert again["game"] == b_game and again["phase"] == sb["phase"]
        # a new participant gets a new game with a new id
        (c_inv,) = study3.invite(1)
        c = _person(srv.url, c_inv.path)
        assert c.get("/api/trails/state").json()["game"] not in (a_game, b_game)
