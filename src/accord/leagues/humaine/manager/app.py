"""FastAPI app of the competition manager: JSON API, admin login and the manager pages.

Pages (static HTML + ES modules, relative URLs so the app can be mounted under a prefix):
``index.html`` (contestants and settings), ``schedule.html`` (pools and which agent uses
which utility in which round), ``leaderboard.html`` (public) and ``login.html``.

The manager also answers the human-UI routes of the orchestrator (``/receiveRoundTotals``
and friends), so it can be registered as one more human UI and record results itself.

Example:
    >>> from fastapi.testclient import TestClient
    >>> app = create_manager_app(":memory:", admin_password="letmein")
    >>> TestClient(app).get("/api/leaderboard").json()["roundsTotal"]
    0
"""

from __future__ import annotations

import logging
import secrets
import time
from pathlib import Path
from typing import Annotated, Any

from fastapi import Body, Depends, FastAPI, HTTPException, Request, Response
from fastapi.responses import JSONResponse
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, ConfigDict, Field

from accord.leagues.humaine.manager import auth
from accord.leagues.humaine.manager.competition import Competition
from accord.leagues.humaine.manager.schedule import ScheduleError
from accord.leagues.humaine.manager.services import (
    OrchestratorClient,
    ServiceError,
    UtilitySource,
    http_utility_source,
)
from accord.leagues.humaine.manager.store import ManagerStore, NotFound, StoreError
from accord.leagues.humaine.messages import UI_ROUTES

log = logging.getLogger(__name__)

STATIC = Path(__file__).resolve().parent.parent / "static"


def admin(request: Request) -> str:
    """The logged-in admin's name, from the session cookie; 401 otherwise."""
    store: ManagerStore = request.app.state.competition.store
    token = request.cookies.get(auth.SESSION_COOKIE)
    user = store.session_user(auth.token_hash(token)) if token else None
    if user is None:
        raise HTTPException(401, "admin login required: POST /api/login first")
    return user


Admin = Annotated[str, Depends(admin)]


class Login(BaseModel):
    model_config = ConfigDict(extra="forbid")
    username: str = Field(min_length=1, max_length=64)
    password: str = Field(min_length=1, max_length=256)


class AgentIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str
    host: str = "127.0.0.1"
    port: int
    protocol: str = "http"
    authenticated: bool = True
    """False: an agent written for the original platform, which cannot send a secret."""


class HumanIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str


class TotalsIn(BaseModel):
    roundId: str | None = None
    roundTotals: dict[str, Any]


