"""The orchestrator's admin routes need the operator's secret (issue 9, follow-up), and
the servers' SQLite files keep only digests of secrets.

Real orchestrators on loopback (the test kit's :class:`Stage`); an outsider is a plain
HTTP client without (or with a forged) ``X-Accord-Admin`` header.
"""

from __future__ import annotations

import json
import logging
import sqlite3
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from accord.core.errors import ConfigError
from accord.leagues.humaine.admin import ADMIN_HEADER, OPEN_WARNING
from accord.leagues.humaine.cli import app as humaine_cli
from accord.leagues.humaine.credentials import digest
from accord.leagues.humaine.orchestrator import create_orchestrator_app
from accord.leagues.humaine.round import Phase
from accord.leagues.humaine.rules import RuleConfig
from accord.leagues.humaine.store import RoundRecord, RoundStore
from accord.leagues.humaine.testing import (
    BUYER_UTILITY,
    COSTS_C,
    COSTS_W,
    Stage,
    agent,
    human,
    round_body,
    secret_of,
    seller_utility,
    start_round,
)
from accord.leagues.humaine.ui_server import create_ui_app
from accord.web.testing import wait_until

FAST = RuleConfig(human_gap=0.2)


@pytest.fixture
def stage(tmp_path: Path) -> Iterator[Stage]:
    app = create_orchestrator_app(db_path=tmp_path / "eo.db", rule_config=FAST)
    with Stage(app) as s:
        yield s


def body_of(stage: Stage, **kw: Any) -> dict[str, Any]:
    agents = [stage.celia.agent_spec(COSTS_C), stage.watson.agent_spec(COSTS_W)]
    return round_body(agents, [stage.ui.ui_spec()], **kw)


def refused(r: httpx.Response, route: str) -> str:
    """The 403 body's error line (the web layer's one error body)."""
    assert r.status_code == 403, r.text
    doc = r.json()
    assert doc["status"] == "Failed" and doc["code"] == "forbidden"
    assert doc["error"].startswith(f"{route} refused: ")
    return str(doc["error"])


def test_missing_or_forged_admin_secret_is_403_and_the_round_is_unchanged(
    stage: Stage, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, "accord.humaine.admin")
    url = str(stage.client.base_url)
    forged = {ADMIN_HEADER: "not-the-operators-secret"}
    with httpx.Client(base_url=url, timeout=10) as outsider:
        # nothing can be created: neither a gen-2 round nor a gen-1 whole-body start
        for headers in ({}, forged):
            assert "the admin routes need" in refused(
                outsider.post("/initializeRound", json=body_of(stage), headers=headers),
                "/initializeRound",
            )
            refused(
                outsider.post("/startRound", json=body_of(stage), headers=headers), "/startRound"
            )
        assert stage.client.get("/rounds").json() == []
        # a created round cannot be started by an outsider
        rid = stage.client.post("/initializeRound", json=body_of(stage)).json()["roundId"]
        for headers in ({}, forged):
            refused(
                outsider.post("/startRound", json={"roundId": rid}, headers=headers), "/startRound"
            )
        assert stage.client.get(f"/rounds/{rid}").json()["phase"] == "created"
        assert stage.ui.bodies("/setUtility", rid) == []  # nobody was told anything
        # an active round cannot be ended by an outsider
        r = stage.client.post("/startRound", json={"roundId": rid})
        assert r.status_code == 200
        stage.ui.wait_for("/startRound", round_id=rid)
        for headers in ({}, forged):
            refused(outsider.post("/endRound", json={"roundId": rid}, headers=headers), "/endRound")
        assert stage.client.get(f"/rounds/{rid}").json()["phase"] == "active"
        assert stage.ui.bodies("/endRound", rid) == []
    # the operator (the stage's client sends the app's secret) ends it
    assert stage.client.post("/endRound", json={"roundId": rid}).status_code == 200
    assert stage.client.get(f"/rounds/{rid}").json()["phase"] == "post"
    text = caplog.text
    assert "admin decision: /initializeRound from 127.0.0.1:" in text
    assert text.count("refused (403): no X-Accord-Admin header") == 4
    assert text.count("refused (403): wrong X-Accord-Admin secret") == 4
    assert "admin decision: /endRound from 127.0.0.1:" in text and "permitted" in text


