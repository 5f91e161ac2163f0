"""The study server: HTTP onto :class:`~accord.leagues.genius.service.GeniusService`.

Routes (JSON unless said otherwise)::

    GET  /experimenter                 experimenter page (password in the URL fragment)
    POST /api/studies                  create a study (Bearer password)     -> id, links
    GET  /api/studies                  studies and progress (Bearer password)
    GET  /api/studies/{id}/csv         every action with timestamps, CSV (Bearer password)
    GET  /p/{token}                    participant page
    POST /api/p/{token}/claim          open the link in this browser (sets a key cookie)
    GET  /api/p/{token}/state          the participant's view
    POST /api/p/{token}/action         {"kind": "offer", "values": {...}} | accept | reject | ...
    POST /api/p/{token}/leave          leave the study

Errors are ``{"error": ...}`` with 400 (bad action or configuration), 401 (password), 404
(unknown link or study) or 409 (link already used). A background task polls the sessions
every ``poll_seconds`` (deadlines, agents' moves, participants gone silent).
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
from collections.abc import AsyncIterator
from importlib import resources
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import HTMLResponse, JSONResponse, PlainTextResponse, Response
from pydantic import BaseModel, Field

from accord.core.errors import AccordError, ConfigError
from accord.leagues.genius.protocol import Clock
from accord.leagues.genius.service import GeniusService, LinkError, StudyConfig

__all__ = [
    "StudyRequest",
    "create_app",
]

_COOKIE = "genius_key"


class StudyRequest(BaseModel):
    """The body of ``POST /api/studies``."""

    domain: str = "job_candidate"
    side: int = Field(0, ge=0, le=1)
    opponent: str = "kbagent"
    participants: int = Field(2, ge=1, le=1000)
    turns: int = Field(14, ge=1, le=100)
    turn_seconds: float = Field(120.0, gt=0)
    seed: int = 0


def _static(name: str) -> str:
    return (resources.files("accord.leagues.genius") / "static" / name).read_text(encoding="utf-8")


def _error(exc: Exception) -> JSONResponse:
    if isinstance(exc, LinkError):
        code = 409 if "already used" in str(exc) else 404 if "unknown" in str(exc) else 403
    elif isinstance(exc, ConfigError) and str(exc).startswith("no study"):
        code = 404
    else:
        code = 400
    return JSONResponse({"error": str(exc)}, status_code=code)


def create_app(
    store_path: str,
    password: str | None = None,
    clock: Clock | None = None,
    leave_after: float = 30.0,
    poll_seconds: float = 0.5,
) -> FastAPI:
    """The study server app; ``password`` protects the experimenter routes (random if None)."""
    import time

    service = GeniusService(store_path, clock or time.time, leave_after)
    secret = password or secrets.token_urlsafe(12)

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        async def loop() -> None:
            while True:
                await asyncio.sleep(poll_seconds)
                service.poll_all()

        task = asyncio.create_task(loop())
        try:
            yield
        finally:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
            service.close()

    app = FastAPI(title="Accord GENIUS study server", lifespan=lifespan)
    app.state.service = service
    app.state.password = secret

    def admin(request: Request) -> JSONResponse | None:
        got = request.headers.get("authorization", "")
        if not secrets.compare_digest(got, f"Bearer {secret}"):
            return JSONResponse(
                {"error": "experimenter routes need 'Authorization: Bearer <password>'"},
                status_code=401,
            )
        return None

    @app.get("/", response_class=HTMLResponse)
    @app.get("/experimenter", response_class=HTMLResponse)
    def experimenter_page() -> str:
        return _static("experimenter.html")

    @app.get("/static/{name}")
    def static(name: str) -> Response:
        allowed = {
            "genius.css": "text/css",
            "participant.js": "text/javascript",
            "experimenter.js": "text/javascript",
        }
        if name not in allowed:
            return JSONResponse({"error": f"no static file {name!r}"}, status_code=404)
        return Response(_static(name), media_type=allowed[name])

    @app.post("/api/studies")
    def create_study(body: StudyRequest, request: Request) -> Any:
        if (denied := admin(request)) is not None:
            return denied
        try:
            study = service.create_study(StudyConfig(**body.model_dump()))
        except AccordError as exc:
            return _error(exc)
        base = str(request.base_url).rstrip("/")
        study["links"] = [f"{base}/p/{t}" for t in study["tokens"]]
        return study

    @app.get("/api/studies")
    def list_studies(request: Request) -> Any:
        if (denied := admin(request)) is not None:
            return denied
        return service.studies()

    @app.get("/api/studies/{study}/csv")
    def study_csv(study: str, request: Request) -> Any:
        if (denied := admin(request)) is not None:
            return denied
        try:
            text = service.csv(study)
        except AccordError as exc:
            return _error(exc)
        return PlainTextResponse(
            text,
            media_type="text/csv",
            headers={"content-disposition": f'attachment; filename="{study}.csv"'},
        )

    @app.get("/p/{token}", response_class=HTMLResponse)
    def participant_page(token: str) -> str:
        return _static("participant.html")

    @app.post("/api/p/{token}/claim")
    def claim(token: str, request: Request) -> Any:
        try:
            key = service.claim(token, request.cookies.get(_COOKIE))
        except AccordError as exc:
            return _error(exc)
        resp = JSONResponse({"ok": True})
        resp.set_cookie(_COOKIE, key, httponly=True, samesite="strict", path=f"/api/p/{token}")
        return resp

    @app.get("/api/p/{token}/state")
    def state(token: str, request: Request) -> Any:
        try:
            return service.state(token, request.cookies.get(_COOKIE))
        except AccordError as exc:
            return _error(exc)

    @app.post("/api/p/{token}/action")
    async def action(token: str, request: Request) -> Any:
        try:
            data = await request.json()
        except ValueError:
            return JSONResponse(
                {"error": "the body must be JSON: an action object"}, status_code=400
            )
        try:
            event = service.act(token, request.cookies.get(_COOKIE), data)
        except AccordError as exc:
            return _error(exc)
        body = event.to_dict()
        return JSONResponse(body, status_code=200 if event.ok else 400)

    @app.post("/api/p/{token}/leave")
    def leave(token: str, request: Request) -> Any:
        try:
            service.leave(token, request.cookies.get(_COOKIE))
        except AccordError as exc:
            return _error(exc)
        return {"ok": True}

    return app
