"""Admin passwords (salted scrypt hashes) and session tokens of the competition manager.

Only hashes are stored: the password hash in ``admins``, the SHA-256 of each session token
in ``sessions``; the token itself lives only in the admin's cookie.

Example:
    >>> h = hash_password("s3cret")
    >>> verify_password("s3cret", h), verify_password("guess", h)
    (True, False)
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets

SESSION_COOKIE = "accord_manager_session"
SESSION_SECONDS = 12 * 3600
_N, _R, _P = 2**14, 8, 1
MIN_PASSWORD = 6


def _b64(raw: bytes) -> str:
    return base64.b64encode(raw).decode("ascii")


def hash_password(password: str) -> str:
    """``scrypt$n$r$p$salt$hash`` for ``password`` with a fresh random salt."""
    if len(password) < MIN_PASSWORD:
        raise ValueError(
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
            password.encode(),
            salt=base64.b64decode(salt),
            n=int(n),
            r=int(r),
            p=int(p),
            dklen=32,
        )
    except ValueError:
        return False
    return hmac.compare_digest(got, base64.b64decode(digest))


def new_token() -> str:
    """A fresh unguessable session token."""
    return secrets.token_urlsafe(32)


def token_hash(token: str) -> str:
    """What the store keeps of a session token."""
    return hashlib.sha256(token.encode()).hexdigest()