def test_open_admin_runs_a_round_without_the_header_and_warns(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.WARNING, "accord.humaine.admin")
    app = create_orchestrator_app(rule_config=FAST, open_admin=True)
    assert OPEN_WARNING in caplog.text and "cannot send the X-Accord-Admin header" in caplog.text
    assert app.state.admin_secret is None and app.state.admin_open
    with Stage(app) as stage, httpx.Client(base_url=str(stage.client.base_url)) as plain:
        assert ADMIN_HEADER not in stage.client.headers
        rid = start_round(plain, body_of(stage))  # as the original manager does
        assert plain.post("/relayMessage", json=human(rid, "Celia, 2 eggs?", "Celia")).json()[
            "permitted"
        ]
        assert plain.post("/endRound", json={"roundId": rid}).status_code == 200
        assert plain.get("/health").json()["adminOpen"] is True


def test_an_admin_secret_shorter_than_16_characters_is_refused() -> None:
    with pytest.raises(ConfigError, match="at least 16 characters, got 5"):
        create_orchestrator_app(admin_secret="short")


def _file_bytes(db: Path) -> bytes:
    """The SQLite file with its WAL and shared-memory files (not the 0600 side files)."""
    files = [db, db.with_name(db.name + "-wal"), db.with_name(db.name + "-shm")]
    return b"".join(p.read_bytes() for p in files if p.exists())


def test_the_sqlite_file_keeps_no_plain_secret_and_a_restart_checks_the_digests(
    tmp_path: Path,
) -> None:
    db = tmp_path / "eo.db"
    app = create_orchestrator_app(db_path=db, rule_config=FAST)
    admin = app.state.admin_secret
    with Stage(app) as stage:
        rid = start_round(stage.client, body_of(stage, authenticated=True))
        secrets = {p.name: secret_of(p, rid) for p in (stage.celia, stage.watson, stage.ui)}
        assert stage.relay_as(human(rid, "Celia, 2 eggs for 4?", "Celia")).json()["permitted"]
    raw = _file_bytes(db)
    assert b"2 eggs for 4" in raw  # the file is readable as bytes: the check can fail
    for secret in [admin, *secrets.values()]:
        assert secret.encode() not in raw
    spec = json.loads(sqlite3.connect(db).execute("SELECT spec FROM rounds").fetchone()[0])
    assert all("token" not in a and a["tokenHash"].startswith("sha256$") for a in spec["agents"])
    # a restarted orchestrator knows only the digests, and they still prove the speakers
    again = create_orchestrator_app(db_path=db, rule_config=FAST)
    with Stage(again) as stage:
        ok = agent(rid, "Celia", "2 eggs for 4 USD", price=4.0)
        r = stage.client.post(
            "/relayMessage", json=ok, headers={"X-Accord-Token": secrets["Celia"]}
        )
        assert r.status_code == 200, r.text
        r = stage.client.post(
            "/relayMessage", json=agent(rid, "Watson", "me"), headers={"X-Accord-Token": "guess"}
        )
        assert r.status_code == 403 and "the one given is wrong" in r.json()["error"]


def test_a_file_written_with_plain_secrets_is_read_and_rewritten_with_digests(
    tmp_path: Path,
) -> None:
    db = tmp_path / "old.db"
    old = RoundStore(db)  # as the previous version wrote it: the secrets in the set-up
    spec = {
        "roundId": "r-old",
        "agents": [
            {
                "name": "Celia",
                "host": "127.0.0.1",
                "port": 9,
                "token": "celia-plain-secret-0001",
                "utilityFunction": seller_utility(COSTS_C),
            },
        ],  # fmt: skip
        "human": {"utilityFunction": BUYER_UTILITY, "token": "human-plain-secret-00001"},
        "durations": {"warmUp": 0, "round": 60, "post": 2},
    }
    old.save_round(RoundRecord("r-old", spec, Phase.CREATED, 2, 1.0))
    old.close()
    app = create_orchestrator_app(db_path=db, rule_config=FAST)
    with Stage(app) as stage:
        assert stage.client.get("/rounds/r-old").json()["phase"] == "created"
    stored = json.loads(sqlite3.connect(db).execute("SELECT spec FROM rounds").fetchone()[0])
    assert "token" not in stored["agents"][0] and "token" not in stored["human"]
    salt = stored["human"]["tokenHash"].split("$")[1]
    assert stored["human"]["tokenHash"] == digest("human-plain-secret-00001", salt)