def create_manager_app(
    db_path: str | Path,
    *,
    admin_user: str = "admin",
    admin_password: str | None = None,
    orchestrator_url: str | None = "http://127.0.0.1:14010",
    utility_url: str | None = None,
    utility_source: UtilitySource | None = None,
    ui_url: str | None = None,
    public_url: str | None = None,
    ui_link: str | None = None,
) -> FastAPI:
    """The manager app on the SQLite file ``db_path``.

    ``admin_password`` (re)sets the admin's password; when no admin exists and none is
    given, a random password is made and put in ``app.state.initial_password``.
    Utilities come from ``utility_source``, else the generator at ``utility_url``, else
    are drawn in-process from the competition's seed. ``ui_url`` is the human UI server;
    the schedule links to ``ui_link`` (the person's join link) or else to it.
    When ``public_url`` (this manager's own address) is given, each round names the UI
    server and the manager as its human UIs, so the manager hears the round totals;
    otherwise the orchestrator's default human UIs are used (they may forward totals).
    """
    store = ManagerStore(db_path)
    source = utility_source or (http_utility_source(utility_url) if utility_url else None)
    orchestrator = OrchestratorClient(orchestrator_url) if orchestrator_url else None
    human_uis: dict[str, str] = {}
    if public_url:
        if ui_url:
            human_uis["humanUI"] = ui_url
        human_uis["manager"] = public_url
    comp = Competition(store, source, orchestrator, human_uis)
    app = FastAPI(title="Accord HUMAINE competition manager")
    app.state.competition = comp
    app.state.initial_password = None
    if admin_password is not None:
        store.set_admin(admin_user, auth.hash_password(admin_password))
    elif not store.has_admin():
        app.state.initial_password = secrets.token_urlsafe(9)
        store.set_admin(admin_user, auth.hash_password(app.state.initial_password))

    @app.exception_handler(StoreError)
    async def _store_error(_: Request, e: StoreError) -> JSONResponse:
        return JSONResponse({"detail": str(e)}, status_code=404 if isinstance(e, NotFound) else 409)

    @app.exception_handler(ScheduleError)
    async def _schedule_error(_: Request, e: ScheduleError) -> JSONResponse:
        return JSONResponse({"detail": str(e)}, status_code=409)

    @app.exception_handler(ServiceError)
    async def _service_error(_: Request, e: ServiceError) -> JSONResponse:
        return JSONResponse({"detail": str(e)}, status_code=502)

    # -- login -----------------------------------------------------------------------------
    @app.post("/api/login")
    def login(body: Login, response: Response) -> dict[str, str]:
        stored = store.admin_hash(body.username)
        if stored is None or not auth.verify_password(body.password, stored):
            raise HTTPException(401, "wrong user name or password")
        token = auth.new_token()
        store.add_session(auth.token_hash(token), body.username, time.time() + auth.SESSION_SECONDS)
        response.set_cookie(
            auth.SESSION_COOKIE,
            token,
            max_age=auth.SESSION_SECONDS,
            httponly=True,
            samesite="strict",
        )
        return {"username": body.username}

    @app.post("/api/logout")
    def logout(request: Request, response: Response) -> dict[str, bool]:
        token = request.cookies.get(auth.SESSION_COOKIE)
        if token:
            store.drop_session(auth.token_hash(token))
        response.delete_cookie(auth.SESSION_COOKIE)
        return {"ok": True}

    @app.get("/api/me")
    def me(request: Request) -> dict[str, Any]:
        try:
            return {"admin": True, "username": admin(request)}
        except HTTPException:
            return {"admin": False, "username": None}

    # -- contestants and settings ------------------------------------------------------------
    @app.get("/api/contestants")
    def contestants(_: Admin) -> dict[str, Any]:
        return {"agents": [vars(a) for a in store.agents()], "humans": store.humans()}

    @app.post("/api/agents", status_code=201)
    def add_agent(body: AgentIn, _: Admin) -> dict[str, Any]:
        store.add_agent(body.name, body.host, body.port, body.protocol, body.authenticated)
        return vars(store.agent(body.name.strip()))

    @app.delete("/api/agents/{name}")
    def remove_agent(name: str, _: Admin) -> dict[str, bool]:
        store.remove("agent", name)
        return {"ok": True}

    @app.post("/api/humans", status_code=201)
    def add_human(body: HumanIn, _: Admin) -> dict[str, str]:
        store.add_human(body.name)
        return {"name": body.name.strip()}

    @app.delete("/api/humans/{name}")
    def remove_human(name: str, _: Admin) -> dict[str, bool]:
        store.remove("human", name)
        return {"ok": True}

    @app.get("/api/settings")
    def get_settings(_: Admin) -> dict[str, Any]:
        return comp.settings()

    @app.put("/api/settings")
    def put_settings(patch: Annotated[dict[str, Any], Body()], _: Admin) -> dict[str, Any]:
        return comp.update_settings(patch)

    # -- planning and rounds -----------------------------------------------------------------
    @app.post("/api/pools")
    def plan_pools(_: Admin) -> dict[str, Any]:
        plan = comp.plan_pools()
        return {"stage": plan.stage, "groups": plan.groups, "rounds": len(plan.rounds)}

    @app.post("/api/championship")
    def plan_championship(_: Admin) -> dict[str, Any]:
        plan = comp.plan_next_stage()
        return {
            "stage": plan.stage,
            "groups": plan.groups,
            "byes": list(plan.byes),
            "rounds": len(plan.rounds),
        }

    @app.post("/api/reset")
    def reset(_: Admin) -> dict[str, bool]:
        store.reset()
        return {"ok": True}

    @app.get("/api/schedule")
    def schedule(_: Admin) -> dict[str, Any]:
        comp.sync_running()
        return {
            "stages": store.stages(),
            "rounds": [r.to_json() for r in store.rounds()],
            "uiUrl": ui_url,
            "uiJoin": ui_link,
        }

    @app.get("/api/utilities/{uid}")
    def utility(uid: int, _: Admin) -> dict[str, Any]:
        return store.utility(uid)

    @app.post("/api/rounds/{number}/start")
    def start_round(number: int, _: Admin) -> dict[str, Any]:
        return comp.start_round(number).to_json()

    @app.post("/api/rounds/{number}/totals")
    def round_totals(number: int, body: TotalsIn, _: Admin) -> dict[str, Any]:
        return comp.record_totals(number, body.roundTotals).to_json()

    @app.get("/api/leaderboard")
    def leaderboard() -> dict[str, Any]:
        return comp.leaderboard()

    # -- the orchestrator's human-UI routes ------------------------------------------------
    @app.post("/receiveRoundTotals")
    def receive_totals(body: TotalsIn) -> dict[str, Any]:
        if not body.roundId:
            raise HTTPException(422, "roundTotals need the roundId of a round this manager started")
        row = store.round_by_id(body.roundId)
        comp.record_totals(row.number, body.roundTotals)
        log.info("round %s (%s) finished", row.number, body.roundId)
        return {"status": "acknowledged", "roundId": body.roundId}

    @app.post("/endRound", include_in_schema=False)
    def end_round(body: Annotated[dict[str, Any], Body()]) -> dict[str, Any]:
        """The orchestrator's /endRound; with ``failed`` the round broke: mark it failed
        (it can be started again)."""
        rid = body.get("roundId")
        if body.get("failed") and isinstance(rid, str) and orchestrator is not None:
            try:  # believe the orchestrator itself, not whoever posted this
                row = store.round_by_id(rid)
                state = orchestrator.round_state(rid)
            except (StoreError, ServiceError):
                state = {}
            if state.get("phase") == "failed":
                why = f"the orchestrator failed the round: {state.get('error')}"
                store.mark_failed(row.number, why)
                log.warning("round %s (%s) failed: %s", row.number, rid, why)
        return {"status": "acknowledged", "roundId": rid}

    def _ack(body: Annotated[dict[str, Any], Body()]) -> dict[str, Any]:
        return {"status": "acknowledged", "roundId": body.get("roundId")}

    for route in UI_ROUTES:
        if route in ("receiveRoundTotals", "endRound"):  # answered above
            continue
        app.add_api_route(f"/{route}", _ack, methods=["POST"], include_in_schema=False)

    app.mount("/common", StaticFiles(directory=STATIC / "common"), name="common")
    app.mount("/", StaticFiles(directory=STATIC / "manager", html=True), name="pages")
    return app
