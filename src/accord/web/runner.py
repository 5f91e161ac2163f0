"""Server runners: uvicorn in a thread on a bound loopback socket, as a context manager.

:class:`BackgroundServer` runs any ASGI app in a daemon thread (tests, embedding, a
study server beside a notebook); :func:`bound_socket` binds first so the URL is known
before the server starts (apps that must know each other's address, a command that
refuses a taken port before it prints anything); :func:`serve` runs an app in the
foreground (on a socket bound first, or on ``host:port``) and :func:`serve_together`
runs several apps in one event loop (``accord humaine up``). Every league server starts
through these: no league module calls uvicorn itself.

    >>> from fastapi import FastAPI
    >>> with BackgroundServer(FastAPI()) as srv:
    ...     srv.url.startswith("http://127.0.0.1:")
    True
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import socket
import threading
import time
from collections.abc import Callable, Iterator, Sequence
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
    "serve_together",
]


class ServerError(AccordError, RuntimeError):
    """A server could not start (port taken, app failed at start-up)."""


def bound_socket(
    host: str = "127.0.0.1", port: int = 0, *, listen: int | None = None
) -> socket.socket:
    """A TCP socket bound to ``host:port`` (port 0: a free one), for a server to listen on;
    with ``listen`` (a backlog) it listens at once, so early connections wait in the queue
    instead of being refused. A taken port (or one outside 0-65535) is a
    :class:`ServerError` saying so."""
    if not 0 <= port <= 65535:
        raise ServerError(f"cannot listen on {host}:{port}: a port is a number from 0 to 65535")
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
        if listen is not None:
            sock.listen(listen)
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


def serve(
    app: Any,
    host: str = "127.0.0.1",
    port: int = 8000,
    log_level: str = "info",
    *,
    sock: socket.socket | None = None,
) -> None:
    """Serve ``app`` in the foreground until interrupted (binds loopback by default).

    Give ``sock`` (from :func:`bound_socket`) to listen on a socket bound earlier: a
    command binds first, so a taken port is one clear :class:`ServerError` before it
    prints links or makes files. Without it, ``host:port`` is bound here (same error).
    """
    if sock is None:
        sock = bound_socket(host, port)
    config = uvicorn.Config(app, log_level=log_level, lifespan="on")
    try:
        uvicorn.Server(config).run(sockets=[sock])
    finally:
        sock.close()


class _SharedLoopServer(uvicorn.Server):
    """A uvicorn server that leaves signal handling to :func:`serve_together`."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


async def serve_together(
    apps: Sequence[tuple[Any, socket.socket]],
    exit_after: float | None = None,
    should_stop: Callable[[], bool] | None = None,
    log_level: str = "warning",
) -> None:
    """Run every ``(app, bound socket)`` in this event loop until Ctrl-C (SIGINT or
    SIGTERM), ``exit_after`` seconds, or ``should_stop()`` turns true (polled every
    50 ms)."""
    servers = [
        _SharedLoopServer(uvicorn.Config(app, log_level=log_level, lifespan="on", access_log=False))
        for app, _ in apps
    ]
    loop = asyncio.get_running_loop()

    def stop() -> None:
        for srv in servers:
            srv.should_exit = True

    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            loop.add_signal_handler(sig, stop)
    if exit_after is not None:
        loop.call_later(exit_after, stop)
    if should_stop is not None:

        def poll() -> None:
            if should_stop():
                stop()
            else:
                loop.call_later(0.05, poll)

        poll()
    await asyncio.gather(
        *(srv.serve(sockets=[sock]) for srv, (_, sock) in zip(servers, apps, strict=True))
    )
