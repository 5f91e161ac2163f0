"""Agents and simulated buyers as HTTP services (FastAPI), speaking Appendix C.

:func:`create_agent_app` serves a :class:`~.base.SellerAgent` on the five agent routes
(``/setUtility``, ``/startRound``, ``/endRound``, ``/receiveMessage``,
``/receiveRejection``); the agent's messages are POSTed to the orchestrator's
``/relayMessage`` (address from a constructor argument or an ``appSettings.json`` with a
``serviceMap.environment-orchestrator`` entry). :func:`create_buyer_app` does the same for
a simulated buyer on the human-UI routes, and posts its best allocation to
``/receiveHumanAllocation`` when the round ends. :class:`BackgroundServer` (the web layer's
:class:`accord.web.runner.BackgroundServer`) runs an app in a thread on a loopback port
(port 0 picks a free one); :func:`serve_agent` through the web layer's runner.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
from fastapi import FastAPI, Request

from accord.web.app import create_app
from accord.web.errors import WebError
from accord.web.runner import BackgroundServer as BackgroundServer  # the web layer's runner
from accord.web.runner import bound_socket as bound_socket
from accord.web.runner import serve

from ..credentials import TOKEN_FIELD, TOKEN_HEADER
from .base import SellerAgent
from .buyers import SimulatedBuyer

DEFAULT_ORCHESTRATOR = "http://localhost:14010"
DEFAULT_PORTS: dict[str, int] = {"Celia": 14007, "Watson": 14008}
"""Default ports of the two agents (as in the original platform)."""


class BadRequest(WebError, ValueError):
    """A request body that is not the JSON object a route expects (HTTP 400)."""

    def __init__(self, message: str) -> None:
        super().__init__(400, message)


def orchestrator_url(settings: str | Path | Mapping[str, Any] | None = None) -> str:
    """Orchestrator base URL from an ``appSettings.json`` path or its parsed content.

    >>> orchestrator_url({"serviceMap": {"environment-orchestrator":
    ...     {"protocol": "http", "host": "127.0.0.1", "port": 14010}}})
    'http://127.0.0.1:14010'
    """
    if settings is None:
        return DEFAULT_ORCHESTRATOR
    if isinstance(settings, str | Path):
        path = Path(settings)
        try:
            data = json.loads(path.read_text())
        except (OSError, json.JSONDecodeError) as e:
            raise ValueError(f"cannot read settings file {path}: {e}") from None
    else:
        data = settings
    try:
        entry = data["serviceMap"]["environment-orchestrator"]
        return f"{entry.get('protocol', 'http')}://{entry['host']}:{int(entry['port'])}"
    except (KeyError, TypeError, ValueError):
        raise ValueError(
            "settings need serviceMap.environment-orchestrator = {protocol, host, port}; "
            f"got {data!r}"
        ) from None


class HttpContext:
    """:class:`~.base.AgentContext` over asyncio and HTTP: sends go to /relayMessage.

    Each message carries its speaker's secret in the ``X-Accord-Token`` header: the
    round's own (learnt from ``/setUtility``, see :meth:`learn_secret`), else ``token``.
    """

    def __init__(self, relay_url: str, token: str | None = None, timeout: float = 5.0) -> None:
        self.relay_url = relay_url.rstrip("/") + "/relayMessage"
        self.token = token
        self.secrets: dict[str, str] = {}
        """Per-round secrets by roundId ("" for a body without one)."""
        self.timeout = timeout
        self._tasks: set[asyncio.Task[Any]] = set()
        self.replies: list[dict[str, Any]] = []
        self.errors: list[str] = []

    def now(self) -> float:
        return time.monotonic()

    def timestamp(self) -> str:
        return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")

    def learn_secret(self, body: Mapping[str, Any]) -> dict[str, Any]:
        """Keep the secret a ``/setUtility`` body carries for its round; returns the body
        without it (the agent object never sees it)."""
        secret = body.get(TOKEN_FIELD)
        if not isinstance(secret, str) or not secret:
            return dict(body)
        self.secrets[str(body.get("roundId") or "")] = secret
        while len(self.secrets) > 64:  # forget the oldest rounds
            self.secrets.pop(next(iter(self.secrets)))
        return {k: v for k, v in body.items() if k != TOKEN_FIELD}

    def secret_for(self, message: Mapping[str, Any]) -> str | None:
        """The secret to send with ``message``: its round's, else the latest, else ``token``."""
        rid = str(message.get("roundId") or "")
        if rid in self.secrets:
            return self.secrets[rid]
        if not rid and self.secrets:
            return self.secrets[next(reversed(self.secrets))]
        return self.token

    def send(self, message: dict[str, Any]) -> None:
        task = asyncio.get_running_loop().create_task(
            self.post(self.relay_url, message, self.secret_for(message))
        )
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def call_later(self, delay: float, fn: Callable[[], None]) -> None:
        asyncio.get_running_loop().call_later(max(0.0, delay), fn)

    async def post(self, url: str, body: dict[str, Any], secret: str | None = None) -> None:
        secret = secret or self.token
        headers = {TOKEN_HEADER: secret} if secret else {}
        try:
            async with httpx.AsyncClient(timeout=self.timeout) as client:
                r = await client.post(url, json=body, headers=headers)
            reply = r.json() if r.content else {}
            self.replies.append(reply if isinstance(reply, dict) else {"reply": reply})
        except (httpx.HTTPError, ValueError) as e:
            self.errors.append(f"POST {url} failed: {e}")
        del self.replies[:-100], self.errors[:-100]


