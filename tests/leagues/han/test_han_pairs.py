"""Person-vs-person over HTTP on a virtual clock: pairing, a deal, the odd one out, leaving,
a reused link, a page closed while waiting, rows and results, and a restart."""

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
    "use_again": 5,
    "not_recommend": 3,
    "use_frequently": 4,
    "liked_partner": 6,
    "trusted_partner": 5,
}
DEMO = {"age": 30, "gender": "other", "english_first": True, "attention": "agree"}


def _app(db: Path, clock: VirtualClock) -> Any:
    return create_han_app(
        db, [], pairs=True, wait=60.0, time_limit=120.0, password="secret-pw", clock=clock
    )


def _start(url: str, path: str) -> httpx.Client:
    c = httpx.Client(base_url=url, timeout=10)
    assert c.post(path).status_code == 303
    assert c.post("/api/participant/consent", json={"agree": True, "version": "1"}).is_success
    return c


def _pair(url: str, invites: list[Any]) -> tuple[httpx.Client, httpx.Client]:
    """The first two invited people, each in the waiting room in turn: paired."""
    a = _start(url, invites[0].path)
    a.get("/api/han/state")
    b = _start(url, invites[1].path)
    b.get("/api/han/state")
    return a, b


def _csv(url: str) -> list[dict[str, str]]:
    admin = httpx.Client(base_url=url, timeout=10)
    admin.post("/api/login", json={"username": "experimenter", "password": "secret-pw"})
    return list(csv.DictReader(io.StringIO(admin.get("/api/han/games.csv").text)))


def test_a_pair_bargains_to_a_deal_each_seeing_their_own_side(tmp_path: Path) -> None:
    clock = VirtualClock()
    app, study, service = _app(tmp_path / "han.sqlite", clock)
    with ServerThread(app) as srv:
        inv = study.invite(3)
        a = _start(srv.url, inv[0].path)
        w = a.get("/api/han/state").json()
        assert w == {"waiting": True, "partner": "person", "timeout": 60.0, "left": 60.0}
        r = a.post("/api/han/event", json={"kind": "SEND_MESSAGE", "preset": 1})
        assert r.status_code == 409 and "no partner yet" in r.json()["error"]
        clock.advance(10.0)
        b = _start(srv.url, inv[1].path)
        sb = b.get("/api/han/state").json()  # b arrives: the pair forms, the game starts
        sa = a.get("/api/han/state").json()
        assert (sa["pair"], sb["pair"], sa["partner"], sa["left"]) == (
            "pair-001", "pair-001", "person", 120.0,
        )  # fmt: skip
        # a waited longer: the person's side; b sits on the agent's side, with its values
        assert (sa["values"], sa["batna"]) == ([4, 3, 1, 2], 4)
        assert (sb["values"], sb["batna"]) == ([1, 2, 4, 3], 4)
        assert "agent_points" not in str(sb) and "person_points" not in str(sa)
        # the link used again from another browser is refused; the game goes on
        assert httpx.post(srv.url + inv[0].path).status_code == 409
        assert "link_reused" in [e.kind for e in study.events.read(party=inv[0].pid)]
        assert a.get("/api/han/state").json()["pair"] == "pair-001"
        # b sends an offer from its board (partner, undecided, me): b takes the Oil only
        clock.advance(5.0)
        mine_oil = [[0, 0, 5], [5, 0, 0], [5, 0, 0], [5, 0, 0]]
        sb = b.post("/api/han/event", json={"kind": "SEND_OFFER", "offer": mine_oil}).json()
        assert sb["offer"] == mine_oil and sb["points_on_table"] == 5
        sa = a.get("/api/han/state").json()  # a sees it turned round: a has the rest
        assert sa["offer"] == [[5, 0, 0], [0, 0, 5], [0, 0, 5], [0, 0, 5]]
        assert sa["points_on_table"] == 3 * 5 + 1 * 5 + 2 * 5
        assert sa["history"][-1] == {
            "t": 5.0, "who": "agent", "kind": "SEND_OFFER",
            "text": "offer: you get 5 Iron, 5 Foodstuffs, 5 Lumber; the other side gets 5 Oil",
        }  # fmt: skip
        # both people are held to the menus
        r = b.post("/api/han/event", json={"kind": "SEND_MESSAGE", "text": "deal?"})
        assert r.status_code == 422 and "menu messages only" in r.json()["error"]
        assert a.post("/api/han/event", json={"kind": "SEND_EXPRESSION", "emotion": "happy"})
        assert a.post("/api/han/event", json={"kind": "FORMAL_ACCEPT"}).is_success
        assert "result" not in a.get("/api/han/state").json()
        clock.advance(2.0)
        sb = b.post("/api/han/event", json={"kind": "FORMAL_ACCEPT"}).json()
        assert sb["result"] == {"outcome": "deal", "points": 5}
        assert a.get("/api/han/state").json()["result"] == {"outcome": "deal", "points": 30}
        # the third person waits alone and is released after 60 s
        c = _start(srv.url, inv[2].path)
        assert c.get("/api/han/state").json()["left"] == 60.0
        clock.advance(59.0)
        assert c.get("/api/han/state").json()["waiting"] is True
        clock.advance(1.0)
        sc = c.get("/api/han/state").json()
        assert sc["how"] == "released" and sc["next"] == "/study/done.html"
        assert "within 1 minutes" in sc["released"]
        assert c.get("/api/participant").json()["status"] == "done"
        for who in (a, b):
            r = who.post("/api/han/survey", json={"answers": SURVEY, **DEMO})
            assert r.json() == {"done": True, "next": "/study/done.html"}
        rows = {r["id"]: r for r in _csv(srv.url)}
        ra, rb = rows[inv[0].pid], rows[inv[1].pid]
        assert (ra["pairId"], ra["role"], ra["partner"], ra["partnerType"], ra["surveyAbout"]) == (
            "pair-001", "person", inv[1].pid, "person", "person",
        )  # fmt: skip
        assert (rb["pairId"], rb["role"], rb["partner"]) == ("pair-001", "agent", inv[0].pid)
        assert (ra["userPoints"], ra["vhPoints"], rb["userPoints"], rb["vhPoints"]) == (
            "30", "5", "5", "30",
        )  # fmt: skip
        assert (ra["numUserOffers"], ra["numVHOffers"], rb["numUserOffers"]) == ("0", "1", "1")
        assert (ra["numUserHappy"], rb["numVHHappy"], rb["numUserHappy"]) == ("1", "1", "0")
        assert (ra["finalOfferUserAlloc1"], rb["finalOfferUserAlloc1"]) == ("0", "5")
        assert ra["endedBy"] == rb["endedBy"] == "deal" and ra["condition"] == "pairs"
        assert inv[2].pid not in rows  # released: no game, no row
        (res,) = service.results()
        assert res == {  # one pair is one unit: no interval from one unit
            "agent": "pairs", "games": 2, "pairs": 1, "played": 2, "unsurveyed": 0,
            "points": 17.5, "points_ci95": None, "points_n": 1,
            "joint_points": 35.0, "joint_points_ci95": None, "joint_points_n": 1,
            "likeability": 5.0, "likeability_ci95": None, "likeability_n": 1,
        }  # fmt: skip
        kinds = [e.kind for e in study.events.read(party=inv[2].pid)]
        assert kinds[-4:] == ["waiting", "released", "round_done", "finished"]


