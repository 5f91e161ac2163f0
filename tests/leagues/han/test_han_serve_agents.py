"""Agents off the request path under ``accord han serve``: a hung agent holds up only its
own participant (the web driver asks each agent outside every lock, each agent in its own
process with a per-call deadline), and an agent's events reach the page spaced as in ``play`` (1.1 s apart)."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import httpx
import pytest

from accord.leagues.han.server import create_han_app
from accord.web.clock import VirtualClock
from accord.web.testing import ServerThread

HERE = Path(__file__).parent
CONSENT = {"agree": True, "version": "1"}


@pytest.fixture(autouse=True)
def _importable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(HERE))


def _participants(url: str, study: Any, want: set[str]) -> dict[str, tuple[str, httpx.Client]]:
    """One consented participant (pid, client) per condition in ``want``."""
    got: dict[str, tuple[str, httpx.Client]] = {}
    for _ in range(12):
        (inv,) = study.invite(1)
        c = httpx.Client(base_url=url, timeout=30)
        assert c.post(inv.path).status_code == 303
        assert c.post("/api/participant/consent", json=CONSENT).status_code == 200
        cond = str(study.view(inv.pid).condition)
        if cond in want and cond not in got:
            got[cond] = (inv.pid, c)
        if set(got) == want:
            return got
    raise AssertionError(f"no participant was put in each of {want}: {sorted(got)}")


@pytest.mark.parametrize("first", ["GET", "POST"])
def test_a_hung_agent_holds_up_its_own_participant_only(tmp_path: Path, first: str) -> None:
    app, study, service = create_han_app(
        tmp_path / "han.sqlite", ["fair", "han_stateful.Stuck"], time_limit=120.0,
        password="secret-pw", agent_timeout=600.0,
    )  # fmt: skip
    with ServerThread(app) as srv:
        people = _participants(srv.url, study, {"fair", "han_stateful.Stuck"})
        stuck_pid, stuck = people["han_stateful.Stuck"]
        answer: list[httpx.Response] = []
        face = {"kind": "SEND_EXPRESSION", "emotion": "happy"}

        def ask() -> None:  # a page's first request: its game starts, its agent hangs
            if first == "GET":
                answer.append(stuck.get("/api/han/state"))
            else:  # (an async route: the agent must not be asked on the event loop)
                answer.append(stuck.post("/api/han/event", json=face))

        t = threading.Thread(target=ask)
        t.start()
        for _ in range(400):  # the stuck agent was built and is being asked to start
            if stuck_pid in service.agent_of:
                break
            t.join(0.05)
        assert stuck_pid in service.agent_of
        _, fair = people["fair"]
        s = fair.get("/api/han/state").json()
        assert s["ended"] is False and s["left"] > 0
        r = fair.post("/api/han/event", json={"kind": "SEND_EXPRESSION", "emotion": "happy"})
        assert r.status_code == 200 and any(
            h["kind"] == "SEND_EXPRESSION" for h in r.json()["history"]
        )
        bad = fair.post("/api/han/event", json={"kind": "SEND_MESSAGE", "text": "all mine"})
        assert bad.status_code == 422  # refused by the rules, at once
        assert t.is_alive() and not answer  # the stuck participant still waits on its agent
        service.close()  # kills the stuck agent's process: its game ends with both BATNAs
        t.join(30)
        assert not t.is_alive()
        (res,) = answer
        # (a POST's event was taken at once, while the agent hung: the answer waited for
        # the agent only to show what it did, and shows the game ended meanwhile)
        assert res.status_code == 200
        result = res.json()["result"]
        assert result["outcome"] == "partner_left" and result["points"] == 4


def test_served_agent_events_are_spaced_as_in_play(tmp_path: Path) -> None:
    clock = VirtualClock()
    app, study, service = create_han_app(
        tmp_path / "han.sqlite", ["han_stateful.Flooding"], time_limit=120.0,
        password="secret-pw", clock=clock, shared_process=True,
    )  # fmt: skip
    with ServerThread(app) as srv:
        ((_, c),) = _participants(srv.url, study, {"han_stateful.Flooding"}).values()

        def faces() -> int:
            hist = c.get("/api/han/state").json()["history"]
            return sum(h["kind"] == "SEND_EXPRESSION" for h in hist)

        assert faces() == 1  # the first at once, then one per 1.1 s
        clock.advance(1.0)
        assert faces() == 1
        clock.advance(0.2)
        assert faces() == 2
        clock.advance(1.1 * 5)
        assert faces() == 7
    service.close()
