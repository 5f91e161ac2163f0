"""Studies over HTTP on a real loopback server: links, consent, rounds, progress, CSV,
restart."""

from __future__ import annotations

import contextlib
import csv
import io
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from tiny_league import DESIGN, make_app

from accord.web.errors import WebError
from accord.web.study import Condition, Study, StudyDesign
from accord.web.testing import ServerThread


@contextlib.contextmanager
def experimenter(url: str) -> Iterator[httpx.Client]:
    """An httpx client logged in as the experimenter (session cookie)."""
    with httpx.Client(base_url=url, timeout=10) as client:
        r = client.post("/api/login", json={"username": "experimenter", "password": "pw-123456"})
        assert r.status_code == 200, r.text
        yield client


def invite(client: httpx.Client, count: int = 1) -> list[str]:
    r = client.post("/api/study/invites", json={"count": count, "label": "t"})
    assert r.status_code == 201, r.text
    return [i["link"] for i in r.json()]


def test_a_link_works_once_and_the_first_browser_resumes(tmp_path: Path) -> None:
    study = Study(tmp_path / "s.sqlite", DESIGN, password="pw-123456")
    with ServerThread(make_app(study)) as srv, experimenter(srv.url) as admin:
        (link,) = invite(admin)
        with httpx.Client(timeout=10) as person, httpx.Client(timeout=10) as stranger:
            look = stranger.get(link)  # looking (a mail system's link check) uses nothing
            assert look.status_code == 200 and "id=start type=submit>Start" in look.text
            first = person.post(link)
            assert first.status_code == 303 and first.headers["location"] == "/study/consent.html"
            again = person.get(link)  # same browser (cookie): carry on where it was
            assert again.status_code == 303
            assert person.post(link).status_code == 303
            assert stranger.post(link).json()["code"] == "link_used"
            reused = stranger.get(link)
            assert reused.status_code == 409
            body = reused.json()
            assert body["status"] == "Failed" and body["code"] == "link_used"
            assert body["error"].startswith("this study link was already used on 20")
            page = stranger.get(link, headers={"Accept": "text/html"})
            assert page.status_code == 409 and 'data-code="link_used"' in page.text
            unknown = stranger.post(f"{srv.url}/s/not-a-link")
            assert unknown.status_code == 404 and unknown.json()["code"] == "unknown_link"
            assert stranger.get(f"{srv.url}/api/participant").status_code == 401


def test_consent_rounds_and_progress_follow_the_design(tmp_path: Path) -> None:
    study = Study(tmp_path / "s.sqlite", DESIGN, password="pw-123456")
    with ServerThread(make_app(study)) as srv, experimenter(srv.url) as admin:
        links = invite(admin, 3)
        plans = [p["plan"] for p in admin.get("/api/study/participants").json()]
        assert plans == [["greedy", "fair"], ["fair", "greedy"], ["greedy", "fair"]]
        with httpx.Client(base_url=srv.url, timeout=10) as p1:
            p1.post(links[0])
            old = p1.post("/api/participant/consent", json={"agree": True, "version": "1"})
            assert old.status_code == 409 and "consent text changed (version 2" in old.text
            early = p1.post("/api/ultimatum/offer", json={"give": 70})
            assert early.status_code == 409 and "p001 is opened" in early.json()["error"]
            me = p1.post("/api/participant/consent", json={"agree": True, "version": "2"}).json()
            assert (me["next"], me["condition"], me["params"]) == (
                "/task.html",
                "greedy",
                {"threshold": 60},
            )
            twice = p1.post("/api/participant/consent", json={"agree": False, "version": "2"})
            assert twice.status_code == 409
            bad = p1.post("/api/ultimatum/offer", json={"give": 170})
            assert bad.status_code == 422 and bad.json()["fields"][0]["loc"] == "body.give"
            assert p1.post("/api/ultimatum/offer", json={"give": 70}).json()["accepted"] is True
            assert p1.get("/api/participant").json()["condition"] == "fair"
        with httpx.Client(base_url=srv.url, timeout=10) as p2:
            p2.post(links[1])
            me = p2.post("/api/participant/consent", json={"agree": False, "version": "2"}).json()
            assert me["status"] == "declined" and me["next"] == "/study/done.html"
        progress = admin.get("/api/study").json()["progress"]
        assert progress["byStatus"] == {
            "invited": 1,
            "opened": 0,
            "consented": 1,
            "declined": 1,
            "done": 0,
        }
        assert progress["conditions"] == {
            "greedy": {"active": 0, "roundsDone": 1},
            "fair": {"active": 1, "roundsDone": 0},
        }


