"""Who may run rounds: the orchestrator's operator secret (``X-Accord-Admin`` header).

The routes that create or change a round (``/initializeRound``, ``/startRound``,
``/endRound``) need the operator's secret in the ``X-Accord-Admin`` header. Whoever
builds the orchestrator makes the secret (``accord humaine up`` and ``accord humaine
orchestrator`` keep it in ``<data>/admin-secret``, mode 0600; the test kit reads it from
``app.state.admin_secret``) and gives it to what starts rounds: Accord's manager and the
human UIs' admin page send it on every admin call. A missing or wrong secret gets 403
(the web layer's one error body) and a logged decision.

The original HUMAINE manager cannot send the header; ``open_admin`` (``--open-admin``,
``open_admin: true``) is the explicit opt-out for it, and logs what it gives up.

Example:
    >>> gate = AdminGate("s" * 32)
    >>> gate.refusal("s" * 32) is None, gate.refusal("guess" * 4)[:25]
    (True, 'wrong X-Accord-Admin secr')
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

from accord.core.errors import ConfigError
from accord.web.auth import new_secret, same_secret, token_hash

__all__ = [
    "ADMIN_HEADER",
    "ADMIN_ROUTES",
    "OPEN_WARNING",
    "SECRET_FILE",
    "AdminGate",
    "admin_headers",
    "admin_secret_file",
]

log = logging.getLogger("accord.humaine.admin")

ADMIN_HEADER = "X-Accord-Admin"
"""HTTP header that carries the operator's secret on the admin routes."""
ADMIN_ROUTES = ("/initializeRound", "/startRound", "/endRound")
"""The orchestrator routes that create or change a round."""
SECRET_FILE = "admin-secret"
"""Name of the file (in the data folder, mode 0600) that keeps the secret."""
OPEN_WARNING = (
    "admin routes are OPEN (--open-admin): anyone who can reach the orchestrator may "
    "create, start and end rounds; use this only for the original HUMAINE manager, which "
    f"cannot send the {ADMIN_HEADER} header"
)


class AdminGate:
    """Checks the operator's secret on the admin routes (or lets every call through
    when ``open_admin``). Only a digest of the secret is kept."""

    def __init__(self, secret: str | None, open_admin: bool = False) -> None:
        if not open_admin and not secret:
            raise ConfigError(
                f"the orchestrator needs an admin secret for {', '.join(ADMIN_ROUTES)}; "
                "give one, or pass open_admin=True (--open-admin) for the original manager"
            )
        if secret is not None and len(secret) < 16:
            raise ConfigError(
                f"the admin secret must have at least 16 characters, got {len(secret)}"
            )
        self.open = open_admin
        self._digest = None if open_admin or secret is None else token_hash(secret)
        if open_admin:
            log.warning(OPEN_WARNING)

    def refusal(self, given: str | None) -> str | None:
        """None when ``given`` opens the admin routes; otherwise why not."""
        if self._digest is None:
            return None
        if not given:
            return f"no {ADMIN_HEADER} header: the admin routes need the operator's secret"
        if same_secret(token_hash(given), self._digest):
            return None
        return f"wrong {ADMIN_HEADER} secret: the admin routes need the operator's secret"

    def decide(self, route: str, given: str | None, client: str) -> str | None:
        """:meth:`refusal`, with the decision logged (refusals as warnings)."""
        why = self.refusal(given)
        if why is None:
            log.info("admin decision: %s from %s permitted", route, client)
        else:
            log.warning("admin decision: %s from %s refused (403): %s", route, client, why)
        return why


def admin_headers(secret: str | None) -> dict[str, str]:
    """The headers an admin call carries (none without a secret).

    >>> admin_headers("x" * 16)
    {'X-Accord-Admin': 'xxxxxxxxxxxxxxxx'}
    """
    return {ADMIN_HEADER: secret} if secret else {}


def admin_secret_file(folder: Path) -> tuple[str, Path, bool]:
    """The secret kept in ``folder/admin-secret`` (made, mode 0600, if absent): the
    secret, the file and whether it was just made.

    >>> import tempfile
    >>> secret, path, made = admin_secret_file(Path(tempfile.mkdtemp()))
    >>> made, oct(path.stat().st_mode & 0o777), admin_secret_file(path.parent)[0] == secret
    (True, '0o600', True)
    """
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / SECRET_FILE
    if path.is_file():
        secret = path.read_text(encoding="utf-8").strip()
        if len(secret) >= 16:
            os.chmod(path, 0o600)
            return secret, path, False
    secret = new_secret()
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(secret + "\n")
    os.chmod(path, 0o600)
    return secret, path, True