async def _body(request: Request) -> dict[str, Any]:
    raw = await request.body()
    if not raw.strip():
        return {}
    try:
        data = json.loads(raw)
    except json.JSONDecodeError as e:
        raise BadRequest(f"body is not valid JSON ({e.msg} at position {e.pos})") from None
    except RecursionError:
        raise BadRequest("body is JSON nested too deeply to read; expected a flat object") from None
    if not isinstance(data, dict):
        raise BadRequest(f"body must be a JSON object, got {type(data).__name__}")
    return data


Handler = Callable[[dict[str, Any]], dict[str, Any]]

_CALLS = (
    ("/setUtility", "set_utility"),
    ("/startRound", "start_round"),
    ("/receiveMessage", "receive_message"),
    ("/receiveRejection", "receive_rejection"),
)
"""Routes answered by the party method of the same name (sellers and simulated buyers)."""


def _post(app: FastAPI, path: str, handle: Handler) -> None:
    """Serve ``POST path``: the JSON object body goes to ``handle``; its reply comes back."""

    async def endpoint(request: Request) -> dict[str, Any]:
        return handle(await _body(request))

    app.post(path)(endpoint)


def _app(title: str) -> FastAPI:
    """An empty app from the web layer's factory (one error body, body-size limit)."""
    return create_app(title)


class AgentRounds:
    """Which agent object serves which round.

    Given an agent object, every round goes to it (one round at a time, as the original
    sample agents). Given a factory, each ``roundId`` seen on ``/setUtility`` gets a fresh
    agent, so one service can sit in several concurrent rounds; a body without a
    ``roundId`` goes to the most recent round.
    """

    def __init__(self, agent: SellerAgent | Callable[[], SellerAgent], ctx: HttpContext) -> None:
        self.ctx = ctx
        self.factory: Callable[[], SellerAgent] | None = None
        self.by_round: dict[str, SellerAgent] = {}
        if isinstance(agent, SellerAgent):
            self.latest = agent.bind(ctx)
        else:
            self.factory = agent
            self.latest = agent().bind(ctx)

    def for_body(self, body: Mapping[str, Any], create: bool = False) -> SellerAgent:
        round_id = body.get("roundId")
        if self.factory is None or not round_id:
            return self.latest
        agent = self.by_round.get(str(round_id))
        if agent is None:
            if not create:
                return self.latest
            agent = self.latest if not self.by_round else self.factory().bind(self.ctx)
            self.by_round[str(round_id)] = agent
            while len(self.by_round) > 64:  # forget the oldest rounds
                self.by_round.pop(next(iter(self.by_round)))
        self.latest = agent
        return agent


