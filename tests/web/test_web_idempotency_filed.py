"""Idempotent answers are kept in the study's file: a request retried after the server
restarted (its memory gone) gets its first answer again and has no second effect."""

from __future__ import annotations

from pathlib import Path

import httpx

from accord.web.study import Condition, Study, StudyDesign, create_study_app
from accord.web.testing import ServerThread

PW = "pw-filed-answers"
DESIGN = StudyDesign(id="filed", title="Filed", conditions=[Condition(name="a")])


def _admin(url: str) -> httpx.Client:
    c = httpx.Client(base_url=url, trust_env=False)
    assert c.post("/api/login", json={"username": "experimenter", "password": PW}).is_success
    return c


def test_a_retried_request_gets_its_first_answer_after_a_restart(tmp_path: Path) -> None:
    path = tmp_path / "study.sqlite"
    key = {"Idempotency-Key": "invite-two"}
    study = Study(path, DESIGN, password=PW)
    with ServerThread(create_study_app(study)) as srv:
        admin = _admin(srv.url)
        first = admin.post("/api/study/invites", json={"count": 2}, headers=key)
        assert first.status_code == 201 and len(first.json()) == 2
    study.close()
    study = Study(path, DESIGN, password=PW)  # restarted: nothing in memory
    with ServerThread(create_study_app(study)) as srv:
        admin.base_url = httpx.URL(srv.url)
        again = admin.post("/api/study/invites", json={"count": 2}, headers=key)
        assert again.status_code == 201 and again.json() == first.json()
        assert again.headers["idempotent-replay"] == "true"
        assert len(admin.get("/api/study/participants").json()) == 2  # no second effect
        other = admin.post("/api/study/invites", json={"count": 3}, headers=key)
        assert other.status_code == 409 and other.json()["code"] == "key_reused"
        new = admin.post("/api/study/invites", json={"count": 1}, headers={"Idempotency-Key": "k2"})
        assert new.status_code == 201 and len(admin.get("/api/study/participants").json()) == 3
    study.close()


def test_copies_at_once_run_once_with_filed_answers(tmp_path: Path) -> None:
    """A double click reaches the server twice at once: with answers kept in the file
    (a look-up before the first copy runs) the second copy still waits for the first."""
    import asyncio

    study = Study(tmp_path / "study.sqlite", DESIGN, password=PW)
    with ServerThread(create_study_app(study)) as srv:
        cookies = _admin(srv.url).cookies

        async def both() -> list[httpx.Response]:
            async with httpx.AsyncClient(base_url=srv.url, trust_env=False, cookies=cookies) as h:
                key = {"Idempotency-Key": "double-click"}
                return await asyncio.gather(
                    *[
                        h.post("/api/study/invites", json={"count": 1}, headers=key)
                        for _ in range(4)
                    ]
                )

        answers = asyncio.run(both())
        assert {r.status_code for r in answers} == {201}
        assert len({r.text for r in answers}) == 1
        assert len(_admin(srv.url).get("/api/study/participants").json()) == 1
    study.close()
