"""Admin passwords (salted, slow hashes) and session tokens of the competition manager.

The users, hashing, sessions and failed-login limit are the web layer's
(:class:`accord.web.auth.Auth`, on the manager's SQLite file, with the manager's own
cookie name). Only hashes are stored: the password hash in ``users``, the SHA-256 of
each session token in ``sessions``; the token itself lives only in the admin's cookie.

Example:
    >>> h = hash_password("s3cret")
    >>> verify_password("s3cret", h), verify_password("guess", h)
    (True, False)
"""

from __future__ import annotations

from accord.web.auth import MIN_PASSWORD, hash_password, new_token, token_hash, verify_password

__all__ = [
    "MIN_PASSWORD",
    "SESSION_COOKIE",
    "SESSION_SECONDS",
    "hash_password",
    "new_token",
    "token_hash",
    "verify_password",
]

SESSION_COOKIE = "accord_manager_session"
SESSION_SECONDS = 12 * 3600
