"""Server runners: uvicorn in a thread on a bound loopback socket, as a context manager.

:class:`BackgroundServer` runs any ASGI app in a daemon thread (tests, embedding, a
study server beside a notebook); :func:`bound_socket` binds first so the URL is known
before the server starts (apps that must know each other's address); :func:`serve`
runs an app in the foreground.

    >>> from fastapi import FastAPI
    >>> with BackgroundServer(FastAPI()) as srv:
    ...     srv.url.startswith("http://127.0.0.1:")
    True
"""

from __future__ import annotations

import socket
import threading
import time
from typing import Any, Literal, Self

import uvicorn

from accord.core.errors import AccordError

__all__ = [
    "BackgroundServer",
    "ServerError",
    "ServerThread",
    "bound_socket",
    "free_port",
    "loopback_socket",
    "serve",
]


class ServerError(AccordError, RuntimeError):
    """A server could not start (port taken, app failed at start-up)."""


def bound_socket(host: str = "127.0.0.1", port: int = 0) -> socket.socket:
    """A TCP socket bound to ``host:port`` (port 0: a free one), for a server to listen on."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as e:
        sock.close()
        raise ServerError(f"cannot listen on {host}:{port}: {e}") from None
    return sock


def loopback_socket() -> socket.socket:
    """A TCP socket bound to a free 127.0.0.1 port."""
    return bound_socket("127.0.0.1", 0)


def free_port() -> int:
    """A 127.0.0.1 port nobody listens on (at the time of the call)."""
    with bound_socket() as sock:
        return int(sock.getsockname()[1])


class BackgroundServer:
    """Run an ASGI app with uvicorn in a daemon thread.

    It listens on ``host:port`` (port 0: a free one) or on an already bound ``sock``;
    ``with BackgroundServer(app) as srv:`` starts it and stops it. Open streams (live
    channels) are closed at most ``grace`` seconds after the stop.
    """

    def __init__(
        self,
        app: Any,
        host: str = "127.0.0.1",
        port: int = 0,
        lifespan: Literal["auto", "on", "off"] = "on",
        sock: socket.socket | None = None,
        grace: int = 1,
    ) -> None:
        self.app = app
        self.sock = sock if sock is not None else bound_socket(host, port)
        self.host, self.port = self.sock.getsockname()[:2]
        config = uvicorn.Config(
            app, log_level="warning", lifespan=lifespan, timeout_graceful_shutdown=grace
        )
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(
            target=self.server.run, kwargs={"sockets": [self.sock]}, daemon=True
        )

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def start(self, timeout: float = 10.0) -> Self:
        """Start and wait until the server accepts connections."""
        self.thread.start()
        deadline = time.monotonic() + timeout
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                self.sock.close()
                raise ServerError(f"server on {self.url} did not start within {timeout} s")
            time.sleep(0.01)
        return self

    def stop(self) -> None:
        """Ask the server to exit, wait for it, release the socket."""
        self.server.should_exit = True
        self.thread.join(timeout=10)
        self.sock.close()

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


class ServerThread(BackgroundServer):
    """A uvicorn server for ``app`` (lifespan on) on a free 127.0.0.1 port, or on the
    bound ``sock``, in a daemon thread; a context manager."""

    def __init__(self, app: Any, sock: socket.socket | None = None) -> None:
        super().__init__(app, lifespan="on", sock=sock)


def serve(app: Any, host: str = "127.0.0.1", port: int = 8000, log_level: str = "info") -> None:
    """Serve ``app`` in the foreground until interrupted (binds loopback by default)."""
    uvicorn.run(app, host=host, port=port, log_level=log_level)
