"""Who is speaking: passwords, cookie sessions, and tokens for participants and services.

- People who run a server (experimenters, admins) log in with a user name and password;
  only a salted scrypt hash is stored. A login gives a session cookie (HttpOnly,
  SameSite=Strict); only the SHA-256 of the session token is stored.
- Participants and services (agents, other servers) get a *token*, issued for one
  subject (a participant id, a service name) and one kind. A participant's browser
  carries it in the ``accord_participant`` cookie; a service sends it as
  ``Authorization: Bearer <token>`` (or ``X-Accord-Token``). Only hashes are stored,
  and a token can be revoked.

:class:`Auth` keeps these in the service's SQLite file and gives FastAPI dependencies
(``Depends(auth.user)``, ``Depends(auth.service)``, ``Depends(auth.participant)``) and a
router with ``POST /api/login``, ``POST /api/logout`` and ``GET /api/me``.

    >>> from accord.tournament.sqlite import SqliteFile
    >>> auth = Auth(SqliteFile(":memory:"))
    >>> auth.set_password("ada", "s3cret!")
    >>> token = auth.login("ada", "s3cret!")
    >>> auth.session_user(token)
    'ada'
    >>> agent = auth.issue("agent-1", "service")
    >>> auth.subject(agent, "service"), auth.subject(agent, "participant")
    ('agent-1', None)
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
from typing import Literal

from fastapi import APIRouter, Request, Response
from pydantic import BaseModel, ConfigDict, Field

from accord.core.errors import InvalidValue
from accord.tournament.sqlite import SqliteFile
from accord.web.clock import Clock, RealClock
from accord.web.errors import WebError

__all__ = [
    "MIN_PASSWORD",
    "PARTICIPANT_COOKIE",
    "SESSION_COOKIE",
    "Auth",
    "Login",
    "TokenKind",
    "digest_matches",
    "hash_password",
    "new_completion_code",
    "new_secret",
    "new_token",
    "salted_digest",
    "same_secret",
    "token_hash",
    "verify_password",
]

SESSION_COOKIE = "accord_session"
PARTICIPANT_COOKIE = "accord_participant"
SESSION_SECONDS = 12 * 3600
MIN_PASSWORD = 6
MAX_FAILED_LOGINS = 5
"""Failed logins allowed per user name within :data:`LOGIN_WINDOW` seconds; more get a 429."""
LOGIN_WINDOW = 60.0
_N, _R, _P = 2**14, 8, 1

TokenKind = Literal["participant", "service"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS users (
    username TEXT PRIMARY KEY, pw_hash TEXT NOT NULL, role TEXT NOT NULL, created REAL NOT NULL);
CREATE TABLE IF NOT EXISTS sessions (
    token_hash TEXT PRIMARY KEY, username TEXT NOT NULL, expires REAL NOT NULL);
CREATE TABLE IF NOT EXISTS tokens (
    token_hash TEXT PRIMARY KEY, subject TEXT NOT NULL, kind TEXT NOT NULL,
    created REAL NOT NULL, revoked REAL);
"""


def _b64(raw: bytes) -> str:
    return base64.b64encode(raw).decode("ascii")


def hash_password(password: str) -> str:
    """``scrypt$n$r$p$salt$hash`` for ``password`` with a fresh random salt.

    >>> h = hash_password("s3cret")
    >>> verify_password("s3cret", h), verify_password("guess", h)
    (True, False)
    """
    if len(password) < MIN_PASSWORD:
        raise InvalidValue(
            f"a password needs at least {MIN_PASSWORD} characters; got {len(password)}"
        )
    salt = secrets.token_bytes(16)
    digest = hashlib.scrypt(password.encode(), salt=salt, n=_N, r=_R, p=_P, dklen=32)
    return f"scrypt${_N}${_R}${_P}${_b64(salt)}${_b64(digest)}"


def verify_password(password: str, stored: str) -> bool:
    """Whether ``password`` matches ``stored`` (constant-time comparison)."""
    try:
        scheme, n, r, p, salt, digest = stored.split("$")
        if scheme != "scrypt":
            return False
        got = hashlib.scrypt(
            password.encode(), salt=base64.b64decode(salt), n=int(n), r=int(r), p=int(p), dklen=32
        )
    except ValueError:
        return False
    return hmac.compare_digest(got, base64.b64decode(digest))


def new_token() -> str:
    """A fresh unguessable token (256 random bits, URL-safe)."""
    return secrets.token_urlsafe(32)


