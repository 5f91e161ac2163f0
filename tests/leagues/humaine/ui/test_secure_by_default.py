"""Issue 9's "must show": ``accord humaine up`` and a manager-run round reject a forged
Celia and a forged Human by default, and an agent written for the original platform,
listed explicitly as unauthenticated, still plays a full round while the UI and the logs
say it is unauthenticated. Everything is a real server on loopback."""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from hui_kit import KEYS, FixedUtilities, join, tiny_agent

from accord.leagues.humaine.cli import build_stack, serve_all
from accord.leagues.humaine.rules import RuleConfig
from accord.leagues.humaine.testing import ServerThread, agent, human, loopback_socket
from accord.web.testing import VirtualClock, wait_until

pytestmark = pytest.mark.timeout(300)  # a hang guard (a loaded machine is slow, not hung)


def until(what: str, get: Callable[[], Any]) -> Any:
    """``get()``'s first truthy value (:func:`wait_until`)."""
    return wait_until(get, what)


def forged_accept(rid: str, seller: str) -> dict[str, Any]:
    bid = {"type": "Accept", "quantity": {"egg": 1}, "price": {"unit": "USD", "value": 45}}
    return human(rid, f"{seller}, I accept", seller) | {"bid": bid}


def test_up_rejects_a_forged_celia_and_a_forged_human_by_default(tmp_path: Path) -> None:
    services, notes = build_stack("127.0.0.1", 0, tmp_path, "strong", "regex", True, True, 1)
    url = {s.name.split(" (")[0]: s.url for s in services}
    if "agent Watson" not in url or "human UIs" not in url:
        pytest.skip(f"agents or UI packages unavailable: {notes}")
    person = next(n.split(": ", 1)[1] for n in notes if n.startswith("the buyer's link"))
    admin = next(n.split(": ", 1)[1] for n in notes if n.startswith("the admin's link"))
    stop = threading.Event()
    thread = threading.Thread(
        target=lambda: asyncio.run(serve_all(services, should_stop=stop.is_set)), daemon=True
    )
    thread.start()
    eo, ui = url["orchestrator"], url["human UIs"]
    try:
        with (
            httpx.Client(timeout=10, trust_env=False) as op,
            httpx.Client(timeout=10, trust_env=False) as buyer,
            httpx.Client(timeout=10, trust_env=False) as forger,
        ):
            until("the stack", lambda: _up(forger, eo + "/health"))
            # without the links nobody gets in
            assert forger.post(ui + "/api/say", json={"text": "Celia, hi"}).status_code == 401
            assert forger.post(ui + "/api/admin/start", json={}).status_code == 401
            assert op.get(admin).status_code in (200, 303)  # the admin's link
            r = op.post(ui + "/api/admin/start", json={"warmUp": 0, "round": 60, "post": 5})
            assert r.status_code == 200, r.text
            rid = r.json()["roundId"]
            assert buyer.get(person).status_code in (200, 303)  # the person's link
            until("the buyer's secret", lambda: buyer.get(ui + "/api/state").json()["speaks"])
            until("the negotiation", lambda: buyer.get(ui + "/api/state").json()["phase"]
                  == "active")  # fmt: skip
            # forged Celia and forged Human (the Accept that moved $45) are refused
            r = forger.post(eo + "/relayMessage", json=agent(rid, "Celia", "I am Celia"))
            assert r.status_code == 403 and "Celia must present its secret" in r.text
            r = forger.post(eo + "/relayMessage", json=forged_accept(rid, "Celia"))
            assert r.status_code == 403 and "Human must present its secret" in r.text
            assert forger.get(f"{eo}/rounds/{rid}").json()["remainingBudget"] == 50.0
            # the person speaks through the page session; the agents answer with theirs
            said = buyer.post(ui + "/api/say", json={"text": "Watson, I'd like 2 eggs"}).json()
            assert said["reply"]["permitted"], said
            heard = until("Watson's answer", lambda: [
                m for m in buyer.get(ui + "/api/state").json()["transcript"]
                if m["speaker"] == "Watson" and m["permitted"]])  # fmt: skip
            assert heard[0]["authenticated"] is True
            rules = [d["rule"] for d in forger.get(f"{eo}/rounds/{rid}").json()["decisions"]]
            assert rules[:2] == ["token", "token"]
    finally:
        stop.set()
        thread.join(10)


def _up(client: httpx.Client, url: str) -> bool:
    try:
        return client.get(url).status_code == 200
    except httpx.HTTPError:
        return False