def test_up_makes_the_operator_secret_0600_and_open_admin_says_what_it_gives_up(
    tmp_path: Path,
) -> None:
    runner = CliRunner()
    args = ["up", "--port-base", "0", "--no-agents", "--no-ui", "--exit-after", "0.5"]
    result = runner.invoke(humaine_cli, [*args, "--data", str(tmp_path / "a")])
    assert result.exit_code == 0, result.output
    path = tmp_path / "a" / "admin-secret"
    secret = path.read_text().strip()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600 and len(secret) >= 16
    out = " ".join(result.output.split())
    assert f"admin secret made: {secret}" in out
    result = runner.invoke(humaine_cli, [*args, "--data", str(tmp_path / "a")])
    out = " ".join(result.output.split())
    assert secret not in out and "admin secret (X-Accord-Admin header) in" in out  # once
    result = runner.invoke(humaine_cli, [*args, "--data", str(tmp_path / "b"), "--open-admin"])
    assert result.exit_code == 0, result.output
    out = " ".join(result.output.split())
    assert "admin routes are OPEN (--open-admin): anyone who can reach the orchestrator" in out
    assert not (tmp_path / "b" / "admin-secret").exists()


# -- the human UIs' server: page keys and the buyer's round secret ------------------------
def _ui(db: Path) -> tuple[Any, TestClient]:
    app = create_ui_app(orchestrator_url="http://127.0.0.1:9", db_path=db)
    return app, TestClient(app)


def _joins(client: TestClient, key: str) -> bool:
    return client.get("/join", params={"key": key}, follow_redirects=False).status_code == 303


BUYER_SECRET = "buyer-round-secret-0123456789"


def test_the_ui_server_keeps_digests_in_sqlite_and_its_keys_in_0600_files(tmp_path: Path) -> None:
    db = tmp_path / "ui.sqlite"
    app, client = _ui(db)
    keys = app.state.page_keys
    person, admin = str(keys.person), str(keys.admin)
    assert _joins(client, person) and client.get("/api/me").json()["roles"] == ["person"]
    assert not _joins(TestClient(app), "not-a-key-of-this-server")
    setup = {"roundId": "r1", "durations": {"warmUp": 0, "round": 60, "post": 5}}
    client.post("/sendRoundMetadata", json=setup | {"token": BUYER_SECRET})
    assert client.get("/api/state").json()["speaks"]  # it can speak for the buyer
    raw = _file_bytes(db)
    assert b"sendRoundMetadata" in raw
    for secret in (person, admin, BUYER_SECRET):
        assert secret.encode() not in raw
    for side in ("page-keys", "round-secrets"):
        assert stat.S_IMODE((tmp_path / f"ui.sqlite.{side}").stat().st_mode) == 0o600
    # restarted: the old links open, the links can be printed again, the buyer still speaks
    app, client = _ui(db)
    assert app.state.page_keys.link("person") == f"/join?key={person}"
    assert _joins(client, person) and client.get("/api/state").json()["speaks"]
    # without the key file only the digests are left: old links work, new ones cannot be made
    (tmp_path / "ui.sqlite.page-keys").unlink()
    app, client = _ui(db)
    assert _joins(client, admin) and client.get("/api/me").json()["roles"] == ["admin"]
    with pytest.raises(ConfigError, match="the person key is kept only as a digest"):
        app.state.page_keys.link("person")


