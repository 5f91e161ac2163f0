"""The GENIUS study on accord.web over HTTP: pairing, actions, bad input, CSV, leaving, restart."""

from __future__ import annotations

import csv
import io
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

from accord.core.errors import ProtocolViolation
from accord.leagues.genius.protocol import VirtualClock
from accord.leagues.genius.server import condition, create_genius_app, genius_design

PW = "experimenter-pw"


class Lab:
    """An app on a folder, the experimenter logged in, participants on demand."""

    def __init__(self, folder: Path, opponent: str, clock: VirtualClock, **kw: Any) -> None:
        design = genius_design([condition(opponent, turn_seconds=60)])
        self.app, self.study = create_genius_app(folder, design, password=PW, clock=clock, **kw)
        self.exp = TestClient(self.app)
        self.exp.__enter__()
        self.exp.post("/api/login", json={"username": "experimenter", "password": PW})

    def person(self) -> TestClient:
        (invite,) = self.exp.post("/api/study/invites", json={"count": 1}).json()
        c = TestClient(self.app)
        assert (
            c.post("/" + invite["link"].split("/", 3)[3], follow_redirects=False).status_code == 303
        )
        c.post("/api/participant/consent", json={"agree": True, "version": "1"})
        return c

    def csv(self) -> list[dict[str, str]]:
        return list(csv.DictReader(io.StringIO(self.exp.get("/api/study/events.csv").text)))

    def close(self) -> None:
        self.exp.__exit__(None, None, None)


def test_the_negotiation_routes_need_a_consenting_participant(tmp_path: Path) -> None:
    lab = Lab(tmp_path, "kbagent", VirtualClock(0.0))
    assert lab.exp.get("/api/genius/state").json()["code"] == "unauthorized"
    with pytest.raises(ProtocolViolation, match="unknown opponent 'nobody'"):
        condition("nobody")
    lab.close()


def test_two_people_negotiate_and_the_study_csv_has_every_action(tmp_path: Path) -> None:
    clock = VirtualClock(1000.0)
    lab = Lab(tmp_path, "person", clock)
    alice, bob = lab.person(), lab.person()
    assert alice.get("/api/genius/state").json()["status"] == "waiting"
    s1 = bob.get("/api/genius/state").json()
    assert s1["status"] == "running" and s1["side"] == 1
    s0 = alice.get("/api/genius/state").json()
    bad = alice.post("/api/genius/action", json={"kind": "offer", "values": {"Salary": "lots"}})
    assert bad.status_code == 422 and "has no value 'lots'" in bad.json()["error"]
    junk = alice.post(
        "/api/genius/action", content=b"{not json", headers={"content-type": "application/json"}
    )
    assert junk.status_code == 400
    full = {i["name"]: i["values"][0] for i in s0["issues"]}
    offer = alice.post("/api/genius/action", json={"kind": "offer", "values": full}).json()
    clock.advance(65)
    assert (
        bob.post("/api/genius/action", json={"kind": "accept", "offer": offer["offer"]}).status_code
        == 200
    )
    assert bob.get("/api/participant").json()["status"] == "done"
    late = bob.post("/api/genius/action", json={"kind": "opt_out"})
    assert late.status_code == 409
    rows = [r for r in lab.csv() if r["kind"] == "genius.action"]
    data = [json.loads(r["data"]) for r in rows]
    assert [(d["kind"], d["ok"]) for d in data] == [
        ("offer", False),
        ("offer", True),
        ("accept", True),
    ]
    assert data[2]["turn"] == 1 and data[2]["elapsed"] == 65.0 and rows[2]["time"]
    done = [json.loads(r["data"])["result"] for r in lab.csv() if r["kind"] == "round_done"]
    assert [d["outcome"] for d in done] == ["agreement", "agreement"]
    lab.close()


def test_a_silent_participant_has_left_and_the_study_records_it(tmp_path: Path) -> None:
    clock = VirtualClock(0.0)
    lab = Lab(tmp_path, "person", clock, leave_after=10.0)
    alice, bob = lab.person(), lab.person()
    alice.get("/api/genius/state")
    bob.get("/api/genius/state")
    clock.advance(5)
    alice.get("/api/genius/state")  # alice is still there, bob is silent
    clock.advance(6)
    lab.app.state.genius.poll_all()
    kinds = [(r["party"], r["kind"]) for r in lab.csv()]
    assert ("p002", "genius.left") in kinds and ("p002", "withdrawn") in kinds
    assert alice.get("/api/participant").json()["status"] == "done"
    assert bob.get("/api/participant").json()["status"] == "withdrawn"
    results = [json.loads(r["data"])["result"] for r in lab.csv() if r["kind"] == "round_done"]
    assert results == [{"outcome": "abandoned", "reason": "the other participant left"}]
    progress = lab.exp.get("/api/study").json()["progress"]["byStatus"]
    assert (progress["done"], progress["withdrawn"]) == (1, 1)
    lab.close()


def test_a_restarted_server_resumes_running_negotiations(tmp_path: Path) -> None:
    clock = VirtualClock(0.0)
    lab = Lab(tmp_path, "conceder", clock)
    ann = lab.person()
    first = ann.get("/api/genius/state").json()
    ann.post("/api/genius/action", json={"kind": "offer", "values": {"Salary": "20,000 NIS"}})
    before = ann.get("/api/genius/state").json()
    cookies = dict(ann.cookies)
    lab.close()  # the server stops
    clock.advance(61)
    again = Lab(tmp_path, "conceder", clock)
    ann2 = TestClient(again.app)
    for k, v in cookies.items():
        ann2.cookies.set(k, v)
    after = ann2.get("/api/genius/state").json()
    assert after["session"] == first["session"] and after["turn"] == 1
    assert [o["values"] for o in after["offers"][: len(before["offers"])]] == [
        o["values"] for o in before["offers"]
    ]
    clock.advance(60 * 14)
    again.app.state.genius.poll_all()
    assert ann2.get("/api/participant").json()["status"] == "done"
    again.close()


def test_genius_serve_starts_on_loopback_and_serves_the_pages(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[3] / "src")}
    proc = subprocess.Popen(
        [
            str(Path(sys.executable).with_name("accord")),
            "genius",
            "serve",
            "--port",
            "0",
            "--folder",
            str(tmp_path / "study"),
            "--password",
            PW,
            "-o",
            "kbagent person",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert "GENIUS study server on http://127.0.0.1:" in line, line
        url = line.split(" on ")[1].split()[0].rstrip("/")
        deadline = time.monotonic() + 20
        while True:
            try:
                r = httpx.get(url + "/genius/negotiate.html", timeout=2)
                break
            except httpx.HTTPError:
                assert time.monotonic() < deadline, "server did not answer"
                time.sleep(0.1)
        assert r.status_code == 200 and "Make an offer" in r.text
        exp = httpx.Client(base_url=url)
        assert (
            exp.post("/api/login", json={"username": "experimenter", "password": PW}).status_code
            == 200
        )
        conds = exp.get("/api/study").json()["design"]["conditions"]
        assert [c["params"]["opponent"] for c in conds] == ["kbagent", "person"]
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=20)
