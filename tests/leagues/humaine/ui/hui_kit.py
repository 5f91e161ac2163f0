"""Helpers of the UI tests: fixed utilities, a tiny seller agent, apps sharing one loop.

Servers in threads on loopback come from :mod:`accord.leagues.humaine.testing`.
"""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import httpx
import uvicorn
from fastapi import FastAPI

from accord.leagues.humaine.testing import BUYER_UTILITY, COSTS_C, COSTS_W, seller_utility
from accord.web.testing import CHROMIUM_ARGS as WEB_CHROMIUM_ARGS
from accord.web.testing import wait_until

SELLER_COSTS = {"Celia": COSTS_W, "Watson": COSTS_C}
BUYER = BUYER_UTILITY
"""The buyer utility captured from the original platform (humaine-api-examples.json)."""

PERSON_KEY = "person-key-of-the-ui-tests"
ADMIN_KEY = "admin-key-of-the-ui-tests"
KEYS = {"person_key": PERSON_KEY, "admin_key": ADMIN_KEY}
"""The UI server's page keys in these tests (``create_ui_app(**KEYS)``)."""


def join(client: Any, base: str = "", roles: tuple[str, ...] = ("person", "admin")) -> Any:
    """Open the page sessions of ``roles`` on an httpx or test client (it keeps the
    cookies); returns the client."""
    for role in roles:
        key = PERSON_KEY if role == "person" else ADMIN_KEY
        r = client.get(f"{base}/join", params={"key": key}, follow_redirects=False)
        assert r.status_code == 303, r.text
    return client


def join_page(page: Any, ui: str, role: str = "person") -> None:
    """Open ``role``'s link in a browser page (it lands on the role's page)."""
    page.goto(f"{ui}/join?key={PERSON_KEY if role == 'person' else ADMIN_KEY}")


CHROMIUM_ARGS = WEB_CHROMIUM_ARGS
"""The web layer's Chromium flags (:data:`accord.web.testing.CHROMIUM_ARGS`)."""


class FixedUtilities:
    """Utility source for the UI server: the captured buyer, Celia's then Watson's costs."""

    def __init__(self) -> None:
        self.sellers = ["Celia", "Watson"]

    def __call__(self, kind: str) -> dict[str, Any]:
        if kind == "buyer":
            return BUYER
        name = self.sellers.pop(0)
        self.sellers.append(name)
        return seller_utility(SELLER_COSTS[name])


class Seller:
    """What every scripted seller of these tests shares: a FastAPI ``app`` that answers
    ``/setUtility`` (keeping the round's secret and the name it is given),
    ``/startRound``, ``/endRound`` and ``/receiveRejection``, and :meth:`send`, which
    relays a message to the orchestrator with that secret in the background (after
    ``delay`` seconds). The orchestrator's answers land in ``app.state.answers``. A
    seller adds its own ``/receiveMessage`` to ``app``.

    ``original``: an agent written for the original platform, which knows nothing of
    secrets (it sends none).
    """

    def __init__(self, name: str, orchestrator: str, original: bool = False) -> None:
        self.name, self.orchestrator, self.original = name, orchestrator, original
        self.secret: str | None = None
        self.round: Any = None
        self.app = FastAPI()
        self.app.state.answers = []
        self._tasks: set[asyncio.Task[None]] = set()

        @self.app.post("/setUtility")
        async def set_utility(body: dict[str, Any]) -> dict[str, Any]:
            self.round = body.get("roundId")
            self.name = body.get("name") or self.name
            secret = body.pop("token", None)  # this round's secret
            self.secret = None if original else secret
            return {"status": "Acknowledged", "utility": body}

        @self.app.post("/startRound")
        @self.app.post("/endRound")
        @self.app.post("/receiveRejection")
        async def ack(body: dict[str, Any]) -> dict[str, str]:
            return {"status": "Acknowledged"}

    async def _relay(self, body: dict[str, Any], delay: float) -> None:
        if delay:
            await asyncio.sleep(delay)  # the seller's thinking time, part of its script
        headers = {"X-Accord-Token": self.secret} if self.secret else {}
        async with httpx.AsyncClient(timeout=5, trust_env=False) as c:
            r = await c.post(f"{self.orchestrator}/relayMessage", json=body, headers=headers)
        self.app.state.answers.append((r.status_code, r.text))

    def send(self, body: dict[str, Any], delay: float = 0.0) -> None:
        """Relay ``body`` to the orchestrator in the background (call from the app's loop)."""
        task = asyncio.get_running_loop().create_task(self._relay(body, delay))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)