def create_agent_app(
    agent: SellerAgent | Callable[[], SellerAgent],
    orchestrator: str | None = None,
    *,
    settings: str | Path | Mapping[str, Any] | None = None,
    token: str | None = None,
) -> FastAPI:
    """A FastAPI app serving a seller on the agent routes of Appendix C.

    ``agent`` is an agent object (one round at a time) or a factory of agents (one per
    ``roundId``, for concurrent rounds).
    """
    ctx = HttpContext(orchestrator or orchestrator_url(settings), token)
    rounds = AgentRounds(agent, ctx)
    app = _app(f"HUMAINE agent {rounds.latest.name}")
    app.state.rounds = rounds
    app.state.context = ctx

    def seller_call(path: str, method: str) -> Handler:
        create = path == "/setUtility"  # a new roundId gets its own agent here

        def handle(body: dict[str, Any]) -> dict[str, Any]:
            if create:
                body = ctx.learn_secret(body)
            reply: dict[str, Any] = getattr(rounds.for_body(body, create=create), method)(body)
            return reply

        return handle

    for path, method in (*_CALLS, ("/endRound", "end_round")):
        _post(app, path, seller_call(path, method))

    @app.get("/health")
    async def health() -> dict[str, Any]:
        current = rounds.latest
        return {
            "status": "ok",
            "name": current.name,
            "kind": current.kind,
            "active": current.active,
            "rounds": sorted(rounds.by_round),
            "orchestrator": ctx.relay_url,
            "errors": ctx.errors[-5:],
        }

    return app


def create_buyer_app(
    buyer: SimulatedBuyer,
    orchestrator: str | None = None,
    *,
    settings: str | Path | Mapping[str, Any] | None = None,
    token: str | None = None,
    budget: float = 50.0,
) -> FastAPI:
    """A FastAPI app serving a simulated buyer on the human-UI routes of the original.

    It learns its budget from ``/sendRoundMetadata`` (default ``budget``), speaks as
    "Human" on ``/relayMessage`` and saves its best allocation on ``/endRound``.
    """
    base = (orchestrator or orchestrator_url(settings)).rstrip("/")
    ctx = HttpContext(base, token)
    buyer.bind(ctx)
    buyer.budget = budget
    app = _app("HUMAINE simulated buyer")
    app.state.buyer = buyer
    app.state.context = ctx
    ack = {"status": "acknowledged"}

    @app.post("/sendRoundMetadata")
    async def metadata(request: Request) -> dict[str, Any]:
        body = ctx.learn_secret(await _body(request))
        value = (body.get("humanBudget") or {}).get("value")
        if value is not None:
            buyer.budget = float(value)
        buyer.round_id = body.get("roundId") or buyer.round_id
        return ack

    def set_utility(body: dict[str, Any]) -> dict[str, Any]:
        reply: dict[str, Any] = buyer.set_utility(ctx.learn_secret(body))
        return reply

    for path, method in _CALLS:
        _post(app, path, set_utility if path == "/setUtility" else getattr(buyer, method))
    for path in ("/confirmAccept", "/receiveLog", "/receiveRoundTotals"):
        _post(app, path, lambda _body: ack)

    @app.post("/endRound")
    async def end_round(request: Request) -> dict[str, Any]:
        body = await _body(request)
        reply = buyer.end_round(body)
        if buyer.valuer is not None:
            allocation = buyer.valuer.best(buyer.inventory).to_wire()
            payload = {"roundId": body.get("roundId") or buyer.round_id, "payload": allocation}
            ctx.call_later(0.05, lambda: _spawn(ctx, base + "/receiveHumanAllocation", payload))
        return reply

    @app.get("/health")
    async def health() -> dict[str, Any]:
        return {
            "status": "ok",
            "strategy": buyer.strategy,
            "inventory": buyer.inventory,
            "spent": buyer.spent,
            "errors": ctx.errors[-5:],
        }

    return app


def _spawn(ctx: HttpContext, url: str, body: dict[str, Any]) -> None:
    task = asyncio.get_running_loop().create_task(ctx.post(url, body, ctx.secret_for(body)))
    ctx._tasks.add(task)
    task.add_done_callback(ctx._tasks.discard)


def serve_agent(
    agent: SellerAgent | Callable[[], SellerAgent],
    *,
    host: str = "127.0.0.1",
    port: int | None = None,
    orchestrator: str | None = None,
    settings: str | Path | None = None,
    token: str | None = None,
) -> None:
    """Serve an agent (or an agent factory) in the foreground; the default port is 14007
    for Celia and 14008 for Watson."""
    app = create_agent_app(agent, orchestrator, settings=settings, token=token)
    name = app.state.rounds.latest.name
    serve(app, host, port or DEFAULT_PORTS.get(name, 14007))