def test_the_experimenter_api_needs_a_login_and_exports_csv(tmp_path: Path) -> None:
    study = Study(tmp_path / "s.sqlite", DESIGN, password="pw-123456")
    with ServerThread(make_app(study)) as srv:
        with httpx.Client(base_url=srv.url, timeout=10) as anon:
            r = anon.get("/api/study/events.csv")
            assert r.status_code == 401 and r.json()["code"] == "unauthorized"
            wrong = anon.post("/api/login", json={"username": "experimenter", "password": "x"})
            assert (
                wrong.status_code == 401 and wrong.json()["error"] == "wrong user name or password"
            )
        with experimenter(srv.url) as admin:
            invite(admin, 2)
            r = admin.get("/api/study/events.csv")
            assert r.headers["content-type"].startswith("text/csv")
            assert 'filename="ultimatum-pilot-events.csv"' in r.headers["content-disposition"]
            rows = list(csv.DictReader(io.StringIO(r.text)))
            assert [(x["seq"], x["party"], x["kind"]) for x in rows] == [
                ("1", "p001", "invited"),
                ("2", "p002", "invited"),
            ]


def test_a_restarted_server_resumes_the_study_links_and_cookies_included(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    study = Study(path, DESIGN, password="pw-123456")
    with ServerThread(make_app(study)) as srv, experimenter(srv.url) as admin:
        link, spare = invite(admin, 2)
        person = httpx.Client(base_url=srv.url, timeout=10)
        person.post(link)
        person.post("/api/participant/consent", json={"agree": True, "version": "2"})
        person.post("/api/ultimatum/offer", json={"give": 10})
    # a new process would do exactly this: open the same file with the same design
    study = Study(path, DESIGN)
    assert study.initial_password is None  # the stored password stays
    with ServerThread(make_app(study)) as srv:
        person.base_url = httpx.URL(srv.url)
        me = person.get("/api/participant").json()
        assert (me["pid"], me["round"], me["condition"]) == ("p001", 1, "fair")
        assert person.post("/api/ultimatum/offer", json={"give": 50}).json()["accepted"]
        assert person.get("/api/participant").json()["status"] == "done"
        fresh = httpx.post(spare.replace(spare.split("/s/")[0], srv.url), timeout=10)
        assert fresh.status_code == 303
        kinds = [e.kind for e in study.events.read(DESIGN.id, party="p001")]
        assert kinds[-3:] == ["reply", "round_done", "finished"]
    person.close()


def test_a_file_refuses_another_design(tmp_path: Path) -> None:
    Study(tmp_path / "s.sqlite", DESIGN, password="pw-123456").close()
    other = StudyDesign(id="other", title="Other", conditions=[Condition(name="x")])
    with pytest.raises(WebError, match="holds study 'ultimatum-pilot' with another design"):
        Study(tmp_path / "s.sqlite", other)


def test_random_assignment_is_seeded_per_participant() -> None:
    design = StudyDesign(
        id="r",
        title="R",
        conditions=[Condition(name=n) for n in "abc"],
        rounds=4,
        assignment="random",
        seed=7,
    )
    plans = [design.plan(i) for i in range(50)]
    assert plans == [design.plan(i) for i in range(50)]  # reproducible
    assert {c for plan in plans for c in plan} == {"a", "b", "c"}
    again = design.model_copy(update={"seed": 8})
    assert [again.plan(i) for i in range(50)] != plans