def test_a_player_who_leaves_ends_the_game_with_batnas_and_the_partner_is_told(
    tmp_path: Path,
) -> None:
    clock = VirtualClock()
    app, study, _ = _app(tmp_path / "han.sqlite", clock)
    with ServerThread(app) as srv:
        inv = study.invite(4)
        a, b = _pair(srv.url, inv)
        clock.advance(8.0)
        offer = [[2, 0, 3], [2, 0, 3], [3, 0, 2], [3, 0, 2]]
        assert a.post("/api/han/event", json={"kind": "SEND_OFFER", "offer": offer}).is_success
        clock.advance(2.0)
        assert b.post("/api/han/leave").json() == {"done": True, "next": "/study/done.html"}
        assert b.get("/api/participant").json()["status"] == "withdrawn"
        sa = a.get("/api/han/state").json()
        assert sa["result"] == {"outcome": "partner_left", "points": 4}  # a's BATNA
        r = a.post("/api/han/event", json={"kind": "FORMAL_ACCEPT"})
        assert r.status_code == 409
        assert a.post("/api/han/survey", json={"answers": SURVEY, **DEMO}).is_success
        # a page closed while waiting: gone after 15 s without asking; never paired
        c = _start(srv.url, inv[2].path)
        assert c.get("/api/han/state").json()["waiting"] is True
        clock.advance(16.0)
        d = _start(srv.url, inv[3].path)
        assert d.get("/api/han/state").json()["waiting"] is True
        assert c.get("/api/participant").json()["status"] == "withdrawn"
        assert c.get("/api/han/state").json()["how"] == "gone"
        # and one who leaves the waiting room by hand
        assert d.post("/api/han/leave").is_success
        assert d.get("/api/participant").json()["status"] == "withdrawn"
        rows = {r["id"]: r for r in _csv(srv.url)}
        ra, rb = rows[inv[0].pid], rows[inv[1].pid]
        assert (ra["endedBy"], rb["endedBy"]) == ("partner_left", "left")
        assert (ra["userPoints"], ra["vhPoints"], rb["userPoints"]) == ("4", "4", "4")
        assert rb["liked_partner"] == "" and rb["attentionPassed"] == "0"
        assert (ra["gameEndTime"], ra["pairId"], rb["pairId"]) == ("10.0", "pair-001", "pair-001")
        kinds_b = [e.kind for e in study.events.read(party=inv[1].pid)]
        assert kinds_b[-3:] == ["left", "game_row", "withdrawn"]
        kinds_c = [e.kind for e in study.events.read(party=inv[2].pid)]
        assert kinds_c[-1] == "withdrawn"


