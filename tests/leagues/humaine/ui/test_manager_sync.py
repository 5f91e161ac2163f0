"""The manager recovers round totals it missed (it was down, or not a listed human UI)
from the real orchestrator, including after a restart of the manager."""

from __future__ import annotations

import httpx
from fastapi.testclient import TestClient

from accord.leagues.humaine.manager.app import create_manager_app
from accord.leagues.humaine.orchestrator import create_orchestrator_app
from accord.leagues.humaine.testing import ServerThread, free_port, loopback_socket
from accord.web.testing import wait_until


def test_a_restarted_manager_fetches_the_totals_it_missed(tmp_path):
    sock = loopback_socket()
    port = sock.getsockname()[1]
    orch = create_orchestrator_app(db_path=tmp_path / "o.sqlite")
    db = tmp_path / "m.sqlite"

    def manager() -> TestClient:
        c = TestClient(
            create_manager_app(
                db,
                admin_password="pw-pw-pw",
                orchestrator_url=f"http://127.0.0.1:{port}",
                orchestrator_secret=orch.state.admin_secret,
            )
        )
        c.post("/api/login", json={"username": "admin", "password": "pw-pw-pw"})
        return c

    with ServerThread(orch, sock):
        c = manager()
        for name in ("a", "b"):  # nobody listens there: the round runs regardless
            c.post("/api/agents", json={"name": name, "port": free_port()})
        c.post("/api/humans", json={"name": "h"})
        c.put(
            "/api/settings",
            json={"nPools": 1, "durations": {"warmUp": 0, "round": 0.4, "post": 0.2}},
        )
        c.post("/api/pools")
        started = c.post("/api/rounds/1/start").json()
        assert started["status"] == "running"
        c.app.state.competition.store.close()  # the manager goes down mid-round
        rid = started["round_id"]
        wait_until(  # the round ends while the manager is down
            lambda: httpx.get(f"http://127.0.0.1:{port}/rounds/{rid}").json()["phase"] == "ended",
            "the round's end at the orchestrator",
        )
        again = manager()
        row = wait_until(
            lambda: (r := again.get("/api/schedule").json()["rounds"][0])["status"] == "done" and r,
            "the restarted manager's result",
        )
        assert row["totals"]["Human"]["utility"]["value"] == 0.0
        board = again.get("/api/leaderboard").json()
        assert board["roundsDone"] == 1
        assert sorted(s["rounds"] for s in board["agents"]) == [1, 1]
