"""The manager's admins are the web layer's users (accord.web.auth.Auth): a file written
with the manager's own ``admins`` table is adopted once, and logins go through the web
layer (its failed-login limit included), with the manager's cookie."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from fastapi.testclient import TestClient

from accord.leagues.humaine.manager.app import create_manager_app
from accord.leagues.humaine.manager.auth import SESSION_COOKIE, hash_password


def test_an_old_admins_table_is_adopted_and_logins_use_the_web_layer(tmp_path: Path) -> None:
    db = tmp_path / "old-manager.sqlite"
    old = sqlite3.connect(db)  # as the previous version wrote it
    old.execute("CREATE TABLE admins (username TEXT PRIMARY KEY, pw_hash TEXT NOT NULL)")
    old.execute("INSERT INTO admins VALUES (?, ?)", ("admin", hash_password("old-secret-pw")))
    old.commit()
    old.close()
    app = create_manager_app(db, orchestrator_url=None)
    assert app.state.initial_password is None  # the old admin was kept, no new password
    with TestClient(app) as c:
        assert c.get("/api/schedule").status_code == 401
        for _ in range(5):
            assert (
                c.post("/api/login", json={"username": "admin", "password": "guess!"}).status_code
                == 401
            )
        limited = c.post("/api/login", json={"username": "admin", "password": "old-secret-pw"})
        assert limited.status_code == 429  # the web layer's failed-login limit
    app = create_manager_app(db, orchestrator_url=None)  # a restart forgets the failures
    with TestClient(app) as c:
        r = c.post("/api/login", json={"username": "admin", "password": "old-secret-pw"})
        assert r.status_code == 200 and SESSION_COOKIE in r.cookies
        assert c.get("/api/me").json() == {"admin": True, "username": "admin"}
        assert c.post("/api/logout").json() == {"ok": True}
        assert c.get("/api/me").json()["admin"] is False
    con = sqlite3.connect(db)
    tables = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert "admins" not in tables and {"users", "sessions"} <= tables
    (stored,) = con.execute("SELECT pw_hash FROM users WHERE username = 'admin'").fetchone()
    assert stored.startswith("scrypt$")
    assert all(len(t) == 64 for (t,) in con.execute("SELECT token_hash FROM sessions"))
