"""`accord trails serve` killed with SIGKILL mid-game and restarted on the same folder: the
participant's link resumes the game at the same state and the final record is complete,
nothing doubled, and equal to the record of the same game played without a restart."""

from __future__ import annotations

import csv
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
from fastapi.testclient import TestClient

from accord.leagues.trails.board import Settings
from accord.leagues.trails.engine import Game, Pass
from accord.leagues.trails.generator import generate
from accord.leagues.trails.rules import TrailsRules
from accord.leagues.trails.server import create_trails_app, stream_of, trails_design
from accord.leagues.trails.store import GameStore
from accord.tournament.sqlite import SqliteFile
from accord.web.driver import RulesGame
from accord.web.store import EventLog

PW = "pw-restart"


def _serve(folder: Path) -> tuple[subprocess.Popen[str], str]:
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    src = str(Path(__file__).resolve().parents[3] / "src")
    env["PYTHONPATH"] = src + os.pathsep + env.get("PYTHONPATH", "")
    cmd = [sys.executable, "-c", "from accord.cli import app; app()", "trails", "serve"]
    cmd += ["--folder", str(folder), "--port", "0", "--password", PW, "--opponent", "purb"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    assert proc.stdout is not None
    line = proc.stdout.readline()
    assert "study server on http://" in line, line + (proc.stderr.read() if proc.stderr else "")
    url = line.split(" on ", 1)[1].split("/ ", 1)[0]
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            if httpx.get(url + "/api/participant", timeout=2).status_code in (401, 403):
                return proc, url
        except httpx.TransportError:
            time.sleep(0.1)
    proc.kill()
    raise AssertionError("the server did not answer")


def _next(s: dict[str, Any], promised_once: list[bool]) -> dict[str, Any]:
    """The person's policy: ask for a chip, accept offers, send one chip fewer than
    promised, step towards the goal when the page offers a move, else stop."""
    n = s["nColors"]
    if s["phase"] == "propose":
        mine, theirs = s["chips"]
        give = [0] * n
        take = [0] * n
        give[max(range(n), key=lambda c: mine[c])] = 1
        take[max(range(n), key=lambda c: theirs[c] if c != give.index(1) else -1)] = 1
        return {"kind": "propose", "give": give, "take": take}
    if s["phase"] == "respond":
        return {"kind": "respond", "accept": True}
    if s["phase"] == "transfer":
        send = list(s["promised"]["mine"])
        for c in range(n):
            if send[c]:
                send[c] -= 1  # a promise broken by one chip
                break
        promised_once.append(True)
        return {"kind": "transfer", "send": send}
    return {"kind": "endmove"}


def _play(
    client: Any, s: dict[str, Any], acts: list[dict[str, Any]], until: Any = None
) -> dict[str, Any]:
    flag: list[bool] = []
    while not s["done"] and len(acts) < 200:
        if until is not None and until(s):
            break
        if not s["myTurn"]:
            s = client.get("/api/trails/state").json()
            continue
        body = _next(s, flag)
        acts.append(body)
        r = client.post("/api/trails/act", json=body)
        assert r.status_code == 200, r.text
        s = r.json()
    return s


def _events(text: str) -> list[dict[str, Any]]:
    return list(csv.DictReader(text.splitlines()))


def test_kill_restart_resumes_the_game(tmp_path: Path) -> None:
    folder = tmp_path / "study"
    proc, url = _serve(folder)
    acts: list[dict[str, Any]] = []
    try:
        admin = httpx.Client(base_url=url)
        assert admin.post("/api/login", json={"username": "experimenter", "password": PW})
        (inv,) = admin.post("/api/study/invites", json={"count": 1}).json()
        link = inv["link"][len(url) :]
        person = httpx.Client(base_url=url)
        person.post(link)
        person.post("/api/participant/consent", json={"agree": True, "version": "1"})
        s = person.get("/api/trails/state").json()
        # play past the first turn and stop when the person must send what it promised
        s = _play(person, s, acts, lambda s: s["turn"] >= 1 and s["phase"] == "transfer")
        assert s["phase"] == "transfer" and s["myTurn"] and any(s["promised"]["theirs"])
        before = person.get("/api/trails/state").json()
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL

    proc, url = _serve(folder)
    try:
        person = httpx.Client(base_url=url, cookies=person.cookies)
        person.post(link)  # the same link and browser reopen the game
        after = person.get("/api/trails/state").json()
        assert after == before  # board, chips, phase, turn, proposal, promises, scores
        s = _play(person, after, acts)
        assert s["done"]
        assert person.get("/api/participant").json()["status"] == "done"
        admin = httpx.Client(base_url=url)
        admin.post("/api/login", json={"username": "experimenter", "password": PW})
        events = _events(admin.get("/api/study/events.csv").text)
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)

    kinds = [e["kind"] for e in events]
    assert kinds.count("trails.start") == 1 and kinds.count("trails.end") == 1
    assert kinds.count("round_done") == 1 and kinds.count("finished") == 1
    assert kinds.count("trails.action") == len(acts)
    end = json.loads(next(e["data"] for e in events if e["kind"] == "trails.end"))
    assert end["scores"] == s["scores"] and len(end["history"]) == end["turns"]
    # the stored play (the web driver's log of the game) replays to the same end, each
    # action stored once: one start, one act per person's action, none stored twice
    with SqliteFile(folder / "study.sqlite") as f:
        store = GameStore(f)
        (row,) = store.games()
        assert row.closed
        log = EventLog(f)
        stored = log.read(stream_of(row.gid))
        person = [e for e in stored if e.kind == "act" and e.data["party"] == 0]
        assert [e.kind for e in stored].count("start") == 1 and len(person) == len(acts)
        play = RulesGame.resume(
            TrailsRules(row.rules), log, [0], seats=lambda _: {}, stream=stream_of(row.gid)
        )
    game = play.state
    assert game.done and game.scores() == s["scores"]
    assert [r.to_dict() for r in game.history] == end["history"]

    # the same person's actions in a server that never stopped give the same game
    app, study = create_trails_app(tmp_path / "again", trails_design(["purb"]), password=PW)
    with TestClient(app) as client:
        (inv2,) = study.invite(1)
        client.post(inv2.path)
        client.post("/api/participant/consent", json={"agree": True, "version": "1"})
        s2 = client.get("/api/trails/state").json()
        s2 = _play(client, s2, [])
    assert s2["done"] and s2["scores"] == s["scores"] and s2["last"] == s["last"]
    study.close()


