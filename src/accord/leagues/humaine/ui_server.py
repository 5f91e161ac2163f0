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
from fastapi import Body, Depends, FastAPI, HTTPException, Request
from fastapi.responses import RedirectResponse
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, ConfigDict, Field

from accord.leagues.humaine.credentials import TOKEN_HEADER, new_secret
from accord.leagues.humaine.manager.services import (
    ServiceError,
    UtilitySource,
    local_utility_source,
)
from accord.leagues.humaine.messages import UI_ROUTES
from accord.leagues.humaine.optimizer import best_allocation
from accord.leagues.humaine.page_sessions import ADMIN, COOKIES, PAGES, PERSON, load_keys
from accord.leagues.humaine.scoring import Allocation, InvalidAllocation, buyer_value
from accord.leagues.humaine.scoring import check_allocation as check_goods
from accord.leagues.humaine.ui_state import BOOKED, EventLog, UiRound
from accord.leagues.humaine.utility import BuyerUtility, InvalidUtility

STATIC = Path(__file__).resolve().parent / "static"
DEFAULT_AGENTS = (
    {"name": "Celia", "protocol": "http", "host": "127.0.0.1", "port": 14007},
    {"name": "Watson", "protocol": "http", "host": "127.0.0.1", "port": 14008},
)
MAX_SAY_CHARS = 1000
DEFAULT_CONFIRM_TIMEOUT = 60.0
"""Seconds the person has to confirm a deal before it is declined for them (shown on
the pages; give the orchestrator a longer ``confirm_timeout``)."""


