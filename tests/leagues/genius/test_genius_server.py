"""The study server over HTTP: studies, links, actions, bad input, CSV, restart."""

from __future__ import annotations

import csv
import io
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
from fastapi.testclient import TestClient

from accord.leagues.genius.protocol import VirtualClock
from accord.leagues.genius.server import create_app

AUTH = {"authorization": "Bearer pw"}


def _client(path: Path, clock: VirtualClock | None = None) -> TestClient:
    return TestClient(create_app(str(path), password="pw", clock=clock or VirtualClock(100.0)))


def _study(c: TestClient, **kw: object) -> dict:
    body = {"domain": "job_candidate", "opponent": "person", "participants": 2, **kw}
    r = c.post("/api/studies", json=body, headers=AUTH)
    assert r.status_code == 200, r.text
    return r.json()


def test_experimenter_routes_need_the_password(tmp_path: Path) -> None:
    c = _client(tmp_path / "g.sqlite")
    r = c.post("/api/studies", json={})
    assert r.status_code == 401 and "Bearer" in r.json()["error"]
    r = c.post("/api/studies", json={"opponent": "nobody"}, headers=AUTH)
    assert r.status_code == 400 and "unknown opponent 'nobody'" in r.json()["error"]
    r = c.post("/api/studies", json={"opponent": "person", "participants": 3}, headers=AUTH)
    assert r.status_code == 400 and "participants must be even" in r.json()["error"]


def test_a_link_is_claimed_once_and_refused_to_another_browser(tmp_path: Path) -> None:
    path = tmp_path / "g.sqlite"
    c = _client(path)
    study = _study(c)
    t0 = study["tokens"][0]
    assert c.post(f"/api/p/{t0}/claim").status_code == 200
    assert c.post(f"/api/p/{t0}/claim").status_code == 200  # same browser (cookie) again
    other = TestClient(c.app)
    r = other.post(f"/api/p/{t0}/claim")
    assert r.status_code == 409 and "already used" in r.json()["error"]
    assert other.get(f"/api/p/{t0}/state").status_code == 403
    assert other.post("/api/p/nonsense/claim").status_code == 404


def test_two_people_negotiate_over_http_and_the_csv_has_every_action(tmp_path: Path) -> None:
    clock = VirtualClock(1000.0)
    c0 = _client(tmp_path / "g.sqlite", clock)
    c1 = TestClient(c0.app)
    study = _study(c0)
    t0, t1 = study["tokens"]
    c0.post(f"/api/p/{t0}/claim")
    assert c0.get(f"/api/p/{t0}/state").json()["status"] == "waiting"
    c1.post(f"/api/p/{t1}/claim")
    s0 = c0.get(f"/api/p/{t0}/state").json()
    assert s0["status"] == "running" and s0["side"] == 0
    bad = c0.post(f"/api/p/{t0}/action", json={"kind": "offer", "values": {"Salary": "lots"}})
    assert bad.status_code == 400 and "has no value 'lots'" in bad.json()["error"]
    junk = c0.post(f"/api/p/{t0}/action", content=b"{not json")
    assert junk.status_code == 400 and "must be JSON" in junk.json()["error"]
    full = {i["name"]: i["values"][0] for i in s0["issues"]}
    offer = c0.post(f"/api/p/{t0}/action", json={"kind": "offer", "values": full}).json()
    clock.advance(5)
    end = c1.post(f"/api/p/{t1}/action", json={"kind": "accept", "offer": offer["offer"]})
    assert end.status_code == 200
    s1 = c1.get(f"/api/p/{t1}/state").json()
    assert s1["status"] == "ended" and s1["result"]["reason"] == "agreement"
    late = c1.post(f"/api/p/{t1}/action", json={"kind": "opt_out"})
    assert late.status_code == 400 and "has done" in late.json()["error"]
    rows = list(
        csv.DictReader(io.StringIO(c0.get(f"/api/studies/{study['id']}/csv", headers=AUTH).text))
    )
    assert [r["kind"] for r in rows] == ["offer", "offer", "accept"]
    assert [r["ok"] for r in rows] == ["0", "1", "1"] and rows[2]["elapsed_s"] == "5.000"
    progress = c0.get("/api/studies", headers=AUTH).json()[0]["progress"]
    assert progress == {"done": 2}


def test_genius_serve_starts_on_loopback_and_serves_the_pages(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[3] / "src")}
    proc = subprocess.Popen(
        [
            str(Path(sys.executable).with_name("accord")),
            "genius",
            "serve",
            "--port",
            "0",
            "--store",
            str(tmp_path / "g.sqlite"),
            "--password",
            "pw",
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
                r = httpx.get(url + "/experimenter", timeout=2)
                break
            except httpx.HTTPError:
                assert time.monotonic() < deadline, "server did not answer"
                time.sleep(0.1)
        assert r.status_code == 200 and "GENIUS studies" in r.text
        r = httpx.post(url + "/api/studies", json={"participants": 1}, headers=AUTH)
        assert r.status_code == 200 and r.json()["links"][0].startswith(url + "/p/")
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=20)


def test_a_restarted_server_resumes_running_sessions(tmp_path: Path) -> None:
    path = tmp_path / "g.sqlite"
    clock = VirtualClock(1000.0)
    c = _client(path, clock)
    study = _study(c, opponent="conceder", participants=1, turn_seconds=60)
    t0 = study["tokens"][0]
    c.post(f"/api/p/{t0}/claim")
    key = c.cookies.get("genius_key")
    c.post(f"/api/p/{t0}/action", json={"kind": "offer", "values": {"Salary": "20,000 NIS"}})
    before = c.get(f"/api/p/{t0}/state").json()
    c.app.state.service.close()  # the server stops
    clock.advance(61)
    again = _client(path, clock)  # a new server process on the same store
    again.cookies.set("genius_key", key or "", path=f"/api/p/{t0}")
    after = again.get(f"/api/p/{t0}/state").json()
    assert after["status"] == "running" and after["turn"] == 1
    assert [o["values"] for o in after["offers"][: len(before["offers"])]] == [
        o["values"] for o in before["offers"]
    ]
    clock.advance(60 * 14)
    assert again.get(f"/api/p/{t0}/state").json()["result"]["reason"] == "deadline"
