"""Test support for HUMAINE services: real servers (the web layer's runner) on free loopback ports and
tiny recording parties (agents or human UIs) that answer every orchestrator callback
and store what they receive. Useful to agent authors as well as to our tests.

The orchestrator's admin routes need its operator secret: a client made with
``headers=operator_headers(app)`` sends it (:class:`Stage`'s client does).

Example::

    with Party("Watson") as w, Party("Celia") as c:
        app = create_orchestrator_app()
        with ServerThread(app) as eo:
            client = httpx.Client(base_url=eo.url, headers=operator_headers(app))
            rid = start_round(client, round_body([w.agent_spec(COSTS_W), c.agent_spec(COSTS_C)]))
            client.post("/relayMessage", json=human(rid, "Watson, 2 eggs?", "Watson"))
            w.wait_for("/receiveMessage")
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable
from typing import Any, Self

import httpx
from fastapi import Request

from accord.leagues.humaine.admin import admin_headers
from accord.leagues.humaine.goods import UNITS
from accord.leagues.humaine.messages import UI_ROUTES
from accord.web.app import create_app
from accord.web.runner import ServerThread as ServerThread  # the test kit's servers
from accord.web.runner import free_port as free_port
from accord.web.runner import loopback_socket as loopback_socket

PARTY_ROUTES = tuple(f"/{route}" for route in UI_ROUTES)

COSTS_W = {"egg": 0.47, "flour": 0.96, "sugar": 0.96, "milk": 0.35, "chocolate": 0.35}
COSTS_W |= {"blueberry": 0.42, "vanilla": 0.3}
COSTS_C = {"egg": 0.49, "flour": 0.71, "sugar": 0.81, "milk": 0.3, "chocolate": 0.37}
COSTS_C |= {"blueberry": 0.29, "vanilla": 0.28}


def seller_utility(costs: dict[str, float]) -> dict[str, Any]:
    """A seller utility on the wire: ``unitcost`` per good, in the good's unit."""
    return {
        "currencyUnit": "USD",
        "utility": {
            g: {"type": "unitcost", "unit": UNITS[g], "parameters": {"unitcost": c}}
            for g, c in costs.items()
        },
    }


def trapezoid(lo: int, hi: int, vlo: float, vhi: float, unit: str) -> dict[str, Any]:
    return {
        "type": "trapezoid",
        "unit": unit,
        "parameters": {"minQuantity": lo, "maxQuantity": hi, "minValue": vlo, "maxValue": vhi},
    }


BUYER_UTILITY = {
    "currencyUnit": "USD",
    "utility": {
        "cake": {
            "type": "unitvaluePlusSupplement",
            "unit": "each",
            "parameters": {
                "unitvalue": 23.81,
                "supplement": {
                    "chocolate": trapezoid(3, 6, 2.92, 6.22, "ounce"),
                    "vanilla": trapezoid(2, 4, 2.04, 7.03, "teaspoon"),
                },
            },
        },
        "pancake": {
            "type": "unitvaluePlusSupplement",
            "unit": "each",
            "parameters": {
                "unitvalue": 27.43,
                "supplement": {
                    "chocolate": trapezoid(3, 6, 3.29, 5.49, "ounce"),
                    "blueberry": trapezoid(1, 3, 3.02, 7.57, "packet"),
                },
            },
        },
    },
}