def test_a_manager_run_round_rejects_forgers_and_a_listed_original_agent_plays_it_through(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    from accord.leagues.humaine.manager.app import create_manager_app
    from accord.leagues.humaine.orchestrator import create_orchestrator_app
    from accord.leagues.humaine.ui_server import create_ui_app

    caplog.set_level(logging.INFO, "accord.humaine.orchestrator")
    names = ("orch", "ui", "manager", "ours", "original")
    socks = {k: loopback_socket() for k in names}
    u = {k: f"http://127.0.0.1:{s.getsockname()[1]}" for k, s in socks.items()}
    clock = VirtualClock(start=1000.0)  # the round's 4 s pass when the test says so

    def advance(seconds: float) -> None:
        wait_until(lambda: clock.pending, "the round runner waiting on the clock")
        clock.advance(seconds)

    orch = create_orchestrator_app(
        db_path=tmp_path / "o.sqlite", rule_config=RuleConfig(human_gap=0.3), clock=clock
    )
    apps = {
        "orch": orch,
        "ui": create_ui_app(
            orchestrator_url=u["orch"],
            admin_secret=orch.state.admin_secret,
            db_path=tmp_path / "ui.sqlite",
            utility_source=FixedUtilities(),
            auto_confirm=True,
            human_gap=0.3,
            **KEYS,
        ),
        "manager": create_manager_app(
            tmp_path / "m.sqlite",
            admin_password="manager-pw",
            orchestrator_url=u["orch"],
            ui_url=u["ui"],
            public_url=u["manager"],
            orchestrator_secret=orch.state.admin_secret,
        ),
        "ours": tiny_agent("Celia", 6.0, u["orch"]),  # sends its secret
        "original": tiny_agent("Watson", 7.5, u["orch"], original=True),  # cannot
    }
    servers = [ServerThread(apps[k], socks[k]) for k in names]
    for s in servers:
        s.__enter__()
    try:
        with (
            httpx.Client(timeout=10) as m,
            httpx.Client(timeout=10) as hui,
            httpx.Client(timeout=10) as forger,
        ):
            join(hui, u["ui"], ("person",))
            m.post(
                u["manager"] + "/api/login", json={"username": "admin", "password": "manager-pw"}
            )
            port = {k: socks[k].getsockname()[1] for k in ("ours", "original")}
            m.post(u["manager"] + "/api/agents", json={"name": "ours", "port": port["ours"]})
            r = m.post(
                u["manager"] + "/api/agents",
                json={"name": "old-jok", "port": port["original"], "authenticated": False},
            )
            assert r.status_code == 201 and r.json()["authenticated"] is False
            m.post(u["manager"] + "/api/humans", json={"name": "alice"})
            durations = {"warmUp": 0, "round": 4, "post": 1}
            m.put(u["manager"] + "/api/settings", json={"nPools": 1, "durations": durations})
            m.post(u["manager"] + "/api/pools")
            rows = m.get(u["manager"] + "/api/schedule").json()["rounds"]
            row = next(r for r in rows if r["watson"] == "old-jok")  # the original as Watson
            started = m.post(f"{u['manager']}/api/rounds/{row['number']}/start").json()
            rid = started["round_id"]
            assert "admits Watson WITHOUT authentication" in caplog.text
            state = until("the round at the UI", lambda: _state(hui, u["ui"], rid))
            assert state["unauthenticated"] == ["Watson"]
            until("active", lambda: _state(hui, u["ui"], rid)["phase"] == "active")
            # forgers: Celia (ours, authenticated) and the Human
            r = forger.post(u["orch"] + "/relayMessage", json=agent(rid, "Celia", "forged"))
            assert r.status_code == 403
            r = forger.post(u["orch"] + "/relayMessage", json=forged_accept(rid, "Watson"))
            assert r.status_code == 403
            # the person buys from the original agent, which sends no secret
            say = {"roundId": rid, "text": "Watson, 2 eggs, 2 flour, 1 milk, 1 sugar?"}
            assert hui.post(u["ui"] + "/api/say", json=say).json()["reply"]["permitted"]
            until("Watson's offer", lambda: [m for m in _state(hui, u["ui"], rid)["transcript"]
                                             if m["speaker"] == "Watson"])  # fmt: skip
            clock.advance(0.35)  # R0
            accept = {"roundId": rid, "text": "Watson, I accept"}
            assert hui.post(u["ui"] + "/api/say", json=accept).json()["reply"]["permitted"]
            until("the deal", lambda: _state(hui, u["ui"], rid)["deals"])
            transcript = _state(hui, u["ui"], rid)["transcript"]
            from_watson = [x for x in transcript if x["speaker"] == "Watson"]
            assert from_watson and all(x["authenticated"] is False for x in from_watson)
            # the round plays through: the manager records the totals
            advance(1004.0 - clock.now())  # the negotiation's 4 s
            advance(1.0)  # the post phase
            done = until("the manager's result", lambda: [
                r for r in m.get(u["manager"] + "/api/schedule").json()["rounds"]
                if r["number"] == row["number"] and r["status"] == "done"])  # fmt: skip
            totals = done[0]["totals"]
            assert totals["Watson"]["revenue"] == 7.5 and totals["Human"]["cost"] == 7.5
            decisions = forger.get(f"{u['orch']}/rounds/{rid}").json()["decisions"]
            assert [d["rule"] for d in decisions[:2]] == ["token", "token"]
            watson_said = [d for d in decisions if d["speaker"] == "Watson" and d["permitted"]]
            assert all(d["message"]["authenticated"] is False for d in watson_said)
    finally:
        for s in reversed(servers):
            s.__exit__(None, None, None)


def _state(client: httpx.Client, ui: str, rid: str) -> dict[str, Any]:
    r = client.get(ui + "/api/state", params={"round": rid})
    return dict(r.json()) if r.status_code == 200 else {}
