"""The human's side of HUMAINE: the chat UI and the human assistant UI, and their server.

For the orchestrator this server *is* the human UI: it answers ``/sendRoundMetadata``,
``/setUtility``, ``/startRound``, ``/endRound``, ``/receiveMessage``, ``/receiveLog``,
``/receiveRejection``, ``/confirmAccept`` and ``/receiveRoundTotals`` (messages without a
``roundId`` belong to the latest round, as in generation 1). Everything it hears is an
event in SQLite; the state of a round is the fold of its events, so a restart loses
nothing. The browser pages poll ``GET api/state`` and post the human's utterances,
allocation checks and the final allocation, which this server forwards to the
orchestrator's ``/relayMessage`` and ``/receiveHumanAllocation``.

A ``/confirmAccept`` (an agent accepted; generation 2) is answered only when the person
clicks Confirm or Decline in the chat or the assistant UI (``POST api/decide``), or after
``confirm_timeout`` seconds, which *declines* the deal: nobody buys without saying yes.
The orchestrator then cancels a declined deal and refunds the budget. With
``auto_confirm=True`` (simulated buyers, tests) every deal is acknowledged at once.

Pages: ``chat.html`` (Fig. 3: transcript, countdown, deals to confirm, purchases,
results), ``assistant.html`` (Fig. 4: three countdowns, budget, "Can I make?", offers,
utility, allocation with Save), both the person's, and ``admin.html`` (start a round, end
a phase), the operator's. They take ``?round=<roundId>``; without it they follow the
latest. Each needs its page session (``/join?key=...``, see :mod:`.page_sessions`).

Example:
    >>> from fastapi.testclient import TestClient
    >>> app = create_ui_app(orchestrator_url="http://127.0.0.1:9")
    >>> c = TestClient(app)
    >>> c.post("/sendRoundMetadata", json={"roundId": "r1", "durations":
    ...     {"warmUp": 5, "round": 60, "post": 30}, "humanBudget": {"value": 50}}).json()
    {'status': 'acknowledged'}
    >>> c.get("/api/state").status_code  # the person's link first
    401
    >>> _ = c.get(app.state.page_keys.link("person"))
    >>> s = c.get("/api/state").json(); (s["roundId"], s["phase"], s["budget"])
    ('r1', 'warmup', 50.0)
"""

from __future__ import annotations

import asyncio
import re
import threading
import time
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Annotated, Any

import httpx
from fastapi import APIRouter, Body, Depends, FastAPI, Request
from fastapi.responses import RedirectResponse
from pydantic import BaseModel, ConfigDict, Field

from accord.core.errors import ConfigError
from accord.leagues.humaine.admin import ADMIN_ROUTES, admin_headers
from accord.leagues.humaine.credentials import TOKEN_HEADER, new_secret
from accord.leagues.humaine.flow import STREAM as FLOW_STREAM
from accord.leagues.humaine.flow import Flow, FlowService, require
from accord.leagues.humaine.manager.services import (
    ServiceError,
    UtilitySource,
    local_utility_source,
)
from accord.leagues.humaine.messages import UI_ROUTES
from accord.leagues.humaine.notices import plain_notice
from accord.leagues.humaine.optimizer import best_allocation
from accord.leagues.humaine.page_sessions import (
    ADMIN,
    COOKIES,
    PAGES,
    PERSON,
    cookie_for,
    load_keys,
)
from accord.leagues.humaine.say import Say
from accord.leagues.humaine.scoring import Allocation, InvalidAllocation, buyer_value
from accord.leagues.humaine.scoring import check_allocation as check_goods
from accord.leagues.humaine.ui_state import BOOKED, HeardLog, UiRound, call_problem
from accord.leagues.humaine.utility import BuyerUtility, InvalidUtility
from accord.web.app import create_app
from accord.web.errors import WebError

STATIC = Path(__file__).resolve().parent / "static"
DEFAULT_AGENTS = (
    {"name": "Celia", "protocol": "http", "host": "127.0.0.1", "port": 14007},
    {"name": "Watson", "protocol": "http", "host": "127.0.0.1", "port": 14008},
)
DEFAULT_CONFIRM_TIMEOUT = 60.0
"""Seconds the person has to confirm a deal before it is declined for them (shown on
the pages; give the orchestrator a longer ``confirm_timeout``)."""


class AllocationIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    roundId: str | None = None
    allocation: dict[str, Any]


class DecisionIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    roundId: str | None = None
    deal: int = Field(ge=0)
    confirm: bool


class StartIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    warmUp: float = Field(default=5, ge=0, le=3600)
    round: float = Field(default=300, ge=1, le=3600)
    post: float = Field(default=120, ge=0, le=3600)
    humanBudget: float = Field(default=50, gt=0, le=10_000)


def addressee_in(text: str, names: Sequence[str]) -> str:
    """The seller named first in ``text``, or ``""`` when none is named.

    >>> addressee_in("OK watson, I accept", ["Celia", "Watson"])
    'Watson'
    """
    found = [
        (m.start(), n) for n in names for m in [re.search(rf"\b{re.escape(n)}\b", text, re.I)] if m
    ]
    return min(found)[1] if found else ""


def create_ui_app(
    *,
    orchestrator_url: str = "http://127.0.0.1:14010",
    db_path: str | Path = ":memory:",
    agents: Sequence[dict[str, Any]] = DEFAULT_AGENTS,
    utility_source: UtilitySource | None = None,
    public_url: str | None = None,
    timeout: float = 10.0,
    confirm_timeout: float = DEFAULT_CONFIRM_TIMEOUT,
    auto_confirm: bool = False,
    person_key: str | None = None,
    admin_key: str | None = None,
    human_gap: float = 5.0,
    admin_secret: str | None = None,
    immersive: bool = False,
    spoken_auto_send: float | None = None,
    flow: Flow | None = None,
) -> FastAPI:
    """The chat UI + human assistant UI server.

    ``agents`` are the two sellers the chat UI's Start button puts in a round; their
    ``name`` is the avatar name. The dicts are read when a round starts, so a caller may
    fill in ports bound later (``accord humaine up`` does). ``public_url`` is this server's own address, given to the
    orchestrator as the round's human UI when the chat UI starts a round.
    ``confirm_timeout`` is how long a deal waits for the person's Confirm or Decline
    (then it is declined); ``auto_confirm`` acknowledges every deal at once instead.
    Give the orchestrator a longer ``confirm_timeout`` than this one.

    The browser API asks for a page session (see :mod:`.page_sessions`): the person's
    link ``/join?key=<person_key>`` opens the chat and assistant pages, the admin's
    ``/join?key=<admin_key>`` the admin page (start a round, end a phase). Keys not given
    are made once and kept in ``db_path``; ``app.state.page_keys`` holds them.
    ``human_gap`` is R0's gap, shown to the person before a message is refused.
    ``admin_secret`` is the orchestrator's operator secret, sent (``X-Accord-Admin``) when
    the admin page starts a round or ends a phase (see :mod:`.admin`).
    ``immersive`` adds the immersive page (``/immersive/``: avatars that speak and
    gesture, the person speaking; :mod:`.immersive`), where the person's link then leads.
    A spoken take is shown to the person and sent only when they send it (as heard or
    edited); ``spoken_auto_send`` (the operator's explicit choice, 0-1) sends takes of at
    least that confidence at once.
    ``flow`` (a crowd study): the person's link leads through consent and instructions
    to the rounds, and to a completion code at the end (see :mod:`.flow`).
    """
    if not confirm_timeout > 0:
        raise ConfigError(f"confirm_timeout must be > 0 seconds, got {confirm_timeout!r}")
    service = UiService(
        orchestrator_url=orchestrator_url,
        db_path=db_path,
        agents=agents,
        utility_source=utility_source,
        public_url=public_url,
        timeout=timeout,
        confirm_timeout=confirm_timeout,
        auto_confirm=auto_confirm,
        person_key=person_key,
        admin_key=admin_key,
        human_gap=human_gap,
        flow=flow,
    )
    service.admin_secret = admin_secret
    if immersive:
        from accord.leagues.humaine.immersive import MAX_LISTEN_BYTES, ImmersiveService

        extra = ImmersiveService(service, auto_send_at=spoken_auto_send)
        service.pages[PERSON] = "immersive/"
        app = create_app(
            "Accord HUMAINE human UIs (immersive)",
            service,
            extra,
            static=UI_PAGES | {"/immersive": STATIC / "immersive"},
            max_body_bytes=MAX_LISTEN_BYTES,
        )
        app.state.immersive = extra
    else:
        app = create_app("Accord HUMAINE human UIs", service, static=UI_PAGES)
    app.state.rounds = service.rounds
    app.state.page_keys = service.keys
    return app


