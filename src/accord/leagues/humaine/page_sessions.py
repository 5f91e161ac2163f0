"""Page sessions of the human UIs: who may act as the buyer, who may run rounds.

The UI server speaks for "Human" with the round's secret, so its own browser API must
know who is asking. Each role has a key: the *person* (the buyer: speak, confirm deals,
save the allocation) and the *admin* (start a round, end a phase). Opening
``/join?key=KEY`` sets an HttpOnly, SameSite=Strict cookie for the key's role and goes to
that role's page; every ``/api/...`` route then asks for the cookie. Keys are kept in the
UI server's SQLite file, so a restarted server honours the links it gave out.

Example:
    >>> keys = PageKeys(person="p" * 32, admin="a" * 32)
    >>> keys.role_of("p" * 32), keys.role_of("nope")
    ('person', None)
    >>> keys.allows({"accord_person": keys.cookie_value("person")}, "person")
    True
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import sqlite3
from dataclasses import dataclass

from accord.core.errors import ConfigError

__all__ = ["ADMIN", "COOKIES", "PERSON", "PageKeys", "load_keys"]

PERSON = "person"
ADMIN = "admin"
COOKIES = {PERSON: "accord_person", ADMIN: "accord_admin"}
"""Cookie name of each role."""
PAGES = {PERSON: "chat.html", ADMIN: "admin.html"}
"""Where ``/join`` sends each role."""

_TABLE = "CREATE TABLE IF NOT EXISTS page_keys (role TEXT PRIMARY KEY, key TEXT NOT NULL)"


@dataclass(frozen=True)
class PageKeys:
    """The secret key of each role (the links' ``?key=``)."""

    person: str
    admin: str

    def __post_init__(self) -> None:
        for role in (PERSON, ADMIN):
            key = getattr(self, role)
            if len(key) < 16:
                raise ConfigError(
                    f"the {role} key must have at least 16 characters, got {len(key)}"
                )
        if self.person == self.admin:
            raise ConfigError("the person key and the admin key must differ")

    def role_of(self, key: str) -> str | None:
        """The role a key opens, or None."""
        for role in (PERSON, ADMIN):
            if hmac.compare_digest(key.encode(), getattr(self, role).encode()):
                return role
        return None

    def cookie_value(self, role: str) -> str:
        """What the role's cookie holds: a digest of its key (not the key itself)."""
        key = getattr(self, role)
        return hashlib.sha256(f"{role}:{key}".encode()).hexdigest()

    def allows(self, cookies: dict[str, str], role: str) -> bool:
        """Whether the request's ``cookies`` hold a session of ``role``."""
        got = cookies.get(COOKIES[role], "")
        return hmac.compare_digest(got.encode(), self.cookie_value(role).encode())

    def link(self, role: str, base: str = "") -> str:
        """The join link of ``role`` (``base`` is the server's public URL)."""
        return f"{base.rstrip('/')}/join?key={getattr(self, role)}"


def load_keys(
    db: sqlite3.Connection, person: str | None = None, admin: str | None = None
) -> PageKeys:
    """The keys given, else those stored in ``db``, else fresh ones (then stored)."""
    db.execute(_TABLE)
    stored = dict(db.execute("SELECT role, key FROM page_keys").fetchall())
    chosen = {PERSON: person, ADMIN: admin}
    for role in (PERSON, ADMIN):
        key = chosen[role] or stored.get(role) or secrets.token_urlsafe(24)
        chosen[role] = key
        db.execute("INSERT OR REPLACE INTO page_keys VALUES (?, ?)", (role, key))
    return PageKeys(str(chosen[PERSON]), str(chosen[ADMIN]))