def test_waiting_person_and_person_game_survive_a_restart(tmp_path: Path) -> None:
    folder = tmp_path / "pp"
    design = trails_design(["person"])
    app, study = create_trails_app(folder, design, password=PW)
    (a_inv, b_inv) = study.invite(2)
    with TestClient(app) as a:
        a.post(a_inv.path)
        a.post("/api/participant/consent", json={"agree": True, "version": "1"})
        assert a.get("/api/trails/state").json() == {"waiting": True}
        a_cookies = dict(a.cookies)
    study.close()

    app, study = create_trails_app(folder, design, password=PW)  # a new server process
    with TestClient(app) as b, TestClient(app, cookies=a_cookies) as a:
        b.post(b_inv.path)
        b.post("/api/participant/consent", json={"agree": True, "version": "1"})
        sb = b.get("/api/trails/state").json()
        assert sb["me"] == 1 and sb["opponent"] == "person"  # paired with the one waiting
        sa = a.get("/api/trails/state").json()
        assert sa["me"] == 0 and sa["game"] == sb["game"] and sa["myTurn"]
        n = sa["nColors"]
        give, take = [0] * n, [0] * n
        give[sa["chips"][0].index(max(sa["chips"][0]))] = 1
        sa = a.post("/api/trails/act", json={"kind": "propose", "give": give, "take": take}).json()
        assert sa["phase"] == "respond"
        b_cookies = dict(b.cookies)
    study.close()

    app, study = create_trails_app(folder, design, password=PW)
    with TestClient(app, cookies=b_cookies) as b:
        sb = b.get("/api/trails/state").json()
        assert sb["phase"] == "respond" and sb["myTurn"] and sb["game"] == sa["game"]
        assert sb["proposal"] == {"from": 0, "give": take, "get": give}
        sb = b.post("/api/trails/act", json={"kind": "respond", "accept": True}).json()
        assert sb["phase"] == "transfer" and sb["promised"]["theirs"] == give
    study.close()


def test_a_game_stored_as_steps_before_the_web_driver_resumes_as_a_play(tmp_path: Path) -> None:
    folder = tmp_path / "old"
    design = trails_design(["purb"])
    app, study = create_trails_app(folder, design, password=PW)
    (inv,) = study.invite(1)
    with TestClient(app) as c:
        c.post(inv.path)
        c.post("/api/participant/consent", json={"agree": True, "version": "1"})
        cookies = dict(c.cookies)
    study.close()
    # the game as the server stored it before: its row and one row per step
    setup = generate("mutual", 0)
    with SqliteFile(folder / "study.sqlite") as f:
        GameStore(f).add_game("g0001", 0, [inv.pid, None], "purb", setup, Settings())
        f.execute(
            "INSERT INTO trails_steps VALUES ('g0001', 0, 0, ?)", (json.dumps({"kind": "pass"}),)
        )
    expected = Game(setup, Settings())
    expected.step(0, Pass())
    app, study = create_trails_app(folder, design, password=PW)
    with TestClient(app, cookies=cookies) as c:
        s = c.get("/api/trails/state").json()
        assert s["game"] == "g0001" and s["turn"] >= expected.turn
        stored = app.state.trails.log.read(stream_of("g0001"))
        assert stored[0].kind == "start"
        assert stored[0].data["state"]["phase"] == expected.phase.value
    study.close()
