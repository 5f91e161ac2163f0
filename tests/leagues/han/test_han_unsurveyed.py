"""Every finished game has its row, whether or not its person answered the survey."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import httpx

from accord.leagues.han.server import create_han_app
from accord.web.testing import ServerThread, wait_until

SURVEY = {
    "use_again": 6,
    "not_recommend": 2,
    "use_frequently": 5,
    "liked_partner": 6,
    "trusted_partner": 5,
}
DEMO = {"age": 30, "gender": "female", "english_first": True, "attention": "agree"}


def start(url: str, path: str) -> httpx.Client:
    c = httpx.Client(base_url=url, timeout=10, trust_env=False)
    assert c.post(path).status_code == 303
    r = c.post("/api/participant/consent", json={"agree": True, "version": "1"})
    assert r.status_code == 200
    return c


def rows(admin: httpx.Client) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(admin.get("/api/han/games.csv").text)))


def test_a_person_who_skips_the_survey_still_has_the_games_row(tmp_path: Path) -> None:
    db = tmp_path / "han.sqlite"
    app, study, _ = create_han_app(db, ["fair"], time_limit=3.0, password="pw-han-rows")
    with ServerThread(app) as srv:
        a, b, c = (start(srv.url, i.path) for i in study.invite(3))
        for p in (a, b, c):
            assert "issues" in p.get("/api/han/state").json()
        # every game ends 3 s (of game time) after this
        wait_until(lambda: "result" in a.get("/api/han/state").json(), "a's game over")
        # a answers; b saw the end and closed the page; c closed the page before the end
        assert a.post("/api/han/survey", json={"answers": SURVEY, **DEMO}).status_code == 200
        wait_until(lambda: "result" in b.get("/api/han/state").json(), "b's game over")
        admin = httpx.Client(base_url=srv.url, timeout=30, trust_env=False)
        admin.post("/api/login", json={"username": "experimenter", "password": "pw-han-rows"})
        # c's game started last (its agent's sandbox took a moment): its row comes at its end
        got = wait_until(lambda: len(r := rows(admin)) >= 3 and r, "three games' rows")
        assert len(got) == 3, got
        assert sorted(r["surveyAnswered"] for r in got) == ["0", "0", "1"]
        answered = next(r for r in got if r["surveyAnswered"] == "1")
        assert answered["liked_partner"] == "6" and answered["age"] == "30"
        assert all(r["timedout"] == "1" for r in got)
        res = admin.get("/api/han/results").json()[0]
        assert (res["played"], res["unsurveyed"], res["games"]) == (3, 2, 1)
        # b answers late: its row is replaced, not doubled
        assert b.post("/api/han/survey", json={"answers": SURVEY, **DEMO}).status_code == 200
        got = rows(admin)
        assert sorted(r["surveyAnswered"] for r in got) == ["0", "1", "1"]
    # a restarted server on the same file has the same rows
    app2, _, _ = create_han_app(db, ["fair"], time_limit=3.0, password="pw-han-rows")
    with ServerThread(app2) as srv:
        admin = httpx.Client(base_url=srv.url, timeout=30, trust_env=False)
        admin.post("/api/login", json={"username": "experimenter", "password": "pw-han-rows"})
        assert sorted(r["surveyAnswered"] for r in rows(admin)) == ["0", "1", "1"]
