"""The study server's default opponent (``accord genius serve``: ``--opponent kbagent``)
answers a person after the original's human-like delay, over HTTP (issue 26)."""

from __future__ import annotations

from pathlib import Path

from fastapi.testclient import TestClient

from accord.leagues.genius.protocol import VirtualClock
from accord.leagues.genius.server import condition, create_genius_app, genius_design

PW = "experimenter-pw"


def _person(app: object, exp: TestClient) -> TestClient:
    (invite,) = exp.post("/api/study/invites", json={"count": 1}).json()
    c = TestClient(app)  # type: ignore[arg-type]
    c.post("/" + invite["link"].split("/", 3)[3], follow_redirects=False)
    c.post("/api/participant/consent", json={"agree": True, "version": "1"})
    return c


def _agent_offer_at(opponent: str, folder: Path) -> float | None:
    """Seconds on the session clock before the agent's first offer reaches the person."""
    clock = VirtualClock(0.0)
    design = genius_design([condition(opponent)])
    # the poll loop is left idle: the test polls, so each step is seen exactly once
    app, _ = create_genius_app(folder, design, password=PW, clock=clock, poll_seconds=3600)
    with TestClient(app) as exp:
        exp.post("/api/login", json={"username": "experimenter", "password": PW})
        person = _person(app, exp)
        waited = 0.0
        while waited <= 40.0:
            app.state.genius.poll_all()
            state = person.get("/api/genius/state").json()
            assert state["status"] == "running"
            if state["offers"]:
                return waited
            clock.advance(1.0)
            waited += 1.0
    return None


def test_the_study_servers_default_kbagent_waits_like_a_person(tmp_path: Path) -> None:
    # the CLI's default condition is "kbagent": delayed (5 s, sd 2 s; at most a quarter of
    # the 120 s turn); "kbagent-instant" answers on the first poll
    delayed = _agent_offer_at("kbagent", tmp_path / "a")
    assert delayed is not None and 1.0 <= delayed <= 30.0
    assert _agent_offer_at("kbagent-instant", tmp_path / "b") == 0.0