def test_a_pair_game_survives_a_restart(tmp_path: Path) -> None:
    db, clock = tmp_path / "han.sqlite", VirtualClock()
    app, study, _ = _app(db, clock)
    with ServerThread(app) as srv:
        inv = study.invite(2)
        a, b = _pair(srv.url, inv)
        clock.advance(3.0)
        offer = [[0, 0, 5], [5, 0, 0], [5, 0, 0], [5, 0, 0]]
        assert b.post("/api/han/event", json={"kind": "SEND_OFFER", "offer": offer}).is_success
        clock.advance(1.0)
        assert a.post("/api/han/event", json={"kind": "SEND_MESSAGE", "preset": 3}).is_success
        r = a.post("/api/han/event", json={"kind": "SEND_EXPRESSION", "emotion": "smug"})
        assert r.status_code == 422
        clock.advance(2.0)
        before = (a.get("/api/han/state").json(), b.get("/api/han/state").json())
        cookies = (a.cookies, b.cookies)
    app2, _, _ = _app(db, clock)
    with ServerThread(app2) as srv2:
        a2 = httpx.Client(base_url=srv2.url, timeout=10, cookies=cookies[0])
        b2 = httpx.Client(base_url=srv2.url, timeout=10, cookies=cookies[1])
        after = (a2.get("/api/han/state").json(), b2.get("/api/han/state").json())
        assert after == before and before[0]["left"] == 114.0
        assert len(after[0]["refused"]) == 1 and after[1]["refused"] == []
        assert b2.post("/api/han/event", json={"kind": "FORMAL_ACCEPT"}).is_success
        assert a2.post("/api/han/event", json={"kind": "FORMAL_ACCEPT"}).json()["result"] == {
            "outcome": "deal", "points": 30,
        }  # fmt: skip


def test_pairs_as_one_condition_of_a_study_with_agents(tmp_path: Path) -> None:
    clock = VirtualClock()
    app, study, service = create_han_app(
        tmp_path / "han.sqlite", ["fair"], pairs=True, password="secret-pw", clock=clock
    )
    assert [(c.name, c.params) for c in study.design.conditions] == [
        ("fair", {"agent": "fair"}), ("pairs", {"partner": "person"}),
    ]  # fmt: skip
    with ServerThread(app) as srv:
        inv = study.invite(3)  # balanced: fair, pairs, fair
        p0, p1 = _start(srv.url, inv[0].path), _start(srv.url, inv[1].path)
        s0, s1 = p0.get("/api/han/state").json(), p1.get("/api/han/state").json()
        assert (s0["partner"], s0["values"]) == ("agent", [4, 3, 1, 2])
        assert s1["waiting"] is True and s1["timeout"] == 300.0
        r = p0.post("/api/han/leave")
        assert r.status_code == 409 and "against an agent" in r.json()["error"]
        assert [r["agent"] for r in service.results()] == ["fair", "pairs"]


def test_a_pair_who_skip_the_survey_still_have_their_rows(tmp_path: Path) -> None:
    """Both people of a pair close the page at the end without a survey: each still has
    the game's row, marked ``surveyAnswered`` 0, after a restart too; an answer given
    later replaces that person's row, never doubles it."""
    clock = VirtualClock()
    db = tmp_path / "han.sqlite"
    app, study, _ = _app(db, clock)
    with ServerThread(app) as srv:
        inv = study.invite(2)
        a, b = _start(srv.url, inv[0].path), _start(srv.url, inv[1].path)
        a.get("/api/han/state")
        assert b.get("/api/han/state").json()["pair"] == "pair-001"
        clock.advance(121.0)  # the game runs out of time; neither page asks again
        rows = _csv(srv.url)
        assert len(rows) == 2, rows
        assert sorted((r["role"], r["partner"], r["surveyAnswered"]) for r in rows) == [
            ("agent", inv[0].pid, "0"), ("person", inv[1].pid, "0"),
        ]  # fmt: skip
        assert {r["timedout"] for r in rows} == {"1"}
        assert {r["partnerType"] for r in rows} == {"person"}
        assert {r["pairId"] for r in rows} == {"pair-001"}
    clock2 = VirtualClock(start=clock.now())
    app2, _, _ = _app(db, clock2)
    with ServerThread(app2) as srv:
        assert sorted(r["surveyAnswered"] for r in _csv(srv.url)) == ["0", "0"]
        a.base_url = httpx.URL(srv.url)
        r = a.post("/api/han/survey", json={"answers": SURVEY, **DEMO})
        assert r.status_code == 200, r.text
        rows = _csv(srv.url)
        assert sorted(r["surveyAnswered"] for r in rows) == ["0", "1"] and len(rows) == 2
