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
:mod:`.credentials`. A forged or unknown speaker gets 403 and a logged decision. The
admin routes (``/initializeRound``, ``/startRound``, ``/endRound``) need the operator's
secret (``X-Accord-Admin`` header) unless ``open_admin``: see :mod:`.admin`.

Example::

    app = create_orchestrator_app(db_path="humaine.db", human_uis=["http://127.0.0.1:7040"])
    secret = app.state.admin_secret  # made here; send it as X-Accord-Admin to run rounds
    serve(app, "127.0.0.1", 14010)  # accord.web.runner.serve
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from fastapi import APIRouter, FastAPI, Request

from accord.web.app import create_app
from accord.web.requests import json_body, parse
from accord.web.requests import read_json as web_read_json

from .admin import ADMIN_HEADER, AdminGate
from .credentials import TOKEN_FIELD, TOKEN_HEADER, new_secret
from .messages import (
    AllocationRequest,
    EndRoundRequest,
    InitializeRound,
    PartySpec,
    RelayMessage,
    StartRoundRequest,
)
from .parties import HumaineError
from .round import Phase
from .rules import RuleConfig
from .runtime import Orchestrator
from .store import RoundStore

__all__ = ["DEFAULT_PORT", "MAX_BODY_BYTES", "OrchestratorService", "create_orchestrator_app"]

DEFAULT_PORT = 14010
MAX_BODY_BYTES = 256 * 1024