def tiny_agent(name: str, price: float, orchestrator: str, original: bool = False) -> FastAPI:
    """A seller (named by /setUtility, else ``name``) that answers the human when addressed
    (or, as Celia, when nobody is): an utterance with "accept" gets an Accept of its last offer, anything else gets
    the offer of one cake's basics (2 eggs, 2 flour, 1 milk, 1 sugar) for ``price``.
    It sends the round's secret from /setUtility, unless ``original`` (an agent written
    for the original platform, which knows nothing of secrets)."""
    seller = Seller(name, orchestrator, original)
    offer: dict[str, Any] = {}

    @seller.app.post("/receiveMessage")
    async def receive(body: dict[str, Any]) -> dict[str, Any]:
        me = seller.name
        addressee = body.get("addressee") or ""
        if body.get("speaker") == "Human" and (
            addressee == me or (not addressee and me == "Celia")
        ):
            if "accept" in str(body.get("text", "")).lower() and offer:
                bid = {**offer, "type": "Accept"}
                text = f"Deal: {me} sells you that for ${bid['price']['value']:.2f}."
            else:
                quantity = {"egg": 2, "flour": 2, "milk": 1, "sugar": 1}
                bid = {"type": "SellOffer", "quantity": quantity,
                       "price": {"unit": "USD", "value": price}}  # fmt: skip
                offer.update(bid)
                text = f"How about 2 egg 2 flour 1 milk 1 sugar for {price:.2f} USD?"
            seller.send({"roundId": body.get("roundId"), "speaker": me, "addressee": "Human",
                         "role": "seller", "text": text, "bid": bid})  # fmt: skip
        return {"status": "Acknowledged", "interpretation": body}

    return seller.app


class SharedLoop:
    """Several apps served by uvicorn in one event loop in one thread (as in one process
    running the whole stack), on the given ports."""

    def __init__(self, apps: dict[int, FastAPI]) -> None:
        self.servers = [
            uvicorn.Server(uvicorn.Config(a, host="127.0.0.1", port=p, log_level="warning"))
            for p, a in apps.items()
        ]
        self.thread = threading.Thread(target=lambda: asyncio.run(self._serve()), daemon=True)

    async def _serve(self) -> None:
        await asyncio.gather(*(s.serve() for s in self.servers))

    def __enter__(self) -> SharedLoop:
        self.thread.start()
        wait_until(lambda: all(s.started for s in self.servers), "the servers' start")
        return self

    def __exit__(self, *exc: object) -> None:
        for s in self.servers:
            s.should_exit = True
        self.thread.join(timeout=10)


PWN = "window.__pwned=1"
PAYLOADS = [
    f'<img src=x onerror="{PWN}">',
    f"<script>{PWN}</script>",
    f"javascript:{PWN}",
    f'"><svg onload="{PWN}">',
    f"&lt;img src=x onerror={PWN}&gt;",
    f"' onmouseover='{PWN}' x='",
]
"""Script payloads a hostile seller puts in every text and field it controls."""
LITERAL = [f"javascript:{PWN}", f"&lt;img src=x onerror={PWN}&gt;", f"' onmouseover='{PWN}' x='"]
"""The payloads without a tag: the pages drop SSML tags from a seller's text, so these
are the ones that must show exactly as the seller typed them."""


def hostile_seller(name: str, orchestrator: str) -> FastAPI:
    """A seller (``name``) that answers each utterance of the Human with a message whose
    text, behaviour (gestures), emotion and price unit are all script payloads."""
    seller = Seller(name, orchestrator)

    @seller.app.post("/receiveMessage")
    async def receive(body: dict[str, Any]) -> dict[str, Any]:
        if body.get("speaker") == "Human":
            quantity = {"egg": 2, "flour": 2}  # good names are checked (422): not here
            bid = {"type": "SellOffer", "quantity": quantity,
                   "price": {"unit": PAYLOADS[1], "value": 4.0}}  # fmt: skip
            seller.send({"roundId": body.get("roundId"), "speaker": name, "addressee": "Human",
                         "role": "seller", "text": " | ".join(PAYLOADS), "bid": bid,
                         "behavior": [*PAYLOADS, "smile"], "emotion": PAYLOADS[3]})  # fmt: skip
        return {"status": "Acknowledged", "interpretation": body}

    return seller.app