def token_hash(token: str) -> str:
    """What a store keeps of a token (the hex SHA-256 of its text).

    >>> token_hash("abc")[:16]
    'ba7816bf8f01cfea'
    """
    return hashlib.sha256(token.encode()).hexdigest()


def new_completion_code() -> str:
    """A fresh completion code for a crowd study's last page: 8 upper-case hex digits.

    >>> code = new_completion_code()
    >>> len(code), code == code.upper(), int(code, 16) >= 0
    (8, True, True)
    """
    return secrets.token_hex(4).upper()


def new_secret(nbytes: int = 24) -> str:
    """A fresh unguessable secret of ``nbytes`` random bytes, URL-safe (24: 32 characters).

    >>> len(new_secret()), len(new_secret(9))
    (32, 12)
    """
    return secrets.token_urlsafe(nbytes)


def same_secret(given: str, expected: str) -> bool:
    """Whether two secrets are equal, in constant time (no timing leak).

    >>> same_secret("s3cret", "s3cret"), same_secret("s3cret", "guess")
    (True, False)
    """
    return hmac.compare_digest(given.encode(), expected.encode())


def salted_digest(secret: str, salt: str | None = None) -> str:
    """What a store keeps of a secret it must check later but never show:
    ``sha256$<salt>$<hex of sha256(salt + secret)>`` (a fresh random salt by default).

    >>> d = salted_digest("s3cret", salt="00ff")
    >>> d[:12], digest_matches("s3cret", d), digest_matches("guess", d)
    ('sha256$00ff$', True, False)
    """
    salt = secrets.token_hex(8) if salt is None else salt
    return f"sha256${salt}${hashlib.sha256((salt + secret).encode()).hexdigest()}"


def digest_matches(given: str, stored: str) -> bool:
    """Whether ``given`` is the secret whose :func:`salted_digest` is ``stored``
    (constant-time comparison; False for anything that is no such digest)."""
    try:
        kind, salt, _ = stored.split("$", 2)
    except ValueError:
        return False
    return kind == "sha256" and hmac.compare_digest(salted_digest(given, salt), stored)


class Login(BaseModel):
    """Body of ``POST /api/login``."""

    model_config = ConfigDict(extra="forbid")
    username: str = Field(min_length=1, max_length=64)
    password: str = Field(min_length=1, max_length=256)


class Me(BaseModel):
    """Answer of ``GET /api/me``."""

    username: str | None
    role: str | None


def bearer(request: Request) -> str | None:
    """The token of ``Authorization: Bearer ...`` or ``X-Accord-Token``, if any."""
    header = request.headers.get("authorization", "")
    if header[:7].lower() == "bearer ":
        return header[7:].strip() or None
    return request.headers.get("x-accord-token") or None