UI_PAGES = {"/common": STATIC / "common", "/": STATIC / "ui"}
"""The chat, assistant and admin pages and their shared modules."""


class UiService:
    """The human UIs' server: what it heard of each round (folded from its event log),
    the deals waiting for the person, the page sessions, and the routes over them
    (see :func:`create_ui_app` for the arguments)."""

    def __init__(
        self,
        *,
        orchestrator_url: str,
        db_path: str | Path,
        agents: Sequence[dict[str, Any]],
        utility_source: UtilitySource | None,
        public_url: str | None,
        timeout: float,
        confirm_timeout: float,
        auto_confirm: bool,
        person_key: str | None,
        admin_key: str | None,
        human_gap: float,
        flow: Flow | None = None,
    ) -> None:
        self.orch = orchestrator_url.rstrip("/")
        self.admin_secret: str | None = None
        """The orchestrator's operator secret (``X-Accord-Admin``) for admin calls."""
        self.agents = agents
        self.names = [str(a["name"]) for a in agents]
        self.source = utility_source or local_utility_source()
        self.public_url = public_url
        self.timeout = timeout
        self.confirm_timeout = confirm_timeout
        self.auto_confirm = auto_confirm
        self.human_gap = human_gap
        on_disk = str(db_path) != ":memory:"  # secrets it must send: 0600 files beside it
        self.log = HeardLog(db_path, Path(f"{db_path}.round-secrets") if on_disk else None)
        keys_file = Path(f"{db_path}.page-keys") if on_disk else None
        self.keys = load_keys(self.log.db, person_key, admin_key, keys_file)
        self.pages = dict(PAGES)
        self.rounds: dict[str, UiRound] = {}
        self.lock = threading.Lock()
        self.waiting: dict[tuple[str, int], asyncio.Future[None]] = {}
        for rid, route, body, at in self.log.replay():
            if rid == FLOW_STREAM:
                continue  # the person's steps (consent...), not a round
            with self.lock:
                self.rounds.setdefault(rid, UiRound(rid, at)).apply(route, body, at)
        for r in self.rounds.values():
            r.settle_unanswered()
        self.flow = (
            None
            if flow is None
            else FlowService(
                flow,
                self.log.events,
                self._rounds_over,
                self.session(PERSON),
                lambda: self.pages[PERSON],
            )
        )

    def _rounds_over(self) -> int:
        now = time.time()
        with self.lock:
            return sum(1 for r in self.rounds.values() if r.phase(now)[0] in ("done", "failed"))

    def close(self) -> None:
        self.log.file.close()

    # -- page sessions -----------------------------------------------------------------------
    def session(self, *roles: str) -> Any:
        """A dependency: the request must hold a page session of one of ``roles``."""

        def check(request: Request) -> str:
            for role in roles:
                if self.keys.allows(request.cookies, role):
                    return role
            wanted = " or ".join(roles)
            raise WebError(
                401,
                f"this needs the {wanted}'s page session: open the {wanted}'s link "
                "(/join?key=...) given by whoever runs this server",
            )

        return Depends(check)

    @staticmethod
    def no_flow() -> dict[str, Any]:
        """``GET /api/participant`` on a server without a crowd flow: the chat page asks
        and is told there is none (an answer, not a 404 in the person's console)."""
        return {"flow": False}

    def router(self) -> APIRouter:
        r = APIRouter()
        person_only = [self.session(PERSON), require(self.flow)]
        anyone = [self.session(PERSON, ADMIN)]
        admin_only = [self.session(ADMIN)]
        r.add_api_route("/join", self.join, methods=["GET"], include_in_schema=False)
        r.add_api_route("/api/me", self.me, methods=["GET"])
        for route in UI_ROUTES:
            if route != "confirmAccept":
                r.add_api_route(f"/{route}", self._ui_call(route), methods=["POST"])
        r.add_api_route("/confirmAccept", self.confirm_accept, methods=["POST"])
        if self.flow is not None:
            r.include_router(self.flow.router())
        else:
            deps = [self.session(PERSON)]
            r.add_api_route("/api/participant", self.no_flow, methods=["GET"], dependencies=deps)
        for path, endpoint, method, deps in (
            ("/api/config", self.config, "GET", anyone),
            ("/api/rounds", self.list_rounds, "GET", anyone),
            ("/api/state", self.state, "GET", anyone),
            ("/api/say", self.say, "POST", person_only),
            ("/api/decide", self.decide_deal, "POST", person_only),
            ("/api/check", self.check, "POST", anyone),
            ("/api/suggest", self.suggest, "POST", anyone),
            ("/api/allocation", self.save_allocation, "POST", person_only),
            ("/api/admin/start", self.start, "POST", admin_only),
            ("/api/admin/end", self.end, "POST", admin_only),
        ):
            r.add_api_route(path, endpoint, methods=[method], dependencies=deps)
        return r

    def join(self, key: str = "") -> RedirectResponse:
        """Open a page session from a link's key (person: chat; admin: admin page)."""
        role = self.keys.role_of(key) if key else None
        if role is None:
            raise WebError(403, "this link's key is not valid here; ask for a new link")
        target = self.pages[role]
        if role == PERSON and self.flow is not None:
            target = self.flow.next_page(target)
        page = RedirectResponse(target, status_code=303)
        cookie = cookie_for(role, key)
        page.set_cookie(COOKIES[role], cookie, httponly=True, samesite="strict")
        return page

    def me(self, request: Request) -> dict[str, Any]:
        return {"roles": [r for r in (PERSON, ADMIN) if self.keys.allows(request.cookies, r)]}

    # -- what the orchestrator tells the UI ------------------------------------------------
    def record(self, round_id: str | None, route: str, body: dict[str, Any], at: float) -> str:
        with self.lock:
            rounds = self.rounds
            rid = round_id or (max(rounds.values(), key=lambda r: r.created).round_id
                               if rounds else "default")  # fmt: skip
            if rid not in rounds:
                rounds[rid] = UiRound(rid, at)
            rounds[rid].apply(route, body, at)
            self.log.append(rid, route, body, at)
            return rid

    def find(self, round_id: str | None) -> UiRound:
        with self.lock:
            if round_id:
                if round_id not in self.rounds:
                    known = list(self.rounds)
                    raise WebError(404, f"no round {round_id!r} here; known: {known}")
                return self.rounds[round_id]
            if not self.rounds:
                raise WebError(404, "no round yet: start one from the chat UI")
            return max(self.rounds.values(), key=lambda r: r.created)

    async def forward(self, route: str, body: dict[str, Any], secret: str | None = None) -> Any:
        url = f"{self.orch}{route}"
        headers = {TOKEN_HEADER: secret} if secret else {}
        if route in ADMIN_ROUTES:
            headers |= admin_headers(self.admin_secret)
        try:
            async with httpx.AsyncClient(timeout=self.timeout) as client:
                r = await client.post(url, json=body, headers=headers)
        except httpx.HTTPError as e:
            raise WebError(502, f"orchestrator unreachable at {url}: {e}") from e
        try:
            data = r.json()
        except ValueError:
            data = {"text": r.text}
        if r.status_code >= 400:
            detail = data.get("error", data) if isinstance(data, dict) else data
            raise WebError(r.status_code, f"orchestrator refused: {detail}")
        return data

    def _ui_call(self, route: str) -> Any:
        def handler(body: Annotated[dict[str, Any], Body()]) -> dict[str, str]:
            problem = call_problem(route, body)
            if problem is not None:
                raise WebError(422, f"/{route}: {problem}")
            self.record(body.get("roundId"), route, body, time.time())
            return {"status": "acknowledged"}

        handler.__name__ = route
        return handler

    def decide(self, rid: str, deal: dict[str, Any], status: str, by: str) -> None:
        """Settle a pending deal (no-op when already settled) and wake its waiters."""
        if deal["status"] == "pending":
            body = {"deal": deal["id"], "status": status, "by": by}
            self.record(rid, "decision", body, time.time())
        fut = self.waiting.pop((rid, deal["id"]), None)
        if fut is not None and not fut.done():
            fut.set_result(None)

    def answer(self, deal: dict[str, Any]) -> dict[str, Any]:
        if deal["status"] in BOOKED:
            return {"status": "acknowledged"}
        why = "the buyer declined" if deal["by"] == "person" else "the buyer did not confirm"
        if deal["by"] == "timeout":
            why += f" within {self.confirm_timeout:g} s"
        return {"status": "declined", "rationale": why}

    async def confirm_accept(self, body: Annotated[dict[str, Any], Body()]) -> dict[str, Any]:
        """Hold the answer until the person decides (or the timeout declines)."""
        problem = call_problem("confirmAccept", body)
        if problem is not None:
            raise WebError(422, f"/confirmAccept: {problem}")
        within = 0.0 if self.auto_confirm else self.confirm_timeout
        noted = body | {"uiConfirmWithin": within}
        rid = self.record(body.get("roundId"), "confirmAccept", noted, time.time())
        with self.lock:
            deal = self.rounds[rid].deal_for(body)
        if deal is None:
            return {"status": "acknowledged"}
        if self.auto_confirm:
            self.decide(rid, deal, "confirmed", "auto")
        if deal["status"] == "pending":
            loop = asyncio.get_running_loop()
            fut = self.waiting.setdefault((rid, deal["id"]), loop.create_future())
            left = max(0.0, deal["deadline"] - time.time())
            try:
                await asyncio.wait_for(asyncio.shield(fut), timeout=left)
            except TimeoutError:
                self.decide(rid, deal, "declined", "timeout")
        return self.answer(deal)

    # -- the browser's API -----------------------------------------------------------------
    def config(self) -> dict[str, Any]:
        return {
            "agents": self.names,
            "orchestrator": self.orch,
            "confirmWithin": 0.0 if self.auto_confirm else self.confirm_timeout,
            "humanGap": self.human_gap,
        }

    def list_rounds(self) -> list[dict[str, Any]]:
        now = time.time()
        with self.lock:
            rs = sorted(self.rounds.values(), key=lambda r: -r.created)
            return [{"roundId": r.round_id, "phase": r.phase(now)[0]} for r in rs]

    def state(self, round: str | None = None) -> dict[str, Any] | None:
        """The round's state; ``null`` while no round exists (the pages poll this, and a
        404 every second before the first round filled the browser console)."""
        if not round:
            with self.lock:
                if not self.rounds:
                    return None
        r = self.find(round)
        with self.lock:
            return r.snapshot(time.time())

    async def say(self, body: Say) -> dict[str, Any]:
        r = self.find(body.roundId)
        if r.phase(time.time())[0] != "active":
            raise WebError(409, "messages can be sent only while the round is active")
        names = self.names
        addressee = body.addressee if body.addressee is not None else addressee_in(body.text, names)
        if addressee not in ("", *names):
            raise WebError(422, f"addressee must be one of {['', *names]}; got {addressee!r}")
        if r.token is None and "Human" not in r.unauthenticated:
            raise WebError(
                409,
                f"no secret for the buyer of round {r.round_id!r} has arrived from the "
                "orchestrator: this UI cannot speak for the buyer in it",
            )
        msg = {
            "roundId": r.round_id,
            "speaker": "Human",
            "addressee": addressee,
            "text": body.text.strip(),
            "role": "buyer",
            "timestamp": int(time.time() * 1000),
        }
        reply = await self.forward("/relayMessage", msg, r.token)
        self.record(r.round_id, "said", msg, time.time())
        out = {"sent": msg, "reply": reply}
        if isinstance(reply, dict) and reply.get("permitted") is False:
            out["notice"] = plain_notice("Human", str(reply.get("rationale") or ""))
        return out

    def _parse(self, r: UiRound, allocation: dict[str, Any]) -> dict[str, Any]:
        try:
            alloc = Allocation.from_wire(allocation)
        except InvalidAllocation as e:
            raise WebError(422, f"allocation: {e}") from e
        check = check_goods(r.have(), alloc)
        out: dict[str, Any] = {
            "allocation": alloc.to_wire(),
            "sufficient": check.sufficient,
            "rationale": check.rationale,
            "deficits": check.deficits(),
            "value": None,
            "breakdown": None,
        }
        if r.utility is not None:
            try:
                score = buyer_value(BuyerUtility.from_wire(r.utility), alloc)
            except InvalidUtility as e:
                raise WebError(409, f"the round's buyer utility is unusable: {e}") from e
            out["value"], out["breakdown"] = round(score.value, 2), score.breakdown
        return out

    async def decide_deal(self, body: DecisionIn) -> dict[str, Any]:
        """The person's Confirm (``confirm: true``) or Decline of a pending deal."""
        r = self.find(body.roundId)
        with self.lock:
            deals = list(r.deals)
        if body.deal >= len(deals):
            known = f"ids 0-{len(deals) - 1}" if deals else "none yet"
            raise WebError(404, f"no deal {body.deal} in round {r.round_id!r} ({known})")
        deal = deals[body.deal]
        if deal["status"] != "pending":
            why = f"deal {body.deal} is already {deal['status']} (by {deal['by']})"
            raise WebError(409, f"{why}; only a pending deal can be decided")
        self.decide(r.round_id, deal, "confirmed" if body.confirm else "declined", "person")
        return {"deal": deal, "answer": self.answer(deal)}

    def check(self, body: AllocationIn) -> dict[str, Any]:
        return self._parse(self.find(body.roundId), body.allocation)

    def suggest(self, body: Annotated[dict[str, Any], Body()]) -> dict[str, Any]:
        r = self.find(body.get("roundId"))
        if r.utility is None:
            raise WebError(409, "no buyer utility received for this round yet")
        try:
            plan = best_allocation(BuyerUtility.from_wire(r.utility), r.have())
        except (InvalidUtility, ValueError) as e:  # InvalidBundle: too many goods
            raise WebError(422, f"cannot suggest an allocation: {e}") from e
        return {"allocation": plan.allocation.to_wire(), "value": round(plan.value, 2)}

    async def save_allocation(self, body: AllocationIn) -> dict[str, Any]:
        r = self.find(body.roundId)
        if r.phase(time.time())[0] != "post":
            raise WebError(409, "the allocation can be saved only in the post-round phase")
        checked = self._parse(r, body.allocation)
        if not checked["sufficient"]:
            raise WebError(
                409, f"not enough goods for this allocation; missing {checked['deficits']}"
            )
        payload = checked["allocation"]
        reply = await self.forward(
            "/receiveHumanAllocation", {"roundId": r.round_id, "payload": payload}, r.token
        )
        self.record(r.round_id, "allocation", {**payload, "value": checked["value"]}, time.time())
        return {"saved": payload, "value": checked["value"], "reply": reply}

    async def start(self, body: StartIn) -> dict[str, Any]:
        round_id = str(uuid.uuid4())
        # a source may block (HTTP to the generator, maybe served by this very event loop)
        try:
            sellers = [await asyncio.to_thread(self.source, "seller") for _ in self.agents]
            buyer = await asyncio.to_thread(self.source, "buyer")
        except ServiceError as e:
            raise WebError(502, str(e)) from e
        # this server starts the round, so it makes the round's secrets (the orchestrator
        # gives each agent its own in /setUtility and the buyer's back to this server)
        round_body: dict[str, Any] = {
            "roundId": round_id,
            "agents": [
                {**a, "utilityFunction": u}
                | ({"token": new_secret()} if a.get("authenticated", True) else {})
                for a, u in zip(self.agents, sellers, strict=True)
            ],
            "human": {"utilityFunction": buyer, "token": new_secret()},
            "durations": {"warmUp": body.warmUp, "round": body.round, "post": body.post},
            "humanBudget": {"currencyUnit": "USD", "value": body.humanBudget},
        }
        if self.public_url:
            round_body["humanUIs"] = [{"url": self.public_url, "name": "humanUI"}]
        await self.forward("/initializeRound", round_body)
        reply = await self.forward("/startRound", {"roundId": round_id})
        return {"roundId": round_id, "reply": reply}

    async def end(self, body: Annotated[dict[str, Any], Body()]) -> dict[str, Any]:
        """End the negotiation now (active phase) or the whole round (post phase)."""
        r = self.find(body.get("roundId"))
        reply: dict[str, Any] = await self.forward("/endRound", {"roundId": r.round_id})
        return reply
