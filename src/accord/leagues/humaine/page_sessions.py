"""Page sessions of the human UIs: who may act as the buyer, who may run rounds.

The UI server speaks for "Human" with the round's secret, so its own browser API must
know who is asking. Each role has a key: the *person* (the buyer: speak, confirm deals,
save the allocation) and the *admin* (start a round, end a phase). Opening
``/join?key=KEY`` sets an HttpOnly, SameSite=Strict cookie for the key's role and goes to
that role's page; every ``/api/...`` route then asks for the cookie. The UI server's
SQLite file keeps only salted digests of the cookie values, so a restarted server
honours the links it gave out; the keys themselves (to print the links again) are in a
0600 file next to it (``<db>.page-keys``).

Example:
    >>> keys = PageKeys(person="p" * 32, admin="a" * 32)
    >>> keys.role_of("p" * 32), keys.role_of("nope")
    ('person', None)
    >>> keys.allows({"accord_person": keys.cookie_value("person")}, "person")
    True
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field
from pathlib import Path

from accord.core.errors import ConfigError
from accord.leagues.humaine.credentials import digest, matches
from accord.leagues.humaine.private_files import read_private, write_private
from accord.web.auth import new_secret, token_hash

__all__ = ["ADMIN", "COOKIES", "PERSON", "PageKeys", "cookie_for", "load_keys"]

PERSON = "person"
ADMIN = "admin"
COOKIES = {PERSON: "accord_person", ADMIN: "accord_admin"}
"""Cookie name of each role."""
PAGES = {PERSON: "chat.html", ADMIN: "admin.html"}
"""Where ``/join`` sends each role."""

_TABLE = "CREATE TABLE IF NOT EXISTS page_keys (role TEXT PRIMARY KEY, key TEXT NOT NULL)"


def cookie_for(role: str, key: str) -> str:
    """What the role's cookie holds: a digest of its key (not the key itself)."""
    return token_hash(f"{role}:{key}")


@dataclass(frozen=True)
class PageKeys:
    """The secret key of each role (the links' ``?key=``), when known in this process,
    and what is stored of each: the salted digest of its cookie value. Checks use only
    the digests, so a server restarted from its SQLite file honours the old links."""

    person: str | None
    admin: str | None
    digests: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for role in (PERSON, ADMIN):
            key = getattr(self, role)
            if key is not None and len(key) < 16:
                raise ConfigError(
                    f"the {role} key must have at least 16 characters, got {len(key)}"
                )
            if key is not None and role not in self.digests:
                self.digests[role] = digest(cookie_for(role, key))
        if self.person is not None and self.person == self.admin:
            raise ConfigError("the person key and the admin key must differ")

    def role_of(self, key: str) -> str | None:
        """The role a key opens, or None."""
        for role in (PERSON, ADMIN):
            stored = self.digests.get(role)
            if stored is not None and matches(cookie_for(role, key), stored):
                return role
        return None

    def cookie_value(self, role: str) -> str:
        """The role's cookie value (its key must be known here)."""
        return cookie_for(role, self._key(role))

    def allows(self, cookies: dict[str, str], role: str) -> bool:
        """Whether the request's ``cookies`` hold a session of ``role``."""
        got = cookies.get(COOKIES[role], "")
        stored = self.digests.get(role)
        return bool(got) and stored is not None and matches(got, stored)

    def link(self, role: str, base: str = "") -> str:
        """The join link of ``role`` (``base`` is the server's public URL)."""
        return f"{base.rstrip('/')}/join?key={self._key(role)}"

    def _key(self, role: str) -> str:
        key = getattr(self, role)
        if key is None:
            raise ConfigError(
                f"the {role} key is kept only as a digest (its key file is gone): links "
                f"given out earlier still work; pass a new {role} key to make a new link"
            )
        return str(key)


def load_keys(
    db: sqlite3.Connection,
    person: str | None = None,
    admin: str | None = None,
    keys_file: Path | None = None,
) -> PageKeys:
    """The keys given, else those in ``keys_file`` (the operator's, mode 0600), else
    fresh ones; ``db`` keeps only their digests. A file written before digests (plain
    keys in ``page_keys``) is read and rewritten. Without a key file, a key not given
    is known only by its stored digest (old links work; no new link can be printed)."""
    db.execute(_TABLE)
    stored = dict(db.execute("SELECT role, key FROM page_keys").fetchall())
    known = read_private(keys_file)
    chosen = {PERSON: person, ADMIN: admin}
    digests: dict[str, str] = {}
    for role in (PERSON, ADMIN):
        old = stored.get(role)
        plain_old = old if old and not old.startswith("sha256$") else None
        key = chosen[role] or known.get(role) or plain_old
        if key is None and old is not None and plain_old is None:
            digests[role] = old  # only its digest is known: keep checking against it
        elif key is None:
            key = new_secret()
        chosen[role] = key
        if key is not None:
            kept = old if old and old.startswith("sha256$") else None
            same = kept is not None and matches(cookie_for(role, key), kept)
            digests[role] = kept if same and kept else digest(cookie_for(role, key))
        db.execute("INSERT OR REPLACE INTO page_keys VALUES (?, ?)", (role, digests[role]))
    keys = PageKeys(chosen[PERSON], chosen[ADMIN], digests)
    if keys_file is not None:
        write_private(keys_file, {r: k for r, k in chosen.items() if k})
    return keys
