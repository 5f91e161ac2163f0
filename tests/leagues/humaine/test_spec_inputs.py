"""Spec audit: bad input on every POST route of the orchestrator and the utility
generator gets a clear 4xx saying what was expected and what arrived; money and
quantities that would overflow are refused; the service keeps serving afterwards."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from accord.leagues.humaine.orchestrator import create_orchestrator_app
from accord.leagues.humaine.rules import RuleConfig
from accord.leagues.humaine.testing import (
    BUYER_UTILITY,
    COSTS_C,
    COSTS_W,
    ServerThread,
    Stage,
    agent,
    human,
    round_body,
    start_round,
)
from accord.leagues.humaine.utility_generator import create_utility_generator_app
from accord.web.testing import SkipClock, wait_until

ORCHESTRATOR_POSTS = (
    "/relayMessage",
    "/initializeRound",
    "/startRound",
    "/endRound",
    "/receiveHumanAllocation",
)
GENERATOR_POSTS = (
    "/calculateUtility/seller",
    "/calculateUtility/buyer",
    "/checkAllocation",
    "/optimizeAllocation",
)
JSON = {"content-type": "application/json"}


class Env(Stage):
    def body(self, **kw: Any) -> dict[str, Any]:
        agents = [self.celia.agent_spec(COSTS_C), self.watson.agent_spec(COSTS_W)]
        return round_body(agents, [self.ui.ui_spec()], **kw)

    def post(self, path: str, body: Any) -> httpx.Response:
        return self.client.post(path, json=body)

    def still_serving(self) -> None:
        rid = start_round(self.client, self.body())
        r = self.post("/relayMessage", human(rid, "Watson, 2 eggs please", "Watson"))
        assert r.status_code == 200 and r.json()["permitted"], r.text
        self.watson.wait_for("/receiveMessage", 1, round_id=rid)


CLOCK = SkipClock()
"""The orchestrator's clock: a test skips R0's gap instead of sleeping."""


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Env]:
    db = Path(tmp_path_factory.mktemp("spec_inputs")) / "eo.db"
    app = create_orchestrator_app(db_path=db, rule_config=RuleConfig(human_gap=0.2), clock=CLOCK)
    with Env(app) as env:
        yield env


@pytest.fixture(scope="module")
def gen() -> Iterator[httpx.Client]:
    with (
        ServerThread(create_utility_generator_app(seed=1)) as srv,
        httpx.Client(base_url=srv.url, timeout=10) as client,
    ):
        yield client


def failed(r: httpx.Response, status: int, *fragments: str) -> str:
    """The refusal has the status, the {status: Failed, error} shape and every fragment."""
    assert r.status_code == status, (r.status_code, r.text)
    body = r.json()
    assert body["status"] == "Failed", body
    for f in fragments:
        assert f in body["error"], (f, body["error"])
    return str(body["error"])


# --------------------------------------------------------------- malformed bodies
@pytest.mark.parametrize("path", ORCHESTRATOR_POSTS)
def test_orchestrator_routes_refuse_malformed_bodies(env: Env, path: str) -> None:
    c = env.client
    failed(c.post(path, content=b'{"roundId": ', headers=JSON), 400, "malformed JSON", "expected")
    failed(c.post(path, content=b"\xff\xfe{}", headers=JSON), 400, "malformed JSON")
    failed(c.post(path, json=[1, 2]), 422, "must be a JSON object", "list")
    failed(c.post(path, json=42), 422, "must be a JSON object", "int")
    big = b'{"pad": "' + b"x" * 300_000 + b'"}'
    failed(c.post(path, content=big, headers=JSON), 413, "300011 bytes", "limit is 262144")
    if path == "/endRound":  # an empty body is allowed: it means "the round in progress"
        r = c.post(path, content=b"")
        assert r.status_code in (404, 409) and r.json()["status"] == "Failed"
    else:
        failed(c.post(path, content=b"  "), 400, "empty request body")


@pytest.mark.parametrize("path", GENERATOR_POSTS)
def test_generator_routes_refuse_malformed_bodies(gen: httpx.Client, path: str) -> None:
    failed(gen.post(path, content=b"{nope", headers=JSON), 400, "malformed JSON")
    failed(gen.post(path, json=["egg"]), 422, "expected a JSON object, got list")


def test_service_still_serves_after_the_bad_bodies(env: Env) -> None:
    env.still_serving()


# ----------------------------------------------------------------- set-up errors
def test_round_set_up_errors_name_the_field(env: Env) -> None:
    body = env.body()
    del body["agents"][0]["port"]
    failed(env.post("/initializeRound", body), 422, "needs a port or a url")
    failed(env.post("/initializeRound", env.body() | {"agents": []}), 422, "agents")
    nine = [env.celia.agent_spec(COSTS_C) | {"name": f"S{i}"} for i in range(9)]
    failed(env.post("/initializeRound", round_body(nine)), 422, "agents")
    human_named = [env.celia.agent_spec(COSTS_C) | {"name": "Human"}]
    failed(env.post("/initializeRound", round_body(human_named)), 422, "may not be named 'Human'")
    bad_trap = env.body()
    cake = bad_trap["human"]["utilityFunction"]["utility"]["cake"]
    cake = cake | {"parameters": cake["parameters"] | {"supplement": {"chocolate": {
        "parameters": {"minQuantity": 6, "maxQuantity": 3, "minValue": 2, "maxValue": 4}}}}}  # fmt: skip
    bad_trap["human"] = {"utilityFunction": {"utility": BUYER_UTILITY["utility"] | {"cake": cake}}}
    failed(env.post("/initializeRound", bad_trap), 422, "1 <= minQuantity <= maxQuantity")
    failed(env.post("/initializeRound", env.body(budget=-5)), 422, "humanBudget must be")
    failed(env.post("/initializeRound", env.body(budget=1e12)), 422, "at most 1e+09 USD")
    failed(
        env.post("/initializeRound", env.body() | {"human": {"budget": 5e9}}),
        422,
        "at most 1e+09 USD",
    )
    rid = start_round(env.client, env.body())
    failed(env.post("/initializeRound", env.body(round_id=rid)), 409, "already started")


# --------------------------------------------------------------- message errors
def test_message_fields_are_bounded(env: Env) -> None:
    rid = start_round(env.client, env.body())
    r = env.post("/relayMessage", human(rid, "x" * 5000))
    assert r.status_code == 200 and r.json()["permitted"]
    failed(env.post("/relayMessage", human(rid, "x" * 5001)), 422, "5001 characters")
    long_name = agent(rid, "W" * 65, "hello")
    failed(env.post("/relayMessage", long_name), 422, "speaker", "64 characters")
    failed(env.post("/relayMessage", {"roundId": rid, "speaker": 5, "text": "hi"}), 422, "speaker")
    bad_bid = agent(rid, "Watson", "hi") | {"bid": ["SellOffer"]}
    failed(env.post("/relayMessage", bad_bid), 422, "bid")
    fractional = agent(rid, "Watson", "half an egg", quantity={"egg": 0.5})  # type: ignore[dict-item]
    failed(env.post("/relayMessage", fractional), 422, "quantity of egg must be a whole number")
    env.post("/relayMessage", human(rid, "Watson?", "Watson"))
    empty = agent(rid, "Watson", "nothing")
    empty["bid"]["quantity"] = {}
    failed(env.post("/relayMessage", empty), 422, "a SellOffer bid needs a non-empty quantity")
    wrong_role = agent(rid, "Watson", "I am the buyer now") | {"role": "buyer"}
    failed(env.post("/relayMessage", wrong_role), 403, "registered as the seller")
    assert env.post("/relayMessage", agent(rid, "Watson", "2 eggs for 4.5")).json()["permitted"]


def test_money_that_would_overflow_is_blocked_not_a_crash(env: Env) -> None:
    rid = start_round(env.client, env.body())
    env.post("/relayMessage", human(rid, "Watson, all your eggs?", "Watson"))
    huge = agent(rid, "Watson", "Deal, a fortune.", "Accept", {"egg": 2}, 1e300)
    r = env.post("/relayMessage", huge)
    assert r.status_code == 200, r.text
    assert (r.json()["permitted"], r.json()["rule"]) == (False, "R1")
    assert "Unusable price" in r.json()["rationale"]
    rej = env.watson.wait_for("/receiveRejection", 1, round_id=rid)[0]
    assert "at most 1e+09 USD" in rej["rationale"]
    # a price of 0 is a gift, and a deal: the human gets the goods for nothing
    CLOCK.skip(0.2)  # R0's gap (0.2 s here) after the human's last message
    env.post("/relayMessage", human(rid, "Watson, 2 eggs for 0 dollars?", "Watson"))
    gift = agent(rid, "Watson", "Have them for free.", "Accept", {"egg": 2}, 0.0)
    assert env.post("/relayMessage", gift).json()["permitted"]
    state = env.client.get(f"/rounds/{rid}").json()
    assert state["purchases"] == {"egg": 2} and state["remainingBudget"] == 50.0
    assert env.ui.wait_for("/confirmAccept", 1, round_id=rid)[0]["bid"]["price"]["value"] == 0.0


def test_allocation_errors_in_the_post_phase(env: Env) -> None:
    rid = start_round(env.client, env.body(duration=0.4, post=20))
    say = "Watson, 2 eggs, 2 flour, 1 milk, 1 sugar and 3 vanilla for $5?"
    env.post("/relayMessage", human(rid, say, "Watson"))
    kit = {"egg": 2, "flour": 2, "milk": 1, "sugar": 1, "vanilla": 3}
    assert env.post("/relayMessage", agent(rid, "Watson", "ok", "Accept", kit, 5.0)).json()[
        "permitted"
    ]
    wait_until(lambda: env.client.get(f"/rounds/{rid}").json()["phase"] == "post", "post phase")

    def alloc(payload: Any) -> httpx.Response:
        return env.post("/receiveHumanAllocation", {"roundId": rid, "payload": payload})

    failed(alloc({"cake": {"quantity": -1}}), 422, "quantity must be >= 0")
    failed(alloc({"cake": {"quantity": "one"}}), 422, "whole number")
    failed(alloc({"cake": {"unit": "each"}}), 422, "cake needs a 'quantity'")
    failed(alloc({"pancake": {"quantity": 0, "supplement": [{"blueberry": 2}]}}), 422, "0 items")
    failed(
        alloc({"pancake": {"quantity": 1, "supplement": [{"vanilla": 2}]}}), 422, "cannot flavour"
    )
    failed(
        alloc({"cake": {"quantity": 1, "supplement": [{"vanilla": {"quantity": "lots"}}]}}),
        422,
        "whole number",
    )
    failed(
        alloc({"cake": {"quantity": 1, "supplement": [{"vanilla": 4}]}}),
        422,
        "vanilla: need 4, have 3",
    )
    failed(alloc({"cake": {"quantity": 10**15}}), 422, "egg: need")
    # a number no browser holds exactly is refused at the door (the web layer's bounds)
    failed(alloc({"cake": {"quantity": 10**30}}), 422, "is out of range")
    failed(env.post("/receiveHumanAllocation", {"roundId": rid, "payload": [1]}), 422, "payload")
    ok = alloc(
        {"cake": {"quantity": 1, "supplement": [{"vanilla": {"unit": "teaspoon", "quantity": 3}}]}}
    )
    assert ok.json() == {"roundId": rid, "status": "Acknowledged"}
    # the last valid Save stands; the bad ones above changed nothing
    assert env.client.get(f"/rounds/{rid}").json()["allocation"]["cake"]["supplement"] == [
        {"vanilla": {"unit": "teaspoon", "quantity": 3}}
    ]


def test_reading_routes_refuse_unknown_rounds(env: Env) -> None:
    failed(env.client.get("/rounds/nope"), 404, "unknown roundId 'nope'")
    failed(env.client.get("/viewQueue", params={"roundId": "nope"}), 404, "unknown roundId")
    failed(env.client.get("/viewTotals", params={"roundId": "nope"}), 404, "unknown roundId")
    start_round(env.client, env.body())
    start_round(env.client, env.body())
    failed(env.client.get("/viewTotals"), 409, "give a roundId for /viewTotals")


# ----------------------------------------------------------------- generator
def test_generator_bad_values(gen: httpx.Client) -> None:
    seller = {
        "currencyUnit": "USD",
        "utility": {"egg": {"type": "unitcost", "unit": "each", "parameters": {"unitcost": 0.3}}},
    }
    calc = "/calculateUtility/seller"
    failed(gen.post(calc, json=seller | {"bundle": {"quantity": {"egg": 1}}}), 422, "bundle.price")
    inf = b'{"utility": {"egg": {"parameters": {"unitcost": 0.3}}}, "bundle": {"price": Infinity}}'
    failed(gen.post(calc, content=inf, headers=JSON), 422, "Infinity is not a number")
    neg = seller | {"bundle": {"price": 1, "quantity": {"egg": -1}}}
    failed(gen.post(calc, json=neg), 422, "quantity of egg must be >= 0, got -1")
    r = gen.post("/calculateUtility/baker", json=seller | {"bundle": {"price": 1}})
    failed(r, 404, "unknown role 'baker'")
    no_cost = {"utility": {"egg": {"parameters": {}}}, "bundle": {"price": 1}}
    failed(gen.post(calc, json=no_cost), 422, "unitcost")
    check = {"ingredients": {"egg": "many"}, "allocation": {"products": {}}}
    failed(gen.post("/checkAllocation", json=check), 422, "whole number")
    buyer = BUYER_UTILITY | {"bundle": {"products": {"pie": {"quantity": 1}}}}
    failed(gen.post("/calculateUtility/buyer", json=buyer), 422, "unknown product 'pie'")


def test_generated_utilities_have_the_captured_original_shape(gen: httpx.Client) -> None:
    """GET /generateUtility/{seller|buyer}: the same nesting and keys as the bodies the
    original sent to agents and to the human UI (humaine-api-examples.json)."""
    captures = json.loads((Path(__file__).parent / "data" / "hserver_captures.json").read_text())

    def shape(x: Any) -> Any:
        return {k: shape(v) for k, v in x.items()} if isinstance(x, dict) else type(x).__name__

    seller = gen.get("/generateUtility/seller").json()
    want = captures["EO -> agent /setUtility"]["body"]
    assert shape(seller) == shape({k: want[k] for k in ("currencyUnit", "utility")})
    buyer = gen.get("/generateUtility/buyer").json()
    want = captures["EO -> human UI /setUtility"]["body"]
    assert shape(buyer) == shape({k: want[k] for k in ("currencyUnit", "utility")})
    assert (
        buyer["utility"]["cake"]["parameters"]["supplement"]["chocolate"]["parameters"][
            "minQuantity"
        ]
        == 3
    )


def test_optimiser_refuses_absurd_quantities_at_once(gen: httpx.Client) -> None:
    """The search grows with the cube of the number of items: absurd goods get a 422
    in well under a second instead of hanging the service."""
    base = {"egg": 10**6, "flour": 10**6, "milk": 10**6, "sugar": 10**6}
    t = time.monotonic()
    r = gen.post("/optimizeAllocation", json=BUYER_UTILITY | {"ingredients": base})
    failed(r, 422, "the optimiser handles at most 1000")
    assert time.monotonic() - t < 1.0
    # huge flavourings with few items are fine: what no item can take is ignored
    few = {"egg": 3, "flour": 4, "milk": 3, "sugar": 1, "vanilla": 10**15, "blueberry": 10**15}
    got = gen.post("/optimizeAllocation", json=BUYER_UTILITY | {"ingredients": few}).json()
    assert got["value"] == round(23.81 + 7.03 + 27.43 + 7.57, 2)