class Say(BaseModel):
    model_config = ConfigDict(extra="forbid")
    roundId: str | None = None
    text: str = Field(min_length=1, max_length=MAX_SAY_CHARS)
    addressee: str | None = None


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
    """
    if not confirm_timeout > 0:
        raise ValueError(f"confirm_timeout must be > 0 seconds, got {confirm_timeout!r}")
    orch = orchestrator_url.rstrip("/")
    names = [str(a["name"]) for a in agents]
    source = utility_source or local_utility_source()
    log = EventLog(db_path)
    keys = load_keys(log.db, person_key, admin_key)
    rounds: dict[str, UiRound] = {}
    lock = threading.Lock()
    app = FastAPI(title="Accord HUMAINE human UIs")
    app.state.rounds = rounds
    app.state.page_keys = keys

    def session(*roles: str) -> Any:
        """A dependency: the request must hold a page session of one of ``roles``."""

        def check(request: Request) -> str:
            for role in roles:
                if keys.allows(request.cookies, role):
                    return role
            wanted = " or ".join(roles)
            raise HTTPException(
                401,
                f"this needs the {wanted}'s page session: open the {wanted}'s link "
                "(/join?key=...) given by whoever runs this server",
            )

        return Depends(check)

    person_only, anyone, admin_only = session(PERSON), session(PERSON, ADMIN), session(ADMIN)

    @app.get("/join", include_in_schema=False)
    def join(key: str = "") -> RedirectResponse:
        """Open a page session from a link's key (person: chat; admin: admin page)."""
        role = keys.role_of(key) if key else None
        if role is None:
            raise HTTPException(403, "this link's key is not valid here; ask for a new link")
        page = RedirectResponse(PAGES[role], status_code=303)
        page.set_cookie(COOKIES[role], keys.cookie_value(role), httponly=True, samesite="strict")
        return page

    @app.get("/api/me")
    def me(request: Request) -> dict[str, Any]:
        return {"roles": [r for r in (PERSON, ADMIN) if keys.allows(request.cookies, r)]}

    def record(round_id: str | None, route: str, body: dict[str, Any], at: float) -> str:
        with lock:
            rid = round_id or (max(rounds.values(), key=lambda r: r.created).round_id
                               if rounds else "default")  # fmt: skip
            if rid not in rounds:
                rounds[rid] = UiRound(rid, at)
            rounds[rid].apply(route, body, at)
            log.append(rid, route, body, at)
            return rid

    for rid, route, body, at in log.replay():
        with lock:
            rounds.setdefault(rid, UiRound(rid, at)).apply(route, body, at)
    for r in rounds.values():
        r.settle_unanswered()
    waiting: dict[tuple[str, int], asyncio.Future[None]] = {}

    def find(round_id: str | None) -> UiRound:
        with lock:
            if round_id:
                if round_id not in rounds:
                    raise HTTPException(404, f"no round {round_id!r} here; known: {list(rounds)}")
                return rounds[round_id]
            if not rounds:
                raise HTTPException(404, "no round yet: start one from the chat UI")
            return max(rounds.values(), key=lambda r: r.created)

    async def forward(route: str, body: dict[str, Any], secret: str | None = None) -> Any:
        url = f"{orch}{route}"
        headers = {TOKEN_HEADER: secret} if secret else {}
        try:
            async with httpx.AsyncClient(timeout=timeout) as client:
                r = await client.post(url, json=body, headers=headers)
        except httpx.HTTPError as e:
            raise HTTPException(502, f"orchestrator unreachable at {url}: {e}") from e
        try:
            data = r.json()
        except ValueError:
            data = {"text": r.text}
        if r.status_code >= 400:
            detail = data.get("detail", data) if isinstance(data, dict) else data
            raise HTTPException(r.status_code, f"orchestrator refused: {detail}")
        return data

    def make_route(route: str) -> Any:
        def handler(body: Annotated[dict[str, Any], Body()]) -> dict[str, str]:
            record(body.get("roundId"), route, body, time.time())
            return {"status": "acknowledged"}

        handler.__name__ = route
        return handler

    for route in UI_ROUTES:
        if route != "confirmAccept":
            app.add_api_route(f"/{route}", make_route(route), methods=["POST"])

    def decide(rid: str, deal: dict[str, Any], status: str, by: str) -> None:
        """Settle a pending deal (no-op when already settled) and wake its waiters."""
        if deal["status"] == "pending":
            record(rid, "decision", {"deal": deal["id"], "status": status, "by": by}, time.time())
        fut = waiting.pop((rid, deal["id"]), None)
        if fut is not None and not fut.done():
            fut.set_result(None)

    def answer(deal: dict[str, Any]) -> dict[str, Any]:
        if deal["status"] in BOOKED:
            return {"status": "acknowledged"}
        why = "the buyer declined" if deal["by"] == "person" else "the buyer did not confirm"
        if deal["by"] == "timeout":
            why += f" within {confirm_timeout:g} s"
        return {"status": "declined", "rationale": why}

    @app.post("/confirmAccept")
    async def confirm_accept(body: Annotated[dict[str, Any], Body()]) -> dict[str, Any]:
        """Hold the answer until the person decides (or the timeout declines)."""
        within = 0.0 if auto_confirm else confirm_timeout
        noted = body | {"uiConfirmWithin": within}
        rid = record(body.get("roundId"), "confirmAccept", noted, time.time())
        with lock:
            deal = rounds[rid].deal_for(body)
        if deal is None:
            return {"status": "acknowledged"}
        if auto_confirm:
            decide(rid, deal, "confirmed", "auto")
        if deal["status"] == "pending":
            fut = waiting.setdefault((rid, deal["id"]), asyncio.get_running_loop().create_future())
            left = max(0.0, deal["deadline"] - time.time())
            try:
                await asyncio.wait_for(asyncio.shield(fut), timeout=left)
            except TimeoutError:
                decide(rid, deal, "declined", "timeout")
        return answer(deal)

    # -- the browser's API -----------------------------------------------------------------
    @app.get("/api/config", dependencies=[anyone])
    def config() -> dict[str, Any]:
        return {
            "agents": names,
            "orchestrator": orch,
            "confirmWithin": 0.0 if auto_confirm else confirm_timeout,
            "humanGap": human_gap,
        }

    @app.get("/api/rounds", dependencies=[anyone])
    def list_rounds() -> list[dict[str, Any]]:
        now = time.time()
        with lock:
            rs = sorted(rounds.values(), key=lambda r: -r.created)
            return [{"roundId": r.round_id, "phase": r.phase(now)[0]} for r in rs]

    @app.get("/api/state", dependencies=[anyone])
    def state(round: str | None = None) -> dict[str, Any] | None:
        """The round's state; ``null`` while no round exists (the pages poll this, and a
        404 every second before the first round filled the browser console)."""
        if not round:
            with lock:
                if not rounds:
                    return None
        r = find(round)
        with lock:
            return r.snapshot(time.time())

    @app.post("/api/say", dependencies=[person_only])
    async def say(body: Say) -> dict[str, Any]:
        r = find(body.roundId)
        if r.phase(time.time())[0] != "active":
            raise HTTPException(409, "messages can be sent only while the round is active")
        addressee = body.addressee if body.addressee is not None else addressee_in(body.text, names)
        if addressee not in ("", *names):
            raise HTTPException(422, f"addressee must be one of {['', *names]}; got {addressee!r}")
        if r.token is None and "Human" not in r.unauthenticated:
            raise HTTPException(
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
        reply = await forward("/relayMessage", msg, r.token)
        record(r.round_id, "said", msg, time.time())
        return {"sent": msg, "reply": reply}

    def _parse(r: UiRound, allocation: dict[str, Any]) -> dict[str, Any]:
        try:
            alloc = Allocation.from_wire(allocation)
        except InvalidAllocation as e:
            raise HTTPException(422, f"allocation: {e}") from e
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
                raise HTTPException(409, f"the round's buyer utility is unusable: {e}") from e
            out["value"], out["breakdown"] = round(score.value, 2), score.breakdown
        return out

    @app.post("/api/decide", dependencies=[person_only])
    async def decide_deal(body: DecisionIn) -> dict[str, Any]:
        """The person's Confirm (``confirm: true``) or Decline of a pending deal."""
        r = find(body.roundId)
        with lock:
            deals = list(r.deals)
        if body.deal >= len(deals):
            known = f"ids 0-{len(deals) - 1}" if deals else "none yet"
            raise HTTPException(404, f"no deal {body.deal} in round {r.round_id!r} ({known})")
        deal = deals[body.deal]
        if deal["status"] != "pending":
            why = f"deal {body.deal} is already {deal['status']} (by {deal['by']})"
            raise HTTPException(409, f"{why}; only a pending deal can be decided")
        decide(r.round_id, deal, "confirmed" if body.confirm else "declined", "person")
        return {"deal": deal, "answer": answer(deal)}

    @app.post("/api/check", dependencies=[anyone])
    def check(body: AllocationIn) -> dict[str, Any]:
        r = find(body.roundId)
        return _parse(r, body.allocation)

    @app.post("/api/suggest", dependencies=[anyone])
    def suggest(body: Annotated[dict[str, Any], Body()]) -> dict[str, Any]:
        r = find(body.get("roundId"))
        if r.utility is None:
            raise HTTPException(409, "no buyer utility received for this round yet")
        try:
            plan = best_allocation(BuyerUtility.from_wire(r.utility), r.have())
        except (InvalidUtility, ValueError) as e:  # InvalidBundle: too many goods
            raise HTTPException(422, f"cannot suggest an allocation: {e}") from e
        return {"allocation": plan.allocation.to_wire(), "value": round(plan.value, 2)}

    @app.post("/api/allocation", dependencies=[person_only])
    async def save_allocation(body: AllocationIn) -> dict[str, Any]:
        r = find(body.roundId)
        if r.phase(time.time())[0] != "post":
            raise HTTPException(409, "the allocation can be saved only in the post-round phase")
        checked = _parse(r, body.allocation)
        if not checked["sufficient"]:
            raise HTTPException(
                409, f"not enough goods for this allocation; missing {checked['deficits']}"
            )
        payload = checked["allocation"]
        reply = await forward(
            "/receiveHumanAllocation", {"roundId": r.round_id, "payload": payload}, r.token
        )
        record(r.round_id, "allocation", {**payload, "value": checked["value"]}, time.time())
        return {"saved": payload, "value": checked["value"], "reply": reply}

    @app.post("/api/admin/start", dependencies=[admin_only])
    async def start(body: StartIn) -> dict[str, Any]:
        round_id = str(uuid.uuid4())
        # a source may block (HTTP to the generator, maybe served by this very event loop)
        try:
            sellers = [await asyncio.to_thread(source, "seller") for _ in agents]
            buyer = await asyncio.to_thread(source, "buyer")
        except ServiceError as e:
            raise HTTPException(502, str(e)) from e
        # this server starts the round, so it makes the round's secrets (the orchestrator
        # gives each agent its own in /setUtility and the buyer's back to this server)
        round_body: dict[str, Any] = {
            "roundId": round_id,
            "agents": [
                {**a, "utilityFunction": u}
                | ({"token": new_secret()} if a.get("authenticated", True) else {})
                for a, u in zip(agents, sellers, strict=True)
            ],
            "human": {"utilityFunction": buyer, "token": new_secret()},
            "durations": {"warmUp": body.warmUp, "round": body.round, "post": body.post},
            "humanBudget": {"currencyUnit": "USD", "value": body.humanBudget},
        }
        if public_url:
            round_body["humanUIs"] = [{"url": public_url, "name": "humanUI"}]
        await forward("/initializeRound", round_body)
        reply = await forward("/startRound", {"roundId": round_id})
        return {"roundId": round_id, "reply": reply}

    @app.post("/api/admin/end", dependencies=[admin_only])
    async def end(body: Annotated[dict[str, Any], Body()]) -> dict[str, Any]:
        """End the negotiation now (active phase) or the whole round (post phase)."""
        r = find(body.get("roundId"))
        reply: dict[str, Any] = await forward("/endRound", {"roundId": r.round_id})
        return reply

    app.mount("/common", StaticFiles(directory=STATIC / "common"), name="common")
    app.mount("/", StaticFiles(directory=STATIC / "ui", html=True), name="pages")
    return app