def test_a_ui_file_written_with_plain_keys_and_secrets_is_read_and_rewritten(
    tmp_path: Path,
) -> None:
    db = tmp_path / "old-ui.sqlite"
    old = sqlite3.connect(db)  # as the previous version wrote it
    old.execute("CREATE TABLE page_keys (role TEXT PRIMARY KEY, key TEXT NOT NULL)")
    old.executemany("INSERT INTO page_keys VALUES (?, ?)",
                    [("person", "p" * 20), ("admin", "a" * 20)])  # fmt: skip
    old.execute("CREATE TABLE events (seq INTEGER PRIMARY KEY, round_id TEXT NOT NULL,"
                " route TEXT NOT NULL, body TEXT NOT NULL, at REAL NOT NULL)")  # fmt: skip
    body = {"roundId": "r1", "durations": {"round": 60}, "token": BUYER_SECRET}
    old.execute("INSERT INTO events (round_id, route, body, at) VALUES (?, ?, ?, ?)",
                ("r1", "sendRoundMetadata", json.dumps(body), 1.0))  # fmt: skip
    old.commit()
    old.close()
    app, client = _ui(db)
    assert _joins(client, "p" * 20) and client.get("/api/state").json()["speaks"]
    con = sqlite3.connect(db)
    stored = dict(con.execute("SELECT role, key FROM page_keys").fetchall())
    assert all(v.startswith("sha256$") for v in stored.values())
    kept = con.execute("SELECT kind, data FROM events").fetchall()  # the web layer's log
    assert [k for k, _ in kept] == ["sendRoundMetadata"] and "token" not in json.loads(kept[0][1])
    assert BUYER_SECRET not in db.read_bytes().decode("latin-1")


def test_the_manager_of_up_runs_a_whole_round_with_the_secret_and_an_outsider_cannot(
    tmp_path: Path,
) -> None:
    import asyncio
    import threading

    from accord.leagues.humaine.cli import build_stack, serve_all

    services, notes = build_stack("127.0.0.1", 0, tmp_path, "strong", "regex", True, True, 1)
    url = {s.name.split(" (")[0]: s.url for s in services}
    if "agent Watson" not in url or "competition manager" not in url:
        pytest.skip(f"agents or manager unavailable: {notes}")
    password = next(n.rsplit(" ", 1)[1] for n in notes if n.startswith("manager admin user"))
    stop = threading.Event()
    thread = threading.Thread(
        target=lambda: asyncio.run(serve_all(services, should_stop=stop.is_set)), daemon=True
    )
    thread.start()
    eo = url["orchestrator"]
    try:
        with httpx.Client(base_url=url["competition manager"], timeout=10, trust_env=False) as m:

            def up() -> bool:
                try:
                    return (
                        m.get("/").status_code == 200
                        and httpx.get(eo + "/health").status_code == 200
                    )
                except httpx.HTTPError:
                    return False

            wait_until(up, "the manager and the orchestrator")
            m.post("/api/login", json={"username": "admin", "password": password})
            for name in ("Celia", "Watson"):
                port = int(url[f"agent {name}"].rsplit(":", 1)[1])
                r = m.post("/api/agents", json={"name": f"{name.lower()}-bot", "port": port})
                assert r.status_code < 300, r.text
            m.post("/api/humans", json={"name": "h"})
            durations = {"warmUp": 0, "round": 1.0, "post": 0.5}
            m.put("/api/settings", json={"nPools": 1, "durations": durations})
            m.post("/api/pools")
            r = m.post("/api/rounds/1/start")
            assert r.status_code == 200, r.text
            rid = r.json()["round_id"]
            # an outsider cannot end the manager's round early
            refused(httpx.post(eo + "/endRound", json={"roundId": rid}), "/endRound")
            wait_until(
                lambda: m.get("/api/schedule").json()["rounds"][0]["status"] == "done",
                "the manager's round done",
                timeout=60,
            )
            assert httpx.get(f"{eo}/rounds/{rid}").json()["phase"] == "ended"
    finally:
        stop.set()
        thread.join(10)


def test_the_manager_and_ui_commands_read_the_secret_from_a_file_or_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import typer

    from accord.leagues.humaine.manager.cli import SECRET_ENV, _orchestrator_secret

    path = tmp_path / "admin-secret"
    path.write_text("from-the-file-0123456789\n")
    monkeypatch.setenv(SECRET_ENV, "from-the-environment-0123")
    assert _orchestrator_secret(path) == "from-the-file-0123456789"
    assert _orchestrator_secret(None) == "from-the-environment-0123"
    with pytest.raises(typer.BadParameter, match="cannot read the admin secret file"):
        _orchestrator_secret(tmp_path / "missing")