class Party:
    """A recording party: answers every HUMAINE callback and stores (route, t, body).

    ``delay`` makes it slow (seconds per call); ``confirm`` is its /confirmAccept
    status, given after ``confirm_delay`` more seconds (a person deciding);
    ``on_message`` is called (in the server's thread) with each /receiveMessage body, so
    a test can script an agent.
    """

    def __init__(
        self,
        name: str,
        delay: float = 0.0,
        confirm: str = "acknowledged",
        confirm_delay: float = 0.0,
        on_message: Callable[[Party, dict[str, Any]], None] | None = None,
    ) -> None:
        self.name = name
        self.delay = delay
        self.confirm = confirm
        self.confirm_delay = confirm_delay
        self.on_message = on_message
        self.received: list[tuple[str, float, dict[str, Any]]] = []
        self.lock = threading.Lock()
        app = create_app(f"recording party {name}")
        for route in PARTY_ROUTES:
            app.add_api_route(route, self._handler(route), methods=["POST"])
        self.server = ServerThread(app)

    def _handler(self, route: str) -> Callable[[Request], Any]:
        import asyncio

        async def handle(request: Request) -> dict[str, Any]:
            t = time.monotonic()
            body = await request.json()
            with self.lock:
                self.received.append((route, t, body))
            if self.delay:
                await asyncio.sleep(self.delay)
            if route == "/receiveMessage" and self.on_message is not None:
                await asyncio.to_thread(self.on_message, self, body)
            if route == "/setUtility":
                return {"status": "Acknowledged", "utility": body}
            if route == "/confirmAccept":
                await asyncio.sleep(self.confirm_delay)
                return {"status": self.confirm}
            return {"status": "acknowledged"}

        return handle

    @property
    def url(self) -> str:
        return self.server.url

    @property
    def port(self) -> int:
        return int(self.server.port)

    def __enter__(self) -> Party:
        self.server.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.__exit__(*exc)

    def bodies(self, route: str, round_id: str | None = None) -> list[dict[str, Any]]:
        """Bodies received on ``route`` (only those of ``round_id`` if given)."""
        with self.lock:
            return [
                b
                for r, _, b in self.received
                if r == route and (round_id is None or b.get("roundId") == round_id)
            ]

    def times(self, route: str) -> list[float]:
        with self.lock:
            return [t for r, t, _ in self.received if r == route]

    def wait_for(
        self, route: str, n: int = 1, timeout: float = 60.0, round_id: str | None = None
    ) -> list[dict[str, Any]]:
        """Wait until ``n`` bodies arrived on ``route`` (of ``round_id``); return them."""
        deadline = time.monotonic() + timeout
        while True:
            got = self.bodies(route, round_id)
            if len(got) >= n:
                return got
            if time.monotonic() > deadline:
                raise AssertionError(f"{self.name} got {len(got)} {route} calls, wanted {n}")
            time.sleep(0.01)

    def agent_spec(self, costs: dict[str, float], token: str | None = None) -> dict[str, Any]:
        spec: dict[str, Any] = {
            "protocol": "http",
            "host": "127.0.0.1",
            "port": self.port,
            "name": self.name,
            "utilityFunction": seller_utility(costs),
        }
        if token:
            spec["token"] = token
        return spec

    def ui_spec(self) -> dict[str, Any]:
        return {"protocol": "http", "host": "127.0.0.1", "port": self.port, "name": self.name}


def operator_headers(app: Any) -> dict[str, str]:
    """The admin header for an orchestrator ``app`` built in this process (its
    ``app.state.admin_secret``; none if its admin routes are open)."""
    return admin_headers(getattr(app.state, "admin_secret", None))


class Stage:
    """An orchestrator ``app`` served on loopback, recording parties and a client to it
    (the operator's: it sends the app's admin secret, see :func:`operator_headers`).

    ``celia``, ``watson`` and ``ui`` are parties not started yet (by default plain ones
    named Celia, Watson and ui); the stage starts them, then the server, and stops all.

    Example::

        with Stage(create_orchestrator_app()) as stage:
            rid = stage.new_round()
            stage.client.post("/relayMessage", json=human(rid, "Watson, 2 eggs?", "Watson"))
            stage.watson.wait_for("/receiveMessage")
    """

    def __init__(
        self,
        app: Any,
        celia: Party | None = None,
        watson: Party | None = None,
        ui: Party | None = None,
    ) -> None:
        self.celia = celia or Party("Celia")
        self.watson = watson or Party("Watson")
        self.ui = ui or Party("ui")
        self.server = ServerThread(app)
        self.client = httpx.Client(
            base_url=self.server.url, timeout=10, headers=operator_headers(app)
        )
        self._stack = contextlib.ExitStack()

    def __enter__(self) -> Self:
        with contextlib.ExitStack() as stack:
            for part in (self.celia, self.watson, self.ui, self.server, self.client):
                stack.enter_context(part)
            self._stack = stack.pop_all()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stack.close()

    def party_of(self, speaker: str) -> Party:
        """The recording party that speaks as ``speaker`` ("Human": the UI)."""
        return {"Celia": self.celia, "Watson": self.watson}.get(speaker, self.ui)

    def relay_as(self, body: dict[str, Any]) -> httpx.Response:
        """POST ``body`` to /relayMessage with its speaker's secret of its round (as the
        speaker's own service would send it)."""
        party = self.party_of(str(body.get("speaker")))
        secret = secret_of(party, str(body.get("roundId")))
        return self.client.post("/relayMessage", json=body, headers={"X-Accord-Token": secret})

    def new_round(self, **kw: Any) -> str:
        """Start a round of Celia and Watson (test costs) with the UI; ``kw`` go to
        :func:`round_body`. Returns its round id once it is active."""
        agents = [self.celia.agent_spec(COSTS_C), self.watson.agent_spec(COSTS_W)]
        return start_round(self.client, round_body(agents, [self.ui.ui_spec()], **kw))


