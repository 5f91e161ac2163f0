"""Who may speak for whom: the per-round secrets of a HUMAINE round's speakers.

Every speaker of a round (each seller agent and "Human") has a secret, unless the
operator explicitly admitted it without one. Whoever starts the round (the competition
manager, ``accord humaine up``'s admin page, a test) may give the secrets in the round
body (``agents[i].token``, ``human.token``); the orchestrator makes a fresh one for any
speaker that has none, so no round is ever open by accident. Each agent learns its secret
in its ``/setUtility`` body (field ``token``), the human UIs learn the buyer's in theirs;
every ``/relayMessage`` must then carry it (``X-Accord-Token`` header or ``token`` field).

An agent written for the original platform cannot send a secret. It is admitted only
when the operator lists it as unauthenticated: in the round body
(``agents[i].authenticated: false``, ``human.authenticated: false``) or for every round
(``create_orchestrator_app(unauthenticated=["Celia"])``, ``--unauthenticated Celia``).
Its messages then carry ``authenticated: false`` to the UIs and in the decision log.

Only salted SHA-256 digests of the secrets are stored (:func:`digest`, in the round's
stored set-up as ``tokenHash``); a restarted orchestrator checks against those. The
secrets, digests and comparisons are the web layer's (:mod:`accord.web.auth`).

Example:
    >>> c = Credentials({"Celia": "s3cret"}, frozenset({"Watson"}))
    >>> c.check("Celia", "s3cret") is None, c.check("Watson", None) is None
    (True, True)
    >>> print(c.check("Celia", "guess"))
    Celia must present its secret token (X-Accord-Token header or 'token' field); the one given is wrong
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from accord.core.errors import ConfigError
from accord.web.auth import digest_matches, new_secret, salted_digest, same_secret

__all__ = [
    "HASH_FIELD",
    "TOKEN_FIELD",
    "TOKEN_HEADER",
    "Credentials",
    "digest",
    "matches",
    "new_secret",
]

TOKEN_HEADER = "X-Accord-Token"
"""HTTP header that carries a speaker's secret on ``/relayMessage``."""
TOKEN_FIELD = "token"
"""Body field that carries a secret (on ``/relayMessage`` and in ``/setUtility``)."""


HASH_FIELD = "tokenHash"
"""Field of a stored speaker that holds the digest of its secret (never the secret)."""


digest = salted_digest
"""What is stored of a secret: ``sha256$<salt>$<hex of sha256(salt + secret)>``.

>>> d = digest("s3cret", salt="00ff"); d[:12], matches("s3cret", d), matches("guess", d)
('sha256$00ff$', True, False)
"""
matches = digest_matches
"""Whether a secret is the one whose :func:`digest` is stored (constant time)."""


@dataclass(frozen=True)
class Credentials:
    """The secrets of one round: ``tokens`` by speaker, the speakers admitted without one
    (``open``, the operator's explicit choice), and ``digests`` of secrets known only by
    their :func:`digest` (a round restored from its stored set-up)."""

    tokens: Mapping[str, str] = field(default_factory=dict)
    open: frozenset[str] = frozenset()
    digests: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "tokens", MappingProxyType(dict(self.tokens)))
        object.__setattr__(self, "digests", MappingProxyType(dict(self.digests)))
        both = sorted((set(self.tokens) | set(self.digests)) & self.open)
        if both:
            raise ConfigError(f"speakers {both} have a secret and are listed as unauthenticated")

    @classmethod
    def make(
        cls, speakers: Collection[str], given: Mapping[str, str | None], open_: Collection[str]
    ) -> Credentials:
        """Secrets for ``speakers``: the ``given`` ones, a fresh one for each other
        speaker, none for those in ``open_`` (a given secret wins over the listing)."""
        tokens: dict[str, str] = {}
        admitted: set[str] = set()
        for name in speakers:
            token = given.get(name)
            if token:
                tokens[name] = token
            elif name in open_:
                admitted.add(name)
            else:
                tokens[name] = new_secret()
        return cls(tokens, frozenset(admitted))

    def authenticated(self, speaker: str) -> bool:
        """Whether ``speaker`` must prove who it is (False: admitted without a secret)."""
        return speaker not in self.open

    def token_for(self, speaker: str) -> str | None:
        return self.tokens.get(speaker)

    @staticmethod
    def _proves(given: str, expected: str | None, stored: str | None) -> bool:
        if expected is not None:
            return same_secret(given, expected)
        return stored is not None and matches(given, stored)

    def check(self, speaker: str, given: str | None) -> str | None:
        """None when ``given`` proves ``speaker``; otherwise why not."""
        if speaker in self.open:
            return None
        expected = self.tokens.get(speaker)
        stored = self.digests.get(speaker)
        if expected is None and stored is None:
            return f"{speaker} is not a speaker of this round"
        if not given:
            what = "none was given"
        elif self._proves(given, expected, stored):
            return None
        else:
            what = "the one given is wrong"
        return (
            f"{speaker} must present its secret token ({TOKEN_HEADER} header or "
            f"'{TOKEN_FIELD}' field); {what}"
        )
