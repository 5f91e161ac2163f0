"""A slow agent holds up only its own participant: it thinks outside the service's lock
(the agent driver's seat, as the web driver does), so other participants are answered."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import httpx
import pytest

from accord.leagues.trails import server as trails_server
from accord.leagues.trails.baselines import BASELINES
from accord.leagues.trails.server import create_trails_app, trails_design
from accord.web.testing import ServerThread

ENTERED, GATE = threading.Event(), threading.Event()


class Stalling(BASELINES["reliable"]):  # type: ignore[misc, valid-type]
    """Waits at every call until the test opens the gate (60 s at most)."""

    def _wait(self) -> None:
        ENTERED.set()
        GATE.wait(60)

    def propose(self, view: Any) -> Any:
        self._wait()
        return super().propose(view)

    def respond(self, view: Any, proposal: Any) -> Any:
        self._wait()
        return super().respond(view, proposal)

    def transfer(self, view: Any, promised: Any, expected: Any) -> Any:
        self._wait()
        return super().transfer(view, promised, expected)

    def move(self, view: Any) -> Any:
        self._wait()
        return super().move(view)


NULL = {"propose": {"kind": "pass"}, "respond": {"kind": "respond", "accept": False},
        "move": {"kind": "endmove"}}  # fmt: skip


def _play_until_the_agent_is_asked(person: httpx.Client, s: dict[str, Any]) -> Any:
    for _ in range(20):
        body = NULL.get(s["phase"], {"kind": "transfer", "send": [0] * s["nColors"]})
        r = person.post("/api/trails/act", json=body)
        if ENTERED.is_set() or s.get("done"):
            return r
        s = r.json()
    return None


def _person(url: str, path: str) -> httpx.Client:
    c = httpx.Client(base_url=url, timeout=20)
    c.post(path)
    c.post("/api/participant/consent", json={"agree": True, "version": "1"})
    return c


def test_a_stalling_agent_holds_up_only_its_own_participant(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = trails_server.make_agent
    monkeypatch.setattr(
        trails_server, "make_agent", lambda n: Stalling() if n == "reliable" else real(n)
    )
    app, study = create_trails_app(
        tmp_path, trails_design(["reliable", "purb"]), password="pw-slow"
    )
    with ServerThread(app) as server:
        people = [_person(server.url, inv.path) for inv in study.invite(2)]
        states = [p.get("/api/trails/state").json() for p in people]
        slow, other = sorted(range(2), key=lambda k: states[k]["opponent"] != "reliable")
        assert [states[slow]["opponent"], states[other]["opponent"]] == ["reliable", "purb"]
        answer: dict[str, Any] = {}
        waiting = threading.Thread(
            target=lambda: answer.update(
                r=_play_until_the_agent_is_asked(people[slow], states[slow])
            )
        )
        waiting.start()
        try:
            assert ENTERED.wait(30), "the stalling agent was never asked"
            # the other participant's requests are answered while the agent thinks
            seen = people[other].get("/api/trails/state")
            assert seen.status_code == 200 and seen.json()["opponent"] == "purb"
            assert waiting.is_alive()  # the stalled participant still waits for its agent
        finally:
            GATE.set()
            waiting.join(30)
        assert answer["r"].status_code == 200
        assert answer["r"].json()["game"] == states[slow]["game"]
