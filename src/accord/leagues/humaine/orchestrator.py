"""The HUMAINE environment orchestrator as a FastAPI app (default port 14010).

Routes of the original platform, both generations:

- ``POST /relayMessage``: a message from the human's UI or an agent; judged by R0-R4 at
  receipt (server monotonic clock) and routed: permitted messages to the human UIs (with
  the bid) and to every agent (without it); blocked ones back to the sender's
  ``/receiveRejection``; every decision to the human UIs' ``/receiveLog``.
- ``POST /startRound`` with the whole round body (generation 1), or
  ``POST /initializeRound`` then ``POST /startRound {roundId}`` (generation 2).
- ``POST /endRound``: the administrator ends the negotiation now.
- ``POST /receiveHumanAllocation``: the buyer's allocation during the post phase.
- ``GET /rounds``, ``GET /rounds/{roundId}``, ``GET /viewQueue``, ``GET /viewTotals``
  (``?roundId=`` or, as the original, ``/viewQueue/{roundId}``, ``/viewTotals/{roundId}``).

Every speaker proves who it is with its per-round secret (``X-Accord-Token`` header or
``token`` field) unless the operator listed it as unauthenticated: see
:mod:`.credentials`. A forged or unknown speaker gets 403 and a logged decision.

Example::

    app = create_orchestrator_app(db_path="humaine.db", human_uis=["http://127.0.0.1:7040"])
    uvicorn.run(app, host="127.0.0.1", port=14010)
"""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from fastapi import APIRouter, FastAPI, Request
from fastapi.responses import JSONResponse
from fastapi.staticfiles import StaticFiles
from pydantic import ValidationError

from .credentials import TOKEN_FIELD, TOKEN_HEADER
from .messages import (
    AllocationRequest,
    EndRoundRequest,
    InitializeRound,
    PartySpec,
    StartRoundRequest,
    explain,
)
from .round import Phase
from .rules import RuleConfig
from .runtime import HumaineError, Orchestrator
from .store import RoundStore

__all__ = ["DEFAULT_PORT", "MAX_BODY_BYTES", "create_orchestrator_app"]

DEFAULT_PORT = 14010
MAX_BODY_BYTES = 256 * 1024


async def read_json(request: Request) -> Any:
    """The JSON body, or a clear 400/413."""
    data = await request.body()
    if len(data) > MAX_BODY_BYTES:
        raise HumaineError(
            413, f"request body has {len(data)} bytes; the limit is {MAX_BODY_BYTES} bytes"
        )
    if not data.strip():
        raise HumaineError(400, "empty request body; expected a JSON object")
    try:
        return json.loads(data)
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise HumaineError(400, f"malformed JSON: {e}; expected a JSON object") from None
    except RecursionError:
        raise HumaineError(
            400, "JSON nested too deeply to read; expected a flat message object"
        ) from None


def parse(model: Any, raw: Any, what: str) -> Any:
    if not isinstance(raw, dict):
        raise HumaineError(422, f"{what} must be a JSON object, got {type(raw).__name__}")
    try:
        return model.model_validate(raw)
    except ValidationError as e:
        raise HumaineError(422, f"invalid {what}: {explain(e)}") from None


def _party(ui: str | PartySpec | Mapping[str, Any]) -> PartySpec:
    if isinstance(ui, PartySpec):
        return ui
    if isinstance(ui, str):
        return PartySpec(url=ui, name="humanUI")
    return PartySpec.model_validate(dict(ui))


