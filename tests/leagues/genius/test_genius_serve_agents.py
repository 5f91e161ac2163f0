"""``accord genius serve`` with a submitted agent: it runs in a sandbox with a per-call
deadline, and while it stalls only its own participant waits (each session has its own
lock; the poll loop runs off the event loop); the other participants' requests go on."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from accord.leagues.genius import sandboxed
from accord.leagues.genius.server import condition, create_genius_app, genius_design
from accord.sandbox import sandbox_available
from accord.web.testing import ServerThread

ENTRIES = Path(__file__).parent / "entries"
PW = "experimenter-pw"


@pytest.fixture(autouse=True)
def _importable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(ENTRIES))


@pytest.mark.skipif(sandbox_available() is not None, reason=f"{sandbox_available()}")
def test_a_stalling_submitted_agent_holds_up_only_its_own_participant(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sandboxed, "CALL_TIMEOUT", 60.0)
    design = genius_design([
        condition("genius_entries:Stalling", turn_seconds=60, name="stall"),
        condition("conceder", turn_seconds=60, name="fair"),
    ])  # fmt: skip
    app, study = create_genius_app(tmp_path, design, password=PW, poll_seconds=0.2)
    with ServerThread(app) as srv:
        people: dict[str, httpx.Client] = {}
        for inv in study.invite(6):
            c = httpx.Client(base_url=srv.url, timeout=30)
            c.post(inv.path)
            c.post("/api/participant/consent", json={"agree": True, "version": "1"})
            people.setdefault(str(study.view(inv.pid).condition), c)
        assert set(people) == {"stall", "fair"}
        answer: list[Any] = []
        t = threading.Thread(target=lambda: answer.append(people["stall"].get("/api/genius/state")))
        t.start()
        service = app.state.genius
        for _ in range(600):  # its session starts; the stalled agent is asked (60 s deadline)
            if any("stall" in sid for sid in service.live):
                break
            time.sleep(0.05)
        assert any("stall" in sid for sid in service.live)
        fair = people["fair"]
        for _ in range(5):
            s = fair.get("/api/genius/state")
            assert s.status_code == 200 and s.json()["status"] == "running"
        offer = {"kind": "offer", "values": {"Salary": "12,000 NIS"}}
        r = fair.post("/api/genius/action", json=offer)
        assert r.status_code == 200, r.text
        assert t.is_alive() and not answer  # the stalled one still waits on its agent
        for live in list(service.live.values()):
            live.close()  # its sandbox is stopped: the call fails, recorded against the agent
        t.join(30)
        assert not t.is_alive() and answer[0].status_code == 200
