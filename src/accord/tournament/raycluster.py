"""Connecting to a running Ray cluster: token authentication, loopback heads, a quick check.

Ray (2.52 and later) can require a token from every client (``RAY_AUTH_MODE=token`` on
the head; Ray 2.59+ turns it on by default when ``~/.ray/auth_token`` exists). A client
that names the head's address explicitly does not send a token unless told to, and a
client with a missing or wrong token retries for about 20 s before failing with a
traceback. :func:`prepare_ray` runs before ``ray.init`` and makes this quick and clear:

- a token given by :func:`use_token_file` (the CLI's ``--ray-token-file``), or by Ray's own
  ``RAY_AUTH_TOKEN`` / ``RAY_AUTH_TOKEN_PATH`` variables, switches the client to token mode;
- a head on a loopback address (``127.0.0.1:PORT``, e.g. ``ray start --head
  --node-ip-address=127.0.0.1``) is reached on loopback (Ray otherwise swaps
  ``127.0.0.1`` for the machine's network address);
- the head is asked for its cluster id first, with the token: nobody listening, a missing
  token or a wrong token is one :class:`~accord.core.errors.ConfigError` naming the
  address and the token's source, within a few seconds.

    >>> split_address("127.0.0.1:6379")
    ('127.0.0.1', 6379)
    >>> is_loopback("localhost"), is_loopback("10.0.0.5")
    (True, False)
    >>> token_source({"RAY_AUTH_TOKEN": "s3cret"})
    'the token in RAY_AUTH_TOKEN'
"""

from __future__ import annotations

import contextlib
import importlib
import ipaddress
import os
import socket
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from accord.core.errors import ConfigError

__all__ = [
    "LOOPBACK_ENV",
    "is_explicit",
    "is_loopback",
    "prepare_ray",
    "split_address",
    "token_source",
    "use_token_file",
]

# Ray's switch (read when ``ray`` is imported) that keeps a loopback node address as is.
LOOPBACK_ENV = "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"
_CONNECT_TIMEOUT = 3.0
_HINT = "on the head, `ray get-auth-token` prints the token it was started with"


def split_address(address: str) -> tuple[str, int]:
    """``HOST:PORT`` (or ``[IPv6]:PORT``) as ``(host, port)``; a clear error otherwise.

    >>> split_address("head")
    Traceback (most recent call last):
    ...
    accord.core.errors.ConfigError: --address must be HOST:PORT, the address `ray start --head` printed (e.g. 10.0.0.5:6379); got 'head'
    """
    host, sep, port = address.strip().rpartition(":")
    host = host.strip("[]")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ConfigError(
            "--address must be HOST:PORT, the address `ray start --head` printed "
            f"(e.g. 10.0.0.5:6379); got {address!r}"
        )
    return host, int(port)


def is_explicit(address: str | None) -> bool:
    """Whether ``address`` names a head (``HOST:PORT``), not ``auto``/``ray://``/none.

    >>> is_explicit("10.0.0.5:6379"), is_explicit("auto"), is_explicit("ray://h:10001")
    (True, False, False)
    """
    return bool(address) and address != "auto" and not str(address).startswith("ray://")


def is_loopback(host: str) -> bool:
    """Whether ``host`` is this machine's loopback (``localhost``, ``127.x``, ``::1``)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def token_source(env: Mapping[str, str] | None = None) -> str | None:
    """Where the client's token comes from, in Ray's order, or None if none is given."""
    env = os.environ if env is None else env
    if env.get("RAY_AUTH_TOKEN"):
        return "the token in RAY_AUTH_TOKEN"
    if env.get("RAY_AUTH_TOKEN_PATH"):
        return f"the token in {env['RAY_AUTH_TOKEN_PATH']}"
    default = Path(env.get("HOME") or Path.home()) / ".ray" / "auth_token"
    if env.get("RAY_AUTH_MODE", "").lower() == "token" and default.is_file():
        return f"the token in {default}"  # Ray's default, used when token mode is on
    return None


def use_token_file(path: str | Path) -> None:
    """Send the token in ``path`` to the cluster (sets Ray's ``RAY_AUTH_TOKEN_PATH``).

    The file must exist and hold the token (Ray aborts the process on an unreadable or
    empty token file, so it is checked here first)."""
    p = Path(path).expanduser()
    try:
        text = p.read_text(encoding="utf-8").strip()
    except OSError as exc:
        raise ConfigError(
            f"--ray-token-file must be a readable file holding the cluster's token; "
            f"{p}: {exc.strerror or exc}"
        ) from None
    if not text:
        raise ConfigError(f"--ray-token-file {p} is empty; expected the cluster's token ({_HINT})")
    os.environ.pop("RAY_AUTH_TOKEN", None)  # it would win over the file
    os.environ["RAY_AUTH_TOKEN_PATH"] = str(p.resolve())


def prepare_ray(address: str) -> None:
    """Set Ray up to reach the head at ``address``, then check it answers and accepts us.

    Call before ``ray.init(address=...)``, and before ``import ray`` when the head is on
    loopback. Raises :class:`ConfigError` for a malformed address, a head that does not
    answer, and a missing or refused token."""
    host, port = split_address(address)
    if is_loopback(host):
        _keep_loopback()
    source = token_source()
    if source is not None:
        os.environ.setdefault("RAY_AUTH_MODE", "token")
    try:
        with socket.create_connection((host, port), timeout=_CONNECT_TIMEOUT):
            pass
    except OSError as exc:
        raise ConfigError(
            f"no Ray head answers at {address} ({exc.strerror or exc}); start one with "
            f"`ray start --head --port {port}` or check --address"
        ) from None
    _check_head(address, source)


@contextlib.contextmanager
def _quiet_stderr() -> Iterator[None]:
    """Silence file descriptor 2 (where native code writes) for the duration."""
    sys.stderr.flush()
    saved = os.dup(2)
    try:
        with open(os.devnull, "wb") as null:
            os.dup2(null.fileno(), 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


def _keep_loopback() -> None:
    """Tell Ray not to swap a loopback node address for the machine's network address."""
    os.environ.setdefault(LOOPBACK_ENV, "0")
    constants: Any = sys.modules.get("ray._private.ray_constants")
    if constants is not None and os.environ[LOOPBACK_ENV] == "0":
        constants.ENABLE_RAY_CLUSTER = False  # read at import: Ray is already imported


def _check_head(address: str, source: str | None) -> None:
    """Ask the head for its cluster id, with our token (if any); fail fast and clearly."""
    raylet: Any = importlib.import_module("ray._raylet")
    errors: Any = importlib.import_module("ray.exceptions")
    if not hasattr(errors, "AuthenticationError"):  # Ray < 2.52: no tokens; ray.init reports
        return
    raylet.Config.initialize("")  # pick up RAY_AUTH_MODE set above, as Ray itself does
    raylet.AuthenticationTokenLoader.instance().reset_cache()
    try:
        with _quiet_stderr():  # Ray's C++ client logs each refusal on fd 2
            raylet.GcsClient(address=address).cluster_id  # noqa: B018 (the call is the check)
    except errors.AuthenticationError:
        if source is None:
            raise ConfigError(
                f"the Ray cluster at {address} requires a token (token authentication is "
                f"on): pass --ray-token-file FILE or set RAY_AUTH_TOKEN; {_HINT}"
            ) from None
        raise ConfigError(
            f"the Ray cluster at {address} refused {source}: it is not the head's token; {_HINT}"
        ) from None
    except Exception as exc:  # noqa: BLE001 (Ray's RpcError and friends)
        raise ConfigError(f"the Ray cluster at {address} did not answer: {exc}") from None
