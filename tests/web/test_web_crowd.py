"""Crowd studies: instructions before the game, a completion code and return link at the
end, release for people waiting alone for a partner (Trails, GENIUS)."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from tiny_league import DESIGN, PAGES, Ultimatum

from accord.web.study import Study, create_study_app
from accord.web.testing import ServerThread, wait_until

CROWD = DESIGN.model_copy(
    update={
        "instructions": "Split 100 points with a computer.\n\nIt accepts or refuses.",
        "completion_code": "C1A2B3",
        "return_url": "https://app.prolific.com/submissions/complete?cc=C1A2B3",
    }
)


def _open(url: str, path: str) -> httpx.Client:
    c = httpx.Client(base_url=url, trust_env=False)
    assert c.post(path).status_code == 303
    return c


def test_instructions_come_before_the_task_and_the_code_at_the_end(tmp_path: Path) -> None:
    study = Study(tmp_path / "s.sqlite", CROWD, password="pw-crowd")
    app = create_study_app(study, Ultimatum(study), pages={"/": str(PAGES)})
    with ServerThread(app) as srv:
        (inv,) = study.invite(1)
        c = _open(srv.url, inv.path)
        me = c.post("/api/participant/consent", json={"agree": True, "version": "2"}).json()
        assert me["next"] == "/study/instructions.html"
        assert me["instructions"].startswith("Split 100 points")
        assert me["completion_code"] is None and me["return_url"] is None  # not yet
        me = c.post("/api/participant/instructions").json()
        assert me["next"] == "/task.html"
        assert c.post("/api/participant/instructions").json()["next"] == "/task.html"
        for _ in range(2):
            assert c.post("/api/ultimatum/offer", json={"give": 60}).status_code == 200
        me = c.get("/api/participant").json()
        assert me["status"] == "done" and me["next"] == "/study/done.html"
        assert me["completion_code"] == "C1A2B3"
        assert me["return_url"].endswith("cc=C1A2B3") and me["released"] is None
        kinds = [e.kind for e in study.events.read(party=me["pid"])]
        assert kinds.count("instructions_read") == 1


def test_a_return_address_must_be_a_web_address() -> None:
    with pytest.raises(ValueError, match="return_url"):
        DESIGN.model_validate({**DESIGN.model_dump(), "return_url": "javascript:alert(1)"})


def test_trails_releases_a_person_waiting_alone(tmp_path: Path) -> None:
    from accord.leagues.trails.server import create_trails_app, trails_design

    design = trails_design(["person"]).model_copy(
        update={"wait_seconds": 1.0, "completion_code": "WAITED"}
    )
    app, study = create_trails_app(tmp_path / "t", design, password="pw-crowd")
    with ServerThread(app) as srv:
        (inv,) = study.invite(1)
        c = _open(srv.url, inv.path)
        c.post("/api/participant/consent", json={"agree": True, "version": "1"})
        assert c.get("/api/trails/state").json()["waiting"] is True
        s = wait_until(  # released after its 1 s wait
            lambda: (x := c.get("/api/trails/state").json()).get("released") and x, "release"
        )
        assert s["released"].startswith("No other participant arrived")
        assert s["next"] == "/study/done.html"
        me = c.get("/api/participant").json()
        assert me["status"] == "done" and me["completion_code"] == "WAITED"
        assert me["released"] == s["released"]
        # the next person who comes does not meet a ghost: they wait in turn
        (inv2,) = study.invite(1)
        d = _open(srv.url, inv2.path)
        d.post("/api/participant/consent", json={"agree": True, "version": "1"})
        assert d.get("/api/trails/state").json()["waiting"] is True


def test_genius_releases_a_person_waiting_alone(tmp_path: Path) -> None:
    from accord.leagues.genius.server import condition, create_genius_app, genius_design

    design = genius_design([condition("person")]).model_copy(update={"wait_seconds": 1.0})
    app, study = create_genius_app(tmp_path / "g", design, password="pw-crowd")
    with ServerThread(app) as srv:
        (inv,) = study.invite(1)
        c = _open(srv.url, inv.path)
        c.post("/api/participant/consent", json={"agree": True, "version": "1"})
        assert c.get("/api/genius/state").json()["status"] == "waiting"
        s = wait_until(  # released after its 1 s wait
            lambda: (x := c.get("/api/genius/state").json())["status"] != "waiting" and x,
            "release",
        )
        assert s["status"] == "released" and s["next"] == "/study/done.html"
        assert c.get("/api/participant").json()["status"] == "done"
