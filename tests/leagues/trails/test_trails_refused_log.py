"""A refused Colored Trails action is kept for the experimenter: the study's export has
a ``trails.refused`` row saying who sent it, what arrived and why it was refused, while
the game itself is as it was. A person's waiting clock is kept in the study's file."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import httpx

from accord.leagues.trails.server import TrailsService, create_trails_app, trails_design
from accord.web.clock import VirtualClock
from accord.web.study import Study
from accord.web.testing import ServerThread

PW = "pw-trails-refused"


def test_refused_actions_are_logged_with_who_what_and_why(tmp_path: Path) -> None:
    app, study = create_trails_app(tmp_path / "study", trails_design(["purb"]), password=PW)
    with ServerThread(app) as srv:
        (inv,) = study.invite(1)
        me = httpx.Client(base_url=srv.url, trust_env=False)
        me.post(inv.path)
        assert me.post("/api/participant/consent", json={"agree": True, "version": "1"}).is_success
        before = me.get("/api/trails/state").json()
        n = before["nColors"]
        too_much = {"kind": "propose", "give": [99] * n, "take": [0] * n}
        r = me.post("/api/trails/act", json=too_much)
        assert r.status_code in (409, 422)
        why = r.json()["error"]
        late = {"kind": "pass", "turn": 7, "phase": "respond"}
        r2 = me.post("/api/trails/act", json=late)
        assert r2.status_code == 409 and "meant for turn 8" in r2.json()["error"]
        assert me.get("/api/trails/state").json() == before  # nothing changed
        admin = httpx.Client(base_url=srv.url, trust_env=False)
        admin.post("/api/login", json={"username": "experimenter", "password": PW})
        rows = list(csv.DictReader(io.StringIO(admin.get("/api/study/events.csv").text)))
    refused = [r for r in rows if r["kind"] == "trails.refused"]
    assert [r["party"] for r in refused] == ["p001", "p001"]
    first, second = (json.loads(r["data"]) for r in refused)
    assert first["action"]["give"] == [99] * n and first["action"]["kind"] == "propose"
    assert first["reason"] == why and first["status"] == r.status_code
    assert first["game"] == before["game"] and first["turn"] == before["turn"]
    assert second["action"]["turn"] == 7 and second["code"] == "refused"
    assert "meant for turn 8" in second["reason"]
    assert not [r for r in rows if r["kind"] == "trails.action"]  # and no action was done


def test_the_waiting_clock_survives_a_restart(tmp_path: Path) -> None:
    """A person waiting alone for a partner is released ``wait_seconds`` after they began
    to wait, however often the server restarts in between (the clock is in the file)."""
    design = trails_design(["person"])
    path = tmp_path / "study.sqlite"

    def serve(at: float) -> tuple[Study, TrailsService]:
        study = Study(path, design, password=PW, clock=VirtualClock(start=at))
        return study, TrailsService(study)

    study, service = serve(0.0)
    (inv,) = study.invite(1)
    p, _ = study.open_link(inv.token, None)
    study.consent(p.pid, True, study.view(p.pid).consent.version)
    assert service.state(p.pid) == {"waiting": True}
    study.close()
    study, service = serve(design.wait_seconds - 1)  # restarted: 1 s left
    assert service.state(p.pid) == {"waiting": True}
    study.close()
    study, service = serve(design.wait_seconds + 1)  # restarted again: the time is up
    released = service.state(p.pid)
    assert released["waiting"] is False and "No other participant arrived" in released["released"]
    study.close()