class Auth:
    """Users, sessions and tokens in ``file``; times from ``clock.wall()``."""

    def __init__(
        self,
        file: SqliteFile,
        clock: Clock | None = None,
        *,
        session_seconds: float = SESSION_SECONDS,
        secure_cookies: bool = False,
        cookie: str = SESSION_COOKIE,
    ) -> None:
        self.file = file
        self.clock: Clock = clock or RealClock()
        self.session_seconds = session_seconds
        self.secure_cookies = secure_cookies
        self.cookie = cookie
        """The session cookie's name (a server with two kinds of users may need two)."""
        self._failures: dict[str, list[float]] = {}
        with file.lock:
            file.conn.executescript(_SCHEMA)

    # -- users and sessions --------------------------------------------------------------
    def set_password(self, username: str, password: str, role: str = "admin") -> None:
        """Create ``username`` or change its password (and role)."""
        pw = hash_password(password)
        self.file.execute(
            "INSERT INTO users VALUES (?, ?, ?, ?) "
            "ON CONFLICT(username) DO UPDATE SET pw_hash = excluded.pw_hash, role = excluded.role",
            (username, pw, role, self.clock.wall()),
        )

    def has_users(self) -> bool:
        return bool(self.file.rows("SELECT 1 FROM users LIMIT 1"))

    def role(self, username: str) -> str | None:
        rows = self.file.rows("SELECT role FROM users WHERE username = ?", (username,))
        return str(rows[0]["role"]) if rows else None

    def login(self, username: str, password: str) -> str:
        """A new session token for a right password; 401 otherwise, and 429 after
        :data:`MAX_FAILED_LOGINS` failures for that name within :data:`LOGIN_WINDOW` s."""
        now = self.clock.wall()
        recent = [t for t in self._failures.get(username, []) if now - t < LOGIN_WINDOW]
        if len(recent) >= MAX_FAILED_LOGINS:
            wait = LOGIN_WINDOW - (now - recent[0])
            raise WebError(
                429,
                f"{len(recent)} failed logins for {username!r} in the last "
                f"{LOGIN_WINDOW:g} s; try again in {wait:.0f} s",
            )
        rows = self.file.rows("SELECT pw_hash FROM users WHERE username = ?", (username,))
        if not rows or not verify_password(password, str(rows[0]["pw_hash"])):
            self._failures[username] = [*recent, now][-MAX_FAILED_LOGINS:]
            raise WebError(401, "wrong user name or password")
        self._failures.pop(username, None)
        token = new_token()
        with self.file.transaction(immediate=True):
            self.file.execute("DELETE FROM sessions WHERE expires < ?", (now,))
            self.file.execute(
                "INSERT INTO sessions VALUES (?, ?, ?)",
                (token_hash(token), username, now + self.session_seconds),
            )
        return token

    def logout(self, token: str) -> None:
        self.file.execute("DELETE FROM sessions WHERE token_hash = ?", (token_hash(token),))

    def session_user(self, token: str) -> str | None:
        """The user of a live session token, else None."""
        rows = self.file.rows(
            "SELECT username FROM sessions WHERE token_hash = ? AND expires >= ?",
            (token_hash(token), self.clock.wall()),
        )
        return str(rows[0]["username"]) if rows else None

    # -- tokens --------------------------------------------------------------------------
    def issue(self, subject: str, kind: TokenKind) -> str:
        """A new token for ``subject`` (a participant id, a service name)."""
        token = new_token()
        self.file.execute(
            "INSERT INTO tokens VALUES (?, ?, ?, ?, NULL)",
            (token_hash(token), subject, kind, self.clock.wall()),
        )
        return token

    def subject(self, token: str, kind: TokenKind) -> str | None:
        """Whose unrevoked ``kind`` token this is, else None."""
        rows = self.file.rows(
            "SELECT subject FROM tokens WHERE token_hash = ? AND kind = ? AND revoked IS NULL",
            (token_hash(token), kind),
        )
        return str(rows[0]["subject"]) if rows else None

    def revoke(self, subject: str, kind: TokenKind) -> int:
        """Revoke every token of ``subject``; returns how many."""
        cur = self.file.execute(
            "UPDATE tokens SET revoked = ? WHERE subject = ? AND kind = ? AND revoked IS NULL",
            (self.clock.wall(), subject, kind),
        )
        return int(cur.rowcount)

    # -- FastAPI dependencies ------------------------------------------------------------
    def user(self, request: Request) -> str:
        """The logged-in user (session cookie); 401 otherwise."""
        token = request.cookies.get(self.cookie)
        user = self.session_user(token) if token else None
        if user is None:
            raise WebError(401, "login required: POST /api/login with username and password")
        return user

    def service(self, request: Request) -> str:
        """The calling service (its bearer token); 401 otherwise."""
        token = bearer(request)
        name = self.subject(token, "service") if token else None
        if name is None:
            what = "an unknown or revoked token" if token else "no token"
            raise WebError(401, f"service token required (Authorization: Bearer ...); got {what}")
        return name

    def participant(self, request: Request) -> str:
        """The participant (cookie from their link, or bearer token); 401 otherwise."""
        token = request.cookies.get(PARTICIPANT_COOKIE) or bearer(request)
        pid = self.subject(token, "participant") if token else None
        if pid is None:
            raise WebError(401, "participant not recognised: open your personal study link again")
        return pid

    def set_cookie(self, response: Response, name: str, token: str, max_age: float) -> None:
        response.set_cookie(
            name,
            token,
            max_age=int(max_age),
            httponly=True,
            samesite="strict",
            secure=self.secure_cookies,
        )

    def router(self, prefix: str = "/api") -> APIRouter:
        """``POST {prefix}/login``, ``POST {prefix}/logout``, ``GET {prefix}/me``."""
        r = APIRouter(prefix=prefix, tags=["auth"])

        @r.post("/login")
        def login(body: Login, response: Response) -> Me:
            token = self.login(body.username, body.password)
            self.set_cookie(response, self.cookie, token, self.session_seconds)
            return Me(username=body.username, role=self.role(body.username))

        @r.post("/logout")
        def logout(request: Request, response: Response) -> Me:
            token = request.cookies.get(self.cookie)
            if token:
                self.logout(token)
            response.delete_cookie(self.cookie)
            return Me(username=None, role=None)

        @r.get("/me")
        def me(request: Request) -> Me:
            token = request.cookies.get(self.cookie)
            user = self.session_user(token) if token else None
            return Me(username=user, role=self.role(user) if user else None)

        return r
