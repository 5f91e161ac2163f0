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
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Annotated, Any

from fastapi import APIRouter, Body, Depends, FastAPI, Request, Response
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field

from accord.leagues.humaine.confirmation import ABSTAINED
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
from accord.web.app import create_app
from accord.web.auth import new_secret
from accord.web.errors import WebError

log = logging.getLogger(__name__)

STATIC = Path(__file__).resolve().parent.parent / "static"


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
    orchestrator_secret: str | None = None,
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
    ``orchestrator_secret`` is the orchestrator's operator secret, sent on every round
    it starts (``X-Accord-Admin``).
    """
    store = ManagerStore(db_path)
    source = utility_source or (http_utility_source(utility_url) if utility_url else None)
    orchestrator = (
        OrchestratorClient(orchestrator_url, admin_secret=orchestrator_secret)
        if orchestrator_url
        else None
    )
    human_uis: dict[str, str] = {}
    if public_url:
        if ui_url:
            human_uis["humanUI"] = ui_url
        human_uis["manager"] = public_url
    comp = Competition(store, source, orchestrator, human_uis)
    service = ManagerService(comp, ui_url, ui_link)
    app = create_app("Accord HUMAINE competition manager", service, static=PAGES)
    app.add_exception_handler(StoreError, _store_error)
    app.add_exception_handler(ScheduleError, _refused(409))
    app.add_exception_handler(ServiceError, _refused(502))
    app.state.competition = comp
    app.state.initial_password = None
    if admin_password is not None:
        store.set_admin(admin_user, auth.hash_password(admin_password))
    elif not store.has_admin():
        app.state.initial_password = new_secret(9)
        store.set_admin(admin_user, auth.hash_password(app.state.initial_password))
    return app


PAGES = {"/common": STATIC / "common", "/": STATIC / "manager"}
"""The manager's pages and the pages' shared modules."""


async def _store_error(_: Request, e: Exception) -> JSONResponse:
    return WebError(404 if isinstance(e, NotFound) else 409, str(e)).response()


def _refused(status: int) -> Callable[[Request, Exception], Awaitable[JSONResponse]]:
    async def handle(_: Request, e: Exception) -> JSONResponse:
        return WebError(status, str(e)).response()

    return handle


class ManagerService:
    """The manager's routes over a :class:`~.competition.Competition` (its state)."""

    def __init__(self, comp: Competition, ui_url: str | None, ui_link: str | None) -> None:
        self.comp = comp
        self.store = comp.store
        self.ui_url = ui_url
        self.ui_link = ui_link

    def close(self) -> None:
        self.store.close()

    def admin(self, request: Request) -> str:
        """The logged-in admin's name, from the session cookie; 401 otherwise."""
        token = request.cookies.get(auth.SESSION_COOKIE)
        user = self.store.auth.session_user(token) if token else None
        if user is None:
            raise WebError(401, "admin login required: POST /api/login first")
        return user

    def router(self) -> APIRouter:
        r = APIRouter()
        only_admin = [Depends(self.admin)]
        r.add_api_route("/api/login", self.login, methods=["POST"])
        r.add_api_route("/api/logout", self.logout, methods=["POST"])
        r.add_api_route("/api/me", self.me, methods=["GET"])
        for path, endpoint, method, status in (
            ("/api/contestants", self.contestants, "GET", 200),
            ("/api/agents", self.add_agent, "POST", 201),
            ("/api/agents/{name}", self.remove_agent, "DELETE", 200),
            ("/api/humans", self.add_human, "POST", 201),
            ("/api/humans/{name}", self.remove_human, "DELETE", 200),
            ("/api/settings", self.get_settings, "GET", 200),
            ("/api/settings", self.put_settings, "PUT", 200),
            ("/api/pools", self.plan_pools, "POST", 200),
            ("/api/championship", self.plan_championship, "POST", 200),
            ("/api/reset", self.reset, "POST", 200),
            ("/api/schedule", self.schedule, "GET", 200),
            ("/api/utilities/{uid}", self.utility, "GET", 200),
            ("/api/rounds/{number}/start", self.start_round, "POST", 200),
            ("/api/rounds/{number}/totals", self.round_totals, "POST", 200),
        ):
            r.add_api_route(
                path, endpoint, methods=[method], status_code=status, dependencies=only_admin
            )
        r.add_api_route("/api/leaderboard", self.leaderboard, methods=["GET"])
        # the orchestrator's human-UI routes
        r.add_api_route("/receiveRoundTotals", self.receive_totals, methods=["POST"])
        r.add_api_route("/endRound", self.end_round, methods=["POST"], include_in_schema=False)
        r.add_api_route("/confirmAccept", _abstain, methods=["POST"], include_in_schema=False)
        for route in UI_ROUTES:
            if route not in ("receiveRoundTotals", "endRound", "confirmAccept"):
                r.add_api_route(f"/{route}", _ack, methods=["POST"], include_in_schema=False)
        return r

    # -- login -----------------------------------------------------------------------------
    def login(self, body: Login, response: Response) -> dict[str, str]:
        """The web layer's login (slow salted hashes, failed logins limited, only the token's
        digest stored), with the manager's cookie."""
        users = self.store.auth
        token = users.login(body.username, body.password)
        users.set_cookie(response, users.cookie, token, users.session_seconds)
        return {"username": body.username}

    def logout(self, request: Request, response: Response) -> dict[str, bool]:
        token = request.cookies.get(auth.SESSION_COOKIE)
        if token:
            self.store.auth.logout(token)
        response.delete_cookie(auth.SESSION_COOKIE)
        return {"ok": True}

    def me(self, request: Request) -> dict[str, Any]:
        try:
            return {"admin": True, "username": self.admin(request)}
        except WebError:
            return {"admin": False, "username": None}

    # -- contestants and settings ----------------------------------------------------------
    def contestants(self) -> dict[str, Any]:
        return {"agents": [vars(a) for a in self.store.agents()], "humans": self.store.humans()}

    def add_agent(self, body: AgentIn) -> dict[str, Any]:
        self.store.add_agent(body.name, body.host, body.port, body.protocol, body.authenticated)
        return vars(self.store.agent(body.name.strip()))

    def remove_agent(self, name: str) -> dict[str, bool]:
        self.store.remove("agent", name)
        return {"ok": True}

    def add_human(self, body: HumanIn) -> dict[str, str]:
        self.store.add_human(body.name)
        return {"name": body.name.strip()}

    def remove_human(self, name: str) -> dict[str, bool]:
        self.store.remove("human", name)
        return {"ok": True}

    def get_settings(self) -> dict[str, Any]:
        return self.comp.settings()

    def put_settings(self, patch: Annotated[dict[str, Any], Body()]) -> dict[str, Any]:
        return self.comp.update_settings(patch)

    # -- planning and rounds ---------------------------------------------------------------
    def plan_pools(self) -> dict[str, Any]:
        plan = self.comp.plan_pools()
        return {"stage": plan.stage, "groups": plan.groups, "rounds": len(plan.rounds)}

    def plan_championship(self) -> dict[str, Any]:
        plan = self.comp.plan_next_stage()
        return {
            "stage": plan.stage,
            "groups": plan.groups,
            "byes": list(plan.byes),
            "rounds": len(plan.rounds),
        }

    def reset(self) -> dict[str, bool]:
        self.store.reset()
        return {"ok": True}

    def schedule(self) -> dict[str, Any]:
        self.comp.sync_running()
        return {
            "stages": self.store.stages(),
            "rounds": [r.to_json() for r in self.store.rounds()],
            "uiUrl": self.ui_url,
            "uiJoin": self.ui_link,
        }

    def utility(self, uid: int) -> dict[str, Any]:
        return self.store.utility(uid)

    def start_round(self, number: int) -> dict[str, Any]:
        return self.comp.start_round(number).to_json()

    def round_totals(self, number: int, body: TotalsIn) -> dict[str, Any]:
        return self.comp.record_totals(number, body.roundTotals).to_json()

    def leaderboard(self) -> dict[str, Any]:
        return self.comp.leaderboard()

    def receive_totals(self, body: TotalsIn) -> dict[str, Any]:
        if not body.roundId:
            raise WebError(422, "roundTotals need the roundId of a round this manager started")
        row = self.store.round_by_id(body.roundId)
        self.comp.record_totals(row.number, body.roundTotals)
        log.info("round %s (%s) finished", row.number, body.roundId)
        return {"status": "acknowledged", "roundId": body.roundId}

    def end_round(self, body: Annotated[dict[str, Any], Body()]) -> dict[str, Any]:
        """The orchestrator's /endRound; with ``failed`` the round broke: mark it failed
        (it can be started again)."""
        rid = body.get("roundId")
        orchestrator = self.comp.orchestrator
        if body.get("failed") and isinstance(rid, str) and orchestrator is not None:
            try:  # believe the orchestrator itself, not whoever posted this
                row = self.store.round_by_id(rid)
                state = orchestrator.round_state(rid)
            except (StoreError, ServiceError):
                state = {}
            if state.get("phase") == "failed":
                why = f"the orchestrator failed the round: {state.get('error')}"
                self.store.mark_failed(row.number, why)
                log.warning("round %s (%s) failed: %s", row.number, rid, why)
        return {"status": "acknowledged", "roundId": rid}


def _ack(body: Annotated[dict[str, Any], Body()]) -> dict[str, Any]:
    return {"status": "acknowledged", "roundId": body.get("roundId")}


def _abstain(body: Annotated[dict[str, Any], Body()]) -> dict[str, Any]:
    """The manager is no buyer: it neither confirms nor declines a deal."""
    return {"status": ABSTAINED, "roundId": body.get("roundId")}
