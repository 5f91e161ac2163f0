"""The round runner keeps its phase as the ``Phase`` enum and, when it breaks, fails the
round for good: stored as failed with the reason, every party told (issue 17, part 7)."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

from accord.leagues.humaine.orchestrator import create_orchestrator_app
from accord.leagues.humaine.round import Phase
from accord.leagues.humaine.rules import RuleConfig
from accord.leagues.humaine.store import RoundStore
from accord.leagues.humaine.testing import Stage, human
from accord.web.testing import wait_until

FAST = RuleConfig(human_gap=0.2)


def break_the_store_at_post(db: Path) -> None:
    """A real SQLite failure: the store refuses to record the post phase (as a full disk
    or a broken file would); every other write still works."""
    with sqlite3.connect(db) as con:
        con.execute(
            "CREATE TRIGGER no_post BEFORE INSERT ON rounds WHEN NEW.status = 'post' "
            "BEGIN SELECT RAISE(ABORT, 'disk says no'); END"
        )


def test_the_runner_stores_each_phase_it_reaches_as_the_enum(tmp_path: Path) -> None:
    db = tmp_path / "eo.db"
    with Stage(create_orchestrator_app(db_path=db, rule_config=FAST)) as stage:
        rid = stage.new_round(duration=0.3, post=0.2)
        stage.ui.wait_for("/receiveRoundTotals", round_id=rid)
    (record,) = RoundStore(db).load_rounds()
    assert record.status is Phase.ENDED and record.error is None


def test_a_broken_round_runner_fails_the_round_stores_it_and_tells_everyone(
    tmp_path: Path,
) -> None:
    db = tmp_path / "eo.db"
    with Stage(create_orchestrator_app(db_path=db, rule_config=FAST)) as stage:
        rid = stage.new_round(duration=0.4, post=5)
        break_the_store_at_post(db)
        for party in (stage.ui, stage.celia, stage.watson):
            told = party.wait_for("/endRound", 2, round_id=rid)[-1]
            assert "disk says no" in told["failed"] and "active phase" in told["failed"]
        state = stage.client.get(f"/rounds/{rid}").json()
        assert state["phase"] == "failed" and "disk says no" in state["error"]
        assert stage.client.get("/health").json()["unfinished"] == 0
        # a failed round takes no more messages, and the admin cannot end it again
        r = stage.client.post("/relayMessage", json=human(rid, "Celia, still there?", "Celia"))
        assert r.json()["permitted"] is False and r.json()["rule"] == "phase"
        assert stage.client.post("/endRound", json={"roundId": rid}).status_code == 409
        time.sleep(0.2)  # a negative check: nothing more may come (no event to wait on)
        assert stage.ui.bodies("/receiveRoundTotals", rid) == []
    (record,) = RoundStore(db).load_rounds()
    assert record.status is Phase.FAILED and "disk says no" in (record.error or "")
    # a restarted orchestrator keeps it failed and does not run it again
    with Stage(create_orchestrator_app(db_path=db, rule_config=FAST)) as again:
        state = again.client.get(f"/rounds/{rid}").json()
        assert state["phase"] == "failed" and "disk says no" in state["error"]
        time.sleep(0.3)  # a negative check: nothing may come (no event to wait on)
        assert again.ui.bodies("/endRound") == [] and again.ui.bodies("/receiveRoundTotals") == []


def test_the_ui_shows_a_failed_round(tmp_path: Path) -> None:
    from accord.leagues.humaine.ui_state import UiRound

    r = UiRound("r1", created=0.0)
    r.apply("startRound", {"roundDuration": 60}, at=1.0)
    r.apply("endRound", {"roundId": "r1", "failed": "the round runner failed"}, at=2.0)
    assert r.phase(3.0)[0] == "failed"
    assert r.snapshot(3.0)["failed"] == "the round runner failed"


def test_the_manager_marks_a_round_the_orchestrator_failed(tmp_path: Path) -> None:
    """The competition manager hears the failure (it is one of the round's human UIs),
    checks it with the orchestrator and marks its round failed (it may be started again);
    a forged failure notice changes nothing."""
    import httpx

    from accord.leagues.humaine.manager.app import create_manager_app
    from accord.leagues.humaine.testing import Party, ServerThread, free_port, loopback_socket

    db = tmp_path / "eo.db"
    socks = {k: loopback_socket() for k in ("orch", "manager")}
    url = {k: f"http://127.0.0.1:{s.getsockname()[1]}" for k, s in socks.items()}
    orch = create_orchestrator_app(db_path=db, rule_config=FAST)
    manager = create_manager_app(
        tmp_path / "m.sqlite", admin_password="pw-pw-pw", orchestrator_url=url["orch"],
        public_url=url["manager"], orchestrator_secret=orch.state.admin_secret,
    )  # fmt: skip
    with (
        ServerThread(orch, socks["orch"]),
        ServerThread(manager, socks["manager"]),
        Party("a") as a,
        Party("b") as b,
        httpx.Client(base_url=url["manager"], timeout=10) as m,
    ):
        m.post("/api/login", json={"username": "admin", "password": "pw-pw-pw"})
        for name, party in (("a", a), ("b", b)):
            m.post("/api/agents", json={"name": name, "port": party.port})
        m.post("/api/humans", json={"name": "h"})
        m.put("/api/settings", json={"nPools": 1, "durations": {"warmUp": 0, "round": 0.5,
                                                                "post": 5}})  # fmt: skip
        m.post("/api/pools")
        rid = m.post("/api/rounds/1/start").json()["round_id"]
        forged = {"roundId": rid, "failed": "forged"}
        assert m.post("/endRound", json=forged).status_code == 200
        assert m.get("/api/schedule").json()["rounds"][0]["status"] == "running"
        break_the_store_at_post(db)
        row = wait_until(
            lambda: (r := m.get("/api/schedule").json()["rounds"][0])["status"] == "failed" and r,
            "the manager's failed row",
        )
        assert "disk says no" in row["error"]
        assert free_port()  # the loopback is still fine