def create_orchestrator_app(
    *,
    db_path: str | Path | None = None,
    human_uis: Sequence[str | PartySpec | Mapping[str, Any]] = (),
    rule_config: RuleConfig | None = None,
    default_budget: float = 50.0,
    call_timeout: float = 5.0,
    confirm_timeout: float = 90.0,
    extra_routers: Sequence[APIRouter] = (),
    static_dirs: Mapping[str, str | Path] | None = None,
    clock: Callable[[], float] = time.monotonic,
    unauthenticated: Sequence[str] = (),
) -> FastAPI:
    """Build the orchestrator app.

    Args:
        db_path: SQLite file for rounds, decisions and results (None: memory only).
        human_uis: base URLs (or party specs) of the human UIs that get messages, logs,
            confirmations and totals; a round body may name its own (``humanUIs``).
        rule_config: R0-R4 constants (default: the spec's values).
        default_budget: the human's budget when the round body names none.
        call_timeout: seconds allowed for each call to a party.
        confirm_timeout: seconds a human UI may take to answer /confirmAccept (a person
            deciding; longer than the UI's own timeout). No answer leaves the deal.
        extra_routers: routers to include (e.g. the UI helper's pages and APIs).
        static_dirs: ``{mount path: directory}`` of static files to serve.
        clock: monotonic seconds used for every rule and phase.
        unauthenticated: speakers (agent names, "Human") admitted WITHOUT a secret in
            every round: only for agents or UIs written for the original platform, which
            cannot send one. Every other speaker must prove who it is (see
            :mod:`.credentials`); their messages are marked ``authenticated: false``.
    """
    store = RoundStore(db_path) if db_path is not None else None
    orch = Orchestrator(
        store=store,
        rule_config=rule_config,
        default_budget=default_budget,
        human_uis=[_party(u) for u in human_uis],
        call_timeout=call_timeout,
        confirm_timeout=confirm_timeout,
        clock=clock,
        unauthenticated=unauthenticated,
    )

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        await orch.open()
        try:
            yield
        finally:
            await orch.close()
            if store is not None:
                store.close()

    app = FastAPI(
        title="Accord HUMAINE environment orchestrator",
        description="Wire-compatible with the ANAC HUMAINE platform; R0-R4 as specified.",
        lifespan=lifespan,
    )
    app.state.orchestrator = orch

    @app.exception_handler(HumaineError)
    async def _refused(_request: Request, exc: HumaineError) -> JSONResponse:
        return JSONResponse({"status": "Failed", "error": exc.message}, status_code=exc.status)

    @app.post("/relayMessage")
    async def relay_message(request: Request) -> dict[str, Any]:
        raw = await read_json(request)
        # timing by the server's clock once the message is received (its body read):
        # judged at once, with no await in between, so the order of the judgements is
        # the order of these times (R3's "the first response is granted")
        at = orch.clock()
        return await orch.relay(raw, at, request.headers.get(TOKEN_HEADER))

    @app.post("/initializeRound")
    async def initialize_round(request: Request) -> dict[str, Any]:
        spec = parse(InitializeRound, await read_json(request), "round set-up")
        rt = orch.initialize(spec, generation=2)
        return {"roundId": rt.round_id, "msg": "Done"}

    @app.post("/startRound")
    async def start_round(request: Request) -> Any:
        raw = await read_json(request)
        if isinstance(raw, dict) and "agents" in raw:  # generation 1: the whole round body
            spec = parse(InitializeRound, raw, "round body")
            rt = orch.initialize(spec, generation=1)
            return await orch.start(rt.round_id)
        ref = parse(StartRoundRequest, raw, "/startRound body ({roundId} or a round body)")
        return await orch.start(ref.roundId)

    @app.post("/endRound")
    async def end_round(request: Request) -> dict[str, Any]:
        raw = await read_json(request) if (await request.body()).strip() else {}
        ref = parse(EndRoundRequest, raw, "/endRound body")
        rt = orch.end(ref.roundId)
        return {"status": "Acknowledged", "roundId": rt.round_id, "phase": rt.round.phase().value}

    @app.post("/receiveHumanAllocation")
    async def receive_allocation(request: Request) -> dict[str, Any]:
        raw = await read_json(request)
        req = parse(AllocationRequest, raw, "allocation")
        given = raw.get(TOKEN_FIELD) if isinstance(raw.get(TOKEN_FIELD), str) else None
        rt = orch.allocate(req.roundId, req.products(), given or request.headers.get(TOKEN_HEADER))
        return {"roundId": rt.round_id, "status": "Acknowledged"}

    @app.get("/rounds")
    async def list_rounds() -> list[dict[str, Any]]:
        return [orch.describe(rt, full=False) for rt in orch.rounds.values()]

    @app.get("/rounds/{round_id}")
    async def get_round(round_id: str) -> dict[str, Any]:
        return orch.describe(orch.resolve(round_id))

    @app.get("/viewQueue")
    @app.get("/viewQueue/{roundId}")  # the original manager's and UI's form
    async def view_queue(roundId: str | None = None) -> list[dict[str, Any]]:
        rt = orch.resolve(roundId, "/viewQueue")
        return [{"msg": e.message, "t": e.t} for e in rt.round.transcript]

    @app.get("/viewTotals")
    @app.get("/viewTotals/{roundId}")  # the original manager's and UI's form
    async def view_totals(roundId: str | None = None) -> dict[str, Any]:
        rt = orch.resolve(roundId, "/viewTotals")
        rnd = rt.round
        out: dict[str, Any] = {}
        for name, (q, cents) in rnd.seller_totals().items():
            out[name] = {"price": cents / 100, "quantity": q}
        out[rnd.human] = {"price": rnd.human_cost(), "quantity": rnd.human_quantity()}
        return out

    @app.get("/health")
    async def health() -> dict[str, Any]:
        now = orch.clock()
        done = (Phase.ENDED, Phase.FAILED)
        live = sum(1 for rt in orch.rounds.values() if rt.round.phase(now) not in done)
        return {"status": "ok", "rounds": len(orch.rounds), "unfinished": live}

    for router in extra_routers:
        app.include_router(router)
    for mount, directory in (static_dirs or {}).items():
        app.mount(mount, StaticFiles(directory=str(directory), html=True), name=f"static:{mount}")
    return app
