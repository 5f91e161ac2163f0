"""The Colored Trails game page on the shared play routes: its live stream tells a
change only once it is committed to the study's file (a refused action, or one whose
records roll back, tells nothing), each view carries the play's version, and the moved
routes refuse hostile requests with one clear 4xx while the server keeps serving."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from accord.leagues.trails.server import TrailsService, create_trails_app, stream_of, trails_design
from accord.web.testing import ServerThread, read_sse

PW = "pw-trails-live"
NULL = {"propose": {"kind": "pass"}, "transfer": {"kind": "transfer"}, "move": {"kind": "endmove"}}


def _person(url: str, path: str) -> httpx.Client:
    c = httpx.Client(base_url=url, timeout=30, trust_env=False)
    c.post(path)
    assert c.post("/api/participant/consent", json={"agree": True, "version": "1"}).is_success
    return c


class Told:
    """Every wake of the service's live streams: the participants, whether the file was
    still inside a transaction then, and how many records of the game were committed
    (read through a connection of its own, which sees committed rows only)."""

    def __init__(self, service: TrailsService, path: Path, monkeypatch: pytest.MonkeyPatch):
        self.calls: list[tuple[tuple[str, ...], bool, int]] = []
        self.service, self.path = service, path
        wake = service.live.wake

        def spy(*pids: str) -> None:
            self.calls.append((pids, service.study.store.conn.in_transaction, self.committed()))
            wake(*pids)

        monkeypatch.setattr(service.live, "wake", spy)

    def committed(self, gid: str = "g0001") -> int:
        c = sqlite3.connect(self.path)
        try:
            sql = "SELECT count(*) FROM events WHERE stream = ?"
            return int(c.execute(sql, (stream_of(gid),)).fetchone()[0])
        finally:
            c.close()


@pytest.fixture
def pair(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Any, ...]]:
    app, study = create_trails_app(tmp_path / "s", trails_design(["person"]), password=PW)
    service: TrailsService = app.state.trails
    told = Told(service, tmp_path / "s" / "study.sqlite", monkeypatch)
    with ServerThread(app) as server:
        invites = study.invite(2)
        people = [_person(server.url, inv.path) for inv in invites]
        yield service, told, invites, people


def test_a_committed_change_wakes_both_pages_after_the_commit_with_its_version(
    pair: tuple[Any, ...],
) -> None:
    service, told, invites, people = pair
    assert people[0].get("/api/trails/state").json() == {"waiting": True}
    views = [people[1].get("/api/trails/state").json()]  # pairs them: both pages told
    views.insert(0, people[0].get("/api/trails/state").json())
    pids = tuple(inv.pid for inv in invites)
    assert told.calls == [(pids, False, 1)] and [v["version"] for v in views] == [0, 0]
    for change in range(1, 5):
        k = views[0]["actor"]
        body = dict(NULL[str(views[0]["phase"])])
        if body["kind"] == "transfer":
            body["send"] = [0] * int(views[0]["nColors"])
        mine = people[k].post("/api/trails/act", json=body).json()
        views = [c.get("/api/trails/state").json() for c in people]
        assert mine == views[k] and mine["version"] == change
        # told once per change, after its commit (the start record and the change's)
        assert told.calls[-1] == (pids, False, 1 + change) and len(told.calls) == 1 + change
        for inv, view in zip(invites, views, strict=True):
            assert service._look(inv.pid) == view  # what the live stream sends


def test_a_refused_or_failed_action_sends_no_update(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app, study = create_trails_app(tmp_path / "s", trails_design(["purb"]), password=PW)
    service: TrailsService = app.state.trails
    told = Told(service, tmp_path / "s" / "study.sqlite", monkeypatch)
    with ServerThread(app) as server:
        (inv,) = study.invite(1)
        me = _person(server.url, inv.path)
        view = me.get("/api/trails/state").json()
        assert view["myTurn"] and view["phase"] == "propose"
        before = len(told.calls)
        late = me.post("/api/trails/act", json={"kind": "endmove"})  # not now
        assert (late.status_code, late.json()["code"]) == (409, "refused")
        huge = me.post("/api/trails/act", json={"kind": "propose", "give": [10**30], "take": []})
        assert huge.status_code == 422
        assert len(told.calls) == before  # refused: nothing told

        def full(*_: Any) -> None:  # the file fails after the change is recorded and its
            raise sqlite3.OperationalError("database or disk is full")  # update queued

        with monkeypatch.context() as m:
            m.setattr(service.store, "set_agent_rng", full)
            failed = me.post("/api/trails/act", json={"kind": "pass"})
        assert failed.status_code == 500 and failed.json()["status"] == "Failed"
        assert len(told.calls) == before  # rolled back: nothing told
        assert told.committed() == 1 + view["version"]
        again = me.get("/api/trails/state").json()
        assert again == view  # the game as the file has it
        done = me.post("/api/trails/act", json={"kind": "pass"})
        assert done.status_code == 200 and len(told.calls) > before  # committed: told
        assert all(not inside for _, inside, _ in told.calls)


def test_the_live_stream_sends_the_view_and_a_change_after_its_commit(
    pair: tuple[Any, ...],
) -> None:
    _, _, _, people = pair
    people[0].get("/api/trails/state")
    view = people[1].get("/api/trails/state").json()
    k = view["actor"]
    with people[1 - k].stream("GET", "/api/trails/live") as r:
        assert r.headers["content-type"].startswith("text/event-stream")
        lines = r.iter_lines()
        ((event, first),) = read_sse(lines, 1)
        assert (event, first["version"]) == ("state", 0)
        mine = people[k].post("/api/trails/act", json={"kind": "pass"}).json()
        ((event, second),) = read_sse(lines, 1)
    theirs = people[1 - k].get("/api/trails/state").json()
    assert event == "state" and second == theirs and second["version"] == mine["version"] == 1