async def read_json(request: Request) -> Any:
    """The JSON body, or a clear 400/413 (the web layer's reader, HUMAINE's size limit)."""
    return await web_read_json(request, MAX_BODY_BYTES)


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
    admin_secret: str | None = None,
    open_admin: bool = False,
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
        admin_secret: the operator's secret the admin routes need (``X-Accord-Admin``);
            None makes a fresh one, kept in ``app.state.admin_secret``.
        open_admin: admit admin calls WITHOUT the secret (logged as a warning): only for
            the original HUMAINE manager, which cannot send the header.
    """
    if not open_admin and admin_secret is None:
        admin_secret = new_secret()
    gate = AdminGate(admin_secret, open_admin)
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
    app = create_app(
        "Accord HUMAINE environment orchestrator",
        OrchestratorService(orch, gate),
        *extra_routers,
        description="Wire-compatible with the ANAC HUMAINE platform; R0-R4 as specified.",
        static=static_dirs,
        max_body_bytes=MAX_BODY_BYTES,
        answers=None if store is None else store.file,
    )
    app.state.orchestrator = orch
    app.state.admin_secret = None if open_admin else admin_secret
    app.state.admin_open = open_admin
    return app


class OrchestratorService:
    """The orchestrator's HTTP routes over an :class:`~.runtime.Orchestrator` (which
    holds every round); it opens the orchestrator at start-up and closes it (and its
    store) at shut-down."""

    def __init__(self, orch: Orchestrator, gate: AdminGate) -> None:
        self.orch = orch
        self.gate = gate

    def _admin(self, request: Request, route: str) -> None:
        """Refuse (403, logged) an admin call without the operator's secret."""
        peer = request.client
        who = f"{peer.host}:{peer.port}" if peer else "unknown"
        why = self.gate.decide(route, request.headers.get(ADMIN_HEADER), who)
        if why is not None:
            raise HumaineError(403, f"{route} refused: {why}")

    async def open(self) -> None:
        await self.orch.open()

    async def close(self) -> None:
        await self.orch.close()
        if self.orch.store is not None:
            self.orch.store.close()

    def router(self) -> APIRouter:
        r = APIRouter()
        # each route reads its own body (the original's wire format, its own errors, a
        # rejection to a registered sender of a malformed message); OpenAPI shows the models
        for path, endpoint, body in (
            ("/relayMessage", self.relay_message, json_body(RelayMessage)),
            ("/initializeRound", self.initialize_round, json_body(InitializeRound)),
            (
                "/startRound",
                self.start_round,
                json_body(
                    StartRoundRequest,
                    InitializeRound,
                    description="generation 2: {roundId}; generation 1: the whole round body",
                ),
            ),
            ("/endRound", self.end_round, json_body(EndRoundRequest)),
            ("/receiveHumanAllocation", self.receive_allocation, json_body(AllocationRequest)),
        ):
            r.add_api_route(path, endpoint, methods=["POST"], openapi_extra=body)
        r.add_api_route("/rounds", self.list_rounds, methods=["GET"])
        r.add_api_route("/rounds/{round_id}", self.get_round, methods=["GET"])
        for path in ("/viewQueue", "/viewQueue/{roundId}"):  # the original's forms
            r.add_api_route(path, self.view_queue, methods=["GET"])
        for path in ("/viewTotals", "/viewTotals/{roundId}"):
            r.add_api_route(path, self.view_totals, methods=["GET"])
        r.add_api_route("/health", self.health, methods=["GET"])
        return r

    async def relay_message(self, request: Request) -> dict[str, Any]:
        raw = await read_json(request)
        # timing by the server's clock once the message is received (its body read):
        # judged at once, with no await in between, so the order of the judgements is
        # the order of these times (R3's "the first response is granted")
        at = self.orch.clock()
        return await self.orch.relay(raw, at, request.headers.get(TOKEN_HEADER))

    async def initialize_round(self, request: Request) -> dict[str, Any]:
        self._admin(request, "/initializeRound")
        spec = parse(InitializeRound, await read_json(request), "round set-up")
        rt = self.orch.initialize(spec, generation=2)
        return {"roundId": rt.round_id, "msg": "Done"}

    async def start_round(self, request: Request) -> Any:
        self._admin(request, "/startRound")
        raw = await read_json(request)
        if isinstance(raw, dict) and "agents" in raw:  # generation 1: the whole round body
            spec = parse(InitializeRound, raw, "round body")
            rt = self.orch.initialize(spec, generation=1)
            return await self.orch.start(rt.round_id)
        ref = parse(StartRoundRequest, raw, "/startRound body ({roundId} or a round body)")
        return await self.orch.start(ref.roundId)

    async def end_round(self, request: Request) -> dict[str, Any]:
        self._admin(request, "/endRound")
        raw = await read_json(request) if (await request.body()).strip() else {}
        ref = parse(EndRoundRequest, raw, "/endRound body")
        rt = self.orch.end(ref.roundId)
        return {"status": "Acknowledged", "roundId": rt.round_id, "phase": rt.round.phase().value}

    async def receive_allocation(self, request: Request) -> dict[str, Any]:
        raw = await read_json(request)
        req = parse(AllocationRequest, raw, "allocation")
        given = raw.get(TOKEN_FIELD) if isinstance(raw.get(TOKEN_FIELD), str) else None
        token = given or request.headers.get(TOKEN_HEADER)
        rt = self.orch.allocate(req.roundId, req.products(), token)
        return {"roundId": rt.round_id, "status": "Acknowledged"}

    async def list_rounds(self) -> list[dict[str, Any]]:
        return [self.orch.describe(rt, full=False) for rt in self.orch.rounds.values()]

    async def get_round(self, round_id: str) -> dict[str, Any]:
        return self.orch.describe(self.orch.resolve(round_id))

    async def view_queue(self, roundId: str | None = None) -> list[dict[str, Any]]:
        rt = self.orch.resolve(roundId, "/viewQueue")
        return [{"msg": e.message, "t": e.t} for e in rt.round.transcript]

    async def view_totals(self, roundId: str | None = None) -> dict[str, Any]:
        rt = self.orch.resolve(roundId, "/viewTotals")
        rnd = rt.round
        out: dict[str, Any] = {}
        for name, (q, cents) in rnd.seller_totals().items():
            out[name] = {"price": cents / 100, "quantity": q}
        out[rnd.human] = {"price": rnd.human_cost(), "quantity": rnd.human_quantity()}
        return out

    async def health(self) -> dict[str, Any]:
        now = self.orch.clock()
        done = (Phase.ENDED, Phase.FAILED)
        live = sum(1 for rt in self.orch.rounds.values() if rt.round.phase(now) not in done)
        out = {"status": "ok", "rounds": len(self.orch.rounds), "unfinished": live}
        return out | ({"adminOpen": True} if self.gate.open else {})