def round_body(
    agents: list[dict[str, Any]],
    uis: list[dict[str, Any]] | None = None,
    round_id: str | None = None,
    warmup: float = 0.0,
    duration: float = 120.0,
    post: float = 5.0,
    budget: float | None = 50.0,
    authenticated: bool = False,
) -> dict[str, Any]:
    """A round body for ``/initializeRound``.

    The recording :class:`Party` objects send no secrets, so by default every speaker
    without a ``token`` is listed as unauthenticated (``authenticated: false``), the
    operator's explicit choice; ``authenticated=True`` leaves the orchestrator's default
    (a secret for every speaker, delivered in ``/setUtility``; see :func:`secret_of`).
    """
    human_spec: dict[str, Any] = {"utilityFunction": BUYER_UTILITY}
    if not authenticated:
        agents = [a if a.get("token") else a | {"authenticated": False} for a in agents]
        human_spec["authenticated"] = False
    body: dict[str, Any] = {
        "agents": agents,
        "human": human_spec,
        "durations": {"warmUp": warmup, "round": duration, "post": post},
    }
    if round_id:
        body["roundId"] = round_id
    if uis is not None:
        body["humanUIs"] = uis
    if budget is not None:
        body["humanBudget"] = {"currentUnit": "USD", "value": budget}
    return body


def secret_of(party: Party, round_id: str, timeout: float = 5.0) -> str:
    """The secret ``party`` was given in its ``/setUtility`` of ``round_id``."""
    body = party.wait_for("/setUtility", round_id=round_id, timeout=timeout)[-1]
    secret = body.get("token")
    if not isinstance(secret, str):
        raise AssertionError(f"{party.name}'s /setUtility of {round_id} carried no secret")
    return secret


def start_round(client: httpx.Client, body: dict[str, Any]) -> str:
    """initializeRound + startRound (generation 2); waits until the warm-up is over (the
    round is active, or past it already: a short round on a loaded machine can end
    between two looks)."""
    r = client.post("/initializeRound", json=body)
    assert r.status_code == 200, r.text
    rid = r.json()["roundId"]
    r = client.post("/startRound", json={"roundId": rid})
    assert r.status_code == 200, r.text
    deadline = time.monotonic() + 60  # generous: returns as soon as it is active
    while (phase := client.get(f"/rounds/{rid}").json()["phase"]) in ("created", "warmup"):
        assert time.monotonic() < deadline, f"round did not become active (still {phase})"
        time.sleep(0.01)
    return str(rid)


def human(rid: str | None, text: str, to: str = "") -> dict[str, Any]:
    body: dict[str, Any] = {
        "speaker": "Human",
        "addressee": to,
        "text": text,
        "role": "buyer",
        "timestamp": int(time.time() * 1000),
    }
    if rid is not None:
        body["roundId"] = rid
    return body


def agent(
    rid: str | None,
    name: str,
    text: str,
    bid_type: str = "SellOffer",
    quantity: dict[str, int] | None = None,
    price: float | None = 4.5,
) -> dict[str, Any]:
    body: dict[str, Any] = {
        "speaker": name,
        "addressee": "Human",
        "text": text,
        "role": "seller",
        "environmentUUID": "abcdefg",
        "timeStamp": "2020-02-20T08:08:05.825Z",
        "bid": {"type": bid_type, "quantity": quantity or {"egg": 2}},
    }
    if price is not None:
        body["bid"]["price"] = {"unit": "USD", "value": price}
    if rid is not None:
        body["roundId"] = rid
    return body


def sleep_until(t: float) -> None:
    """Sleep until monotonic time ``t``."""
    left = t - time.monotonic()
    if left > 0:
        time.sleep(left)
