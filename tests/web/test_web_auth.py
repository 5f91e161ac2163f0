"""Passwords, sessions (with expiry on a virtual clock), participant and service tokens."""

from __future__ import annotations

import httpx
import pytest
from fastapi import APIRouter, Depends

from accord.tournament.sqlite import SqliteFile
from accord.web import Auth, VirtualClock, WebError, create_app
from accord.web.auth import hash_password, verify_password
from accord.web.testing import ServerThread


def test_passwords_are_salted_scrypt_hashes() -> None:
    a, b = hash_password("s3cret!"), hash_password("s3cret!")
    assert a != b and a.startswith("scrypt$16384$8$1$")
    assert verify_password("s3cret!", a) and not verify_password("s3cret?", a)
    assert not verify_password("s3cret!", "md5$whatever")
    with pytest.raises(ValueError, match="at least 6 characters; got 3"):
        hash_password("abc")


def test_sessions_expire_and_end_at_logout() -> None:
    clock = VirtualClock()
    auth = Auth(SqliteFile(":memory:"), clock, session_seconds=60)
    auth.set_password("ada", "s3cret!")
    with pytest.raises(WebError, match="wrong user name or password"):
        auth.login("ada", "nope!!")
    with pytest.raises(WebError, match="wrong user name or password"):
        auth.login("bob", "s3cret!")
    token = auth.login("ada", "s3cret!")
    clock.advance(59)
    assert auth.session_user(token) == "ada"
    clock.advance(2)
    assert auth.session_user(token) is None
    again = auth.login("ada", "s3cret!")
    auth.logout(again)
    assert auth.session_user(again) is None
    stored = auth.file.rows("SELECT * FROM sessions")
    assert all(again not in str(row.values()) for row in stored)  # only hashes are kept


def test_repeated_failed_logins_are_slowed_down() -> None:
    clock = VirtualClock()
    auth = Auth(SqliteFile(":memory:"), clock)
    auth.set_password("ada", "s3cret!")
    for _ in range(5):
        with pytest.raises(WebError, match="wrong user name or password"):
            auth.login("ada", "guess!")
        clock.advance(1)
    with pytest.raises(
        WebError, match="5 failed logins for 'ada' in the last 60 s; try again in 55 s"
    ):
        auth.login("ada", "s3cret!")  # even the right password waits
    clock.advance(56)
    assert auth.session_user(auth.login("ada", "s3cret!")) == "ada"


class Agents:
    def __init__(self, auth: Auth) -> None:
        self.auth = auth

    def router(self) -> APIRouter:
        r = APIRouter()
        service = Depends(self.auth.service)
        user = Depends(self.auth.user)

        @r.post("/relay")
        def relay(name: str = service) -> dict[str, str]:
            return {"from": name}

        @r.get("/admin")
        def admin(name: str = user) -> dict[str, str]:
            return {"user": name}

        return r


def test_services_and_users_authenticate_over_http() -> None:
    auth = Auth(SqliteFile(":memory:"))
    auth.set_password("ada", "s3cret!")
    celia = auth.issue("Celia", "service")
    participant = auth.issue("p1", "participant")
    app = create_app("t", auth, Agents(auth))
    with ServerThread(app) as srv, httpx.Client(base_url=srv.url, timeout=10) as c:
        assert c.post("/relay", headers={"Authorization": f"Bearer {celia}"}).json() == {
            "from": "Celia"
        }
        assert c.post("/relay", headers={"X-Accord-Token": celia}).json()["from"] == "Celia"
        none = c.post("/relay")
        assert none.status_code == 401 and none.json()["error"].endswith("got no token")
        wrong = c.post("/relay", headers={"Authorization": f"Bearer {participant}"})
        assert wrong.status_code == 401 and "unknown or revoked token" in wrong.text
        assert auth.revoke("Celia", "service") == 1
        assert c.post("/relay", headers={"X-Accord-Token": celia}).status_code == 401

        assert c.get("/admin").status_code == 401
        assert c.get("/api/me").json() == {"username": None, "role": None}
        r = c.post("/api/login", json={"username": "ada", "password": "s3cret!"})
        assert r.json() == {"username": "ada", "role": "admin"}
        cookie = r.headers["set-cookie"]
        assert "HttpOnly" in cookie and "SameSite=strict" in cookie
        assert c.get("/admin").json() == {"user": "ada"}
        c.post("/api/logout")
        assert c.get("/admin").status_code == 401
