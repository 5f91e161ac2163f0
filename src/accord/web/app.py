"""The app factory of every Accord web service.

:func:`create_app` builds a FastAPI app from *services*: small objects that own their
state and give an :class:`~fastapi.APIRouter` (``router()``); a service may also have
``open()`` and ``close()`` (plain or ``async``), run at start-up and shut-down. The app
answers every failure with the one error body (:mod:`accord.web.errors`), refuses
bodies over ``max_body_bytes`` with a 413, adds the safety baseline of
:mod:`accord.web.safety` (strict CSP and security headers, number and depth bounds,
idempotent actions), serves the pages' shared helpers at ``/accord`` (``safe.js``) and
static folders after the routes.

    >>> from fastapi import APIRouter
    >>> from fastapi.testclient import TestClient
    >>> class Hello:
    ...     def router(self) -> APIRouter:
    ...         r = APIRouter()
    ...         r.add_api_route("/hello", lambda: {"hello": "world"})
    ...         return r
    >>> client = TestClient(create_app("demo", Hello()))
    >>> client.get("/hello").json()
    {'hello': 'world'}
    >>> client.get("/nowhere").json()
    {'status': 'Failed', 'code': 'not_found', 'error': 'Not Found'}
"""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from fastapi import APIRouter, FastAPI
from fastapi.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from accord.tournament.sqlite import SqliteFile
from accord.web.errors import WebError, install_error_handlers
from accord.web.requests import DEFAULT_MAX_BODY, body_models
from accord.web.safety import CSP, FiledAnswers, Idempotency, RequestBounds, SecurityHeaders

COMMON = Path(__file__).resolve().parent / "static" / "common"
"""The pages' shared helpers (``safe.js``), served by every app at ``/accord``."""

__all__ = ["BodyLimit", "Service", "create_app"]


@runtime_checkable
class Service(Protocol):
    """Something served by an app: it owns its state and gives its routes."""

    def router(self) -> APIRouter: ...


async def _call(service: object, name: str) -> None:
    method = getattr(service, name, None)
    if method is None:
        return
    out = method()
    if inspect.isawaitable(out):
        await out


#: Bytes of a refused body read (and dropped) before the 413 is sent, and seconds to wait
#: for each part: a server that closes a socket with unread data in it resets the
#: connection, and the client then sees a reset instead of the 413 (often, under load).
DRAIN_BYTES = 4 * 1024 * 1024
DRAIN_WAIT = 5.0


async def _drain(receive: Receive, budget: int) -> None:
    """Read the rest of the request body, up to ``budget`` bytes, and drop it."""
    import asyncio

    read = 0
    while read < budget:
        try:
            message = await asyncio.wait_for(receive(), DRAIN_WAIT)
        except TimeoutError:
            return
        if message.get("type") != "http.request":
            return
        read += len(message.get("body", b""))
        if not message.get("more_body", False):
            return


class BodyLimit:
    """ASGI middleware refusing request bodies over ``limit`` bytes (413, the one body).

    The refused body is read and dropped first (up to :data:`DRAIN_BYTES`), so that the
    client reads the 413 rather than a connection reset.
    """

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope.get("headers") or []).get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > self.limit:
            await self._refuse(int(declared), scope, receive, send)
            return
        seen = 0

        async def counted() -> Message:
            nonlocal seen
            message = await receive()
            seen += len(message.get("body", b""))
            if seen > self.limit:
                if message.get("more_body", False):
                    await _drain(receive, DRAIN_BYTES)
                raise WebError(413, f"request body over the limit of {self.limit} bytes")
            return message

        await self.app(scope, counted, send)

    async def _refuse(self, size: int, scope: Scope, receive: Receive, send: Send) -> None:
        error = WebError(413, f"request body has {size} bytes; the limit is {self.limit} bytes")
        await _drain(receive, DRAIN_BYTES)
        await error.response()(scope, receive, send)


def create_app(
    title: str,
    *services: Service | APIRouter,
    description: str = "",
    version: str = "1",
    static: Mapping[str, str | Path] | None = None,
    max_body_bytes: int = DEFAULT_MAX_BODY,
    csp: str = CSP,
    answers: SqliteFile | None = None,
) -> FastAPI:
    """A FastAPI app serving ``services`` (or plain routers), with the one error body
    and the safety baseline of :mod:`accord.web.safety` (security headers with the
    Content-Security-Policy ``csp``, request bounds, idempotent actions).

    ``static`` maps mount paths to folders (``{"/": pages}``; HTML index files served),
    mounted after every route so a page folder at ``/`` does not hide the API.
    ``answers``: a SQLite file that keeps the answers of idempotent requests (a study's
    file), so a request retried after a restart gets its first answer again.
    """
    items: Sequence[Service | APIRouter] = services

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        opened: list[object] = []
        try:
            for s in items:
                await _call(s, "open")
                opened.append(s)
            yield
        finally:
            for done in reversed(opened):
                await _call(done, "close")

    app = FastAPI(title=title, description=description, version=version, lifespan=lifespan)
    install_error_handlers(app)
    app.add_middleware(Idempotency, filed=None if answers is None else FiledAnswers(answers))
    app.add_middleware(RequestBounds)
    app.add_middleware(BodyLimit, limit=max_body_bytes)
    app.add_middleware(SecurityHeaders, csp=csp)
    for item in items:
        app.include_router(item if isinstance(item, APIRouter) else item.router())
    mounts = {"/accord": COMMON, **(static or {})}
    for mount, folder in sorted(mounts.items(), key=lambda kv: -len(kv[0])):
        name = f"static:{mount}"
        app.mount(mount, StaticFiles(directory=str(folder), html=True), name=name)
    app.state.services = list(items)
    _document_bodies(app)
    return app


def _document_bodies(app: FastAPI) -> None:
    """OpenAPI of ``app`` with the request models of routes that read their own body
    (:func:`accord.web.requests.json_body`) in ``components``."""
    plain = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            app.openapi_schema = body_models(plain())
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]
