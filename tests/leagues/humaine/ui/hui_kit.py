"""Helpers of the UI tests: fixed utilities, uvicorn servers in threads, a tiny seller agent."""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from typing import Any

import httpx
import uvicorn
from fastapi import FastAPI

SELLER_COSTS = {
    "Celia": {"egg": 0.47, "flour": 0.96, "sugar": 0.96, "milk": 0.35, "chocolate": 0.35,
              "vanilla": 0.3, "blueberry": 0.42},
    "Watson": {"egg": 0.49, "flour": 0.71, "sugar": 0.81, "milk": 0.3, "chocolate": 0.37,
               "vanilla": 0.28, "blueberry": 0.29},
}  # fmt: skip
UNITS = {"egg": "each", "flour": "cup", "sugar": "cup", "milk": "cup", "chocolate": "ounce",
         "vanilla": "teaspoon", "blueberry": "packet"}  # fmt: skip
BUYER = {
    "currencyUnit": "USD",
    "utility": {
        "cake": {
            "type": "unitvaluePlusSupplement",
            "unit": "each",
            "parameters": {
                "unitvalue": 23.81,
                "supplement": {
                    "chocolate": {"type": "trapezoid", "unit": "ounce", "parameters": {
                        "minQuantity": 3, "maxQuantity": 6, "minValue": 2.92, "maxValue": 6.22}},
                    "vanilla": {"type": "trapezoid", "unit": "teaspoon", "parameters": {
                        "minQuantity": 2, "maxQuantity": 4, "minValue": 2.04, "maxValue": 7.03}},
                },
            },
        },
        "pancake": {
            "type": "unitvaluePlusSupplement",
            "unit": "each",
            "parameters": {
                "unitvalue": 27.43,
                "supplement": {
                    "chocolate": {"type": "trapezoid", "unit": "ounce", "parameters": {
                        "minQuantity": 3, "maxQuantity": 6, "minValue": 3.29, "maxValue": 5.49}},
                    "blueberry": {"type": "trapezoid", "unit": "packet", "parameters": {
                        "minQuantity": 1, "maxQuantity": 3, "minValue": 3.02, "maxValue": 7.57}},
                },
            },
        },
    },
}  # fmt: skip
"""The buyer utility captured from the original platform (humaine-api-examples.json)."""

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def seller_utility(name: str) -> dict[str, Any]:
    return {
        "currencyUnit": "USD",
        "utility": {
            g: {"type": "unitcost", "unit": UNITS[g], "parameters": {"unitcost": c}}
            for g, c in SELLER_COSTS[name].items()
        },
    }


class FixedUtilities:
    """Utility source for the UI server: the captured buyer, Celia's then Watson's costs."""

    def __init__(self) -> None:
        self.sellers = ["Celia", "Watson"]

    def __call__(self, kind: str) -> dict[str, Any]:
        if kind == "buyer":
            return BUYER
        name = self.sellers.pop(0)
        self.sellers.append(name)
        return seller_utility(name)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Server:
    """A uvicorn server in a thread on 127.0.0.1:``port``."""

    def __init__(self, app: FastAPI, port: int) -> None:
        self.port = port
        self.url = f"http://127.0.0.1:{port}"
        cfg = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning")
        self.server = uvicorn.Server(cfg)
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def __enter__(self) -> Server:
        self.thread.start()
        deadline = time.monotonic() + 10
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError(f"server on port {self.port} did not start")
            time.sleep(0.02)
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)


def tiny_agent(name: str, price: float, orchestrator: str) -> FastAPI:
    """A seller (named by /setUtility, else ``name``) that answers the human when addressed
    (or, as Celia, when nobody is): an utterance with "accept" gets an Accept of its last offer, anything else gets
    the offer of one cake's basics (2 eggs, 2 flour, 1 milk, 1 sugar) for ``price``."""
    app = FastAPI()
    state: dict[str, Any] = {"offer": None, "round": None, "name": name}
    tasks: set[asyncio.Task[None]] = set()

    async def relay(body: dict[str, Any]) -> None:
        async with httpx.AsyncClient(timeout=5) as c:
            await c.post(f"{orchestrator}/relayMessage", json=body)

    @app.post("/setUtility")
    async def set_utility(body: dict[str, Any]) -> dict[str, Any]:
        state["round"] = body.get("roundId")
        state["name"] = body.get("name") or name
        return {"status": "Acknowledged", "utility": body}

    @app.post("/startRound")
    @app.post("/endRound")
    @app.post("/receiveRejection")
    async def ack(body: dict[str, Any]) -> dict[str, str]:
        return {"status": "Acknowledged"}

    @app.post("/receiveMessage")
    async def receive(body: dict[str, Any]) -> dict[str, Any]:
        me = state["name"]
        addressee = body.get("addressee") or ""
        if body.get("speaker") == "Human" and (
            addressee == me or (not addressee and me == "Celia")
        ):
            if "accept" in str(body.get("text", "")).lower() and state["offer"]:
                bid = {**state["offer"], "type": "Accept"}
                text = f"Deal: {me} sells you that for ${bid['price']['value']:.2f}."
            else:
                quantity = {"egg": 2, "flour": 2, "milk": 1, "sugar": 1}
                bid = {"type": "SellOffer", "quantity": quantity,
                       "price": {"unit": "USD", "value": price}}  # fmt: skip
                state["offer"] = bid
                text = f"How about 2 egg 2 flour 1 milk 1 sugar for {price:.2f} USD?"
            msg = {"roundId": body.get("roundId"), "speaker": me, "addressee": "Human",
                   "role": "seller", "text": text, "bid": bid}  # fmt: skip
            task = asyncio.get_running_loop().create_task(relay(msg))
            tasks.add(task)
            task.add_done_callback(tasks.discard)
        return {"status": "Acknowledged", "interpretation": body}

    return app


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
        deadline = time.monotonic() + 10
        while not all(s.started for s in self.servers):
            if time.monotonic() > deadline:
                raise RuntimeError("servers did not start")
            time.sleep(0.02)
        return self

    def __exit__(self, *exc: object) -> None:
        for s in self.servers:
            s.should_exit = True
        self.thread.join(timeout=10)
