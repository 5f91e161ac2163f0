"""Seller agents' callbacks in-process, on a virtual clock."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from accord.leagues.humaine.agents.base import NotBound, SellerAgent
from accord.leagues.humaine.agents.fastmode import VirtualLoop
from accord.leagues.humaine.agents.simple import RegexSeller
from accord.leagues.humaine.agents.strong import StrongSeller

COSTS = {
    "egg": 0.5,
    "flour": 0.76,
    "sugar": 0.63,
    "milk": 0.24,
    "chocolate": 0.36,
    "blueberry": 0.44,
    "vanilla": 0.25,
}


def utility_body(name: str, round_id: str = "r-1") -> dict[str, Any]:
    units = {
        "egg": "each",
        "flour": "cup",
        "sugar": "cup",
        "milk": "cup",
        "chocolate": "ounce",
        "blueberry": "packet",
        "vanilla": "teaspoon",
    }
    utility = {
        g: {"type": "unitcost", "unit": units[g], "parameters": {"unitcost": c}}
        for g, c in COSTS.items()
    }
    return {"currencyUnit": "USD", "utility": utility, "name": name, "roundId": round_id}


class Ctx:
    """A context on a virtual loop that records what the agent relays."""

    def __init__(self, loop: VirtualLoop) -> None:
        self.loop = loop
        self.sent: list[tuple[float, dict[str, Any]]] = []

    def now(self) -> float:
        return self.loop.now

    def timestamp(self) -> str:
        return f"t={self.loop.now:.3f}"

    def send(self, message: dict[str, Any]) -> None:
        self.sent.append((self.loop.now, message))

    def call_later(self, delay: float, fn: Callable[[], None]) -> None:
        self.loop.call_later(delay, fn)


def started(agent: SellerAgent) -> tuple[SellerAgent, Ctx, VirtualLoop]:
    loop = VirtualLoop()
    ctx = Ctx(loop)
    agent.bind(ctx)
    assert agent.set_utility(utility_body(agent.name))["status"] == "Acknowledged"
    assert agent.start_round({"roundId": "r-1", "roundDuration": 300}) == {"status": "Acknowledged"}
    return agent, ctx, loop


def human(text: str, addressee: str = "") -> dict[str, Any]:
    return {
        "roundId": "r-1",
        "speaker": "Human",
        "addressee": addressee,
        "text": text,
        "role": "buyer",
    }


def echo(message: dict[str, Any]) -> dict[str, Any]:
    """What the orchestrator broadcasts to agents: the message without its bid."""
    return {k: v for k, v in message.items() if k != "bid"}


def cost(bundle: dict[str, int]) -> float:
    return sum(COSTS[g] * n for g, n in bundle.items())


# ----------------------------------------------------------------- set-up callbacks
def test_set_utility_acknowledges_with_a_copy() -> None:
    agent = RegexSeller("Celia")
    body = utility_body("Watson")
    reply = agent.set_utility(body)
    assert reply == {"status": "Acknowledged", "utility": body, "roundId": "r-1"}
    assert agent.name == "Watson" and agent.costs["egg"] == 0.5


def test_set_utility_failures_are_explained() -> None:
    agent = RegexSeller()
    assert agent.set_utility(None) == {"status": "Failed; no message body", "utility": None}
    bad = agent.set_utility({"utility": {"egg": {"parameters": {"unitcost": "cheap"}}}})
    assert bad["utility"] is None
    assert bad["status"].startswith("Failed; utility.egg.parameters.unitcost must be a number")


def test_receive_message_interprets() -> None:
    agent, _, _ = started(RegexSeller("Watson"))
    reply = agent.receive_message(human("Watson I'd like to buy 5 eggs for $2", "Watson"))
    assert reply["status"] == "Acknowledged"
    assert reply["interpretation"]["speaker"] == "Human"
    assert reply["interpretation"]["act"] == {"kind": "offer", "goods": {"egg": 5}, "price": 2.0}
    assert agent.receive_message({})["status"].startswith("Failed")


def test_speaking_without_context_is_refused() -> None:
    agent = RegexSeller("Celia")
    agent.set_utility(utility_body("Celia"))
    agent.start_round({})
    with pytest.raises(NotBound, match="call bind"):
        agent.offer({"egg": 1}, 1.0)


def test_end_round_silences() -> None:
    agent, ctx, _ = started(RegexSeller("Watson"))
    assert agent.end_round({"roundId": "r-1"}) == {"status": "Acknowledged"}
    agent.receive_message(human("Watson, 2 eggs please", "Watson"))
    assert ctx.sent == []


# ---------------------------------------------------------------------- regex seller
def test_regex_seller_offers_markup_over_cost() -> None:
    agent, ctx, _ = started(RegexSeller("Watson", seed=4))
    agent.receive_message(human("Watson, I'd like 5 eggs and 2 cups of milk", "Watson"))
    assert len(ctx.sent) == 1
    _, msg = ctx.sent[0]
    assert {k: msg[k] for k in ("speaker", "role", "addressee", "roundId")} == {
        "speaker": "Watson",
        "role": "seller",
        "addressee": "Human",
        "roundId": "r-1",
    }
    bid = msg["bid"]
    assert bid["type"] == "SellOffer" and bid["quantity"] == {"egg": 5, "milk": 2}
    assert bid["price"]["unit"] == "USD"
    c = cost({"egg": 5, "milk": 2})
    assert 1.5 * c - 0.01 <= bid["price"]["value"] <= 2.5 * c + 0.01


def test_regex_seller_ignores_the_other_sellers_customer() -> None:
    agent, ctx, _ = started(RegexSeller("Watson"))
    agent.receive_message(human("Celia, I'd like 5 eggs", "Celia"))
    agent.receive_message(human("Celia, I'd like 5 eggs"))  # addressee only in the text
    assert ctx.sent == []


def test_regex_seller_accepts_acceptance_of_its_offer() -> None:
    agent, ctx, _ = started(RegexSeller("Watson"))
    agent.receive_message(human("I want 3 eggs"))
    _, offer = ctx.sent[-1]
    agent.receive_message(echo(offer))
    agent.receive_message(human("OK, I accept your offer.", "Watson"))
    _, deal = ctx.sent[-1]
    assert deal["bid"]["type"] == "Accept"
    assert deal["bid"]["quantity"] == {"egg": 3}
    assert deal["bid"]["price"] == offer["bid"]["price"]


def test_regex_seller_accepts_good_offer_and_counters_bad_one() -> None:
    agent, ctx, _ = started(RegexSeller("Watson", accept_ratio=1.25))
    agent.receive_message(human("Watson, 4 eggs for $2.50", "Watson"))  # cost 2.00, 1.25x
    assert ctx.sent[-1][1]["bid"] == {
        "type": "Accept",
        "quantity": {"egg": 4},
        "price": {"unit": "USD", "value": 2.5},
    }
    agent.receive_message(human("Watson, 4 eggs for $2.49", "Watson"))
    assert ctx.sent[-1][1]["bid"]["type"] == "SellOffer"
    assert ctx.sent[-1][1]["bid"]["price"]["value"] >= 3.0


# --------------------------------------------------------------------- strong seller
def test_strong_seller_answers_inside_the_r2_window_once() -> None:
    agent, ctx, loop = started(StrongSeller("Celia"))
    loop.call_later(10.0, lambda: agent.receive_message(human("Celia, 2 eggs please", "Celia")))
    loop.run(until=20.0)
    assert len(ctx.sent) == 1
    t, msg = ctx.sent[0]
    assert 10.0 < t < 12.0
    assert msg["bid"]["type"] == "SellOffer" and msg["bid"]["quantity"] == {"egg": 2}
    assert len(msg["text"].split()) <= 100


def test_strong_seller_waits_for_the_addressed_rival_then_undercuts() -> None:
    agent, ctx, loop = started(StrongSeller("Celia", follow_delay=0.25))
    loop.call_later(1.0, lambda: agent.receive_message(human("Watson, 4 eggs please", "Watson")))
    rival = {
        "speaker": "Watson",
        "addressee": "Human",
        "role": "seller",
        "text": "How about if I sell you 4 eggs for $5.00?",
    }
    loop.call_later(1.5, lambda: agent.receive_message(rival))
    loop.run(until=1.7)
    assert ctx.sent == []  # not before the rival's message + follow delay
    loop.run(until=10.0)
    assert len(ctx.sent) == 1
    t, msg = ctx.sent[0]
    assert t == pytest.approx(1.75)
    price = msg["bid"]["price"]["value"]
    assert price < 5.0 and price >= agent.floor({"egg": 4})
    assert msg["bid"]["quantity"] == {"egg": 4}
    assert "beat Watson" in msg["text"]


def test_strong_seller_takes_the_turn_when_the_rival_is_silent() -> None:
    agent, ctx, loop = started(StrongSeller("Celia", window=2.0))
    loop.call_later(1.0, lambda: agent.receive_message(human("Watson, 4 eggs please", "Watson")))
    loop.run(until=3.0)
    assert ctx.sent == []
    loop.run(until=10.0)
    assert len(ctx.sent) == 1 and ctx.sent[0][0] == pytest.approx(3.1)


def test_strong_seller_never_goes_below_its_floor() -> None:
    agent, ctx, loop = started(StrongSeller("Celia", min_margin=0.25))
    agent.receive_message(human("I need 10 eggs"))
    cheap = {"speaker": "Watson", "addressee": "Human", "text": "I can give you 10 eggs for $1."}
    agent.receive_message(cheap)
    loop.run(until=5.0)
    _, msg = ctx.sent[-1]
    assert msg["bid"]["price"]["value"] == pytest.approx(round(cost({"egg": 10}) * 1.25 + 0.005, 2))


def test_strong_seller_accepts_a_price_at_its_ask_and_counters_a_low_one() -> None:
    agent, ctx, loop = started(StrongSeller("Celia", max_markup=1.0, min_margin=0.25, step=0.0))
    agent.receive_message(human("Celia, 2 eggs for $3", "Celia"))  # cost 1.00, ask 2.00
    loop.run(until=4.0)
    assert ctx.sent[-1][1]["bid"]["type"] == "Accept"
    assert ctx.sent[-1][1]["bid"]["price"]["value"] == 3.0
    loop.call_later(6.0, lambda: agent.receive_message(human("Celia, 2 eggs for $1.10", "Celia")))
    loop.run(until=12.0)
    assert ctx.sent[-1][1]["bid"]["type"] == "SellOffer"
    assert ctx.sent[-1][1]["bid"]["price"]["value"] == pytest.approx(2.0)


def test_strong_seller_concedes_after_rejections() -> None:
    agent, ctx, loop = started(StrongSeller("Celia", step=0.2))
    prices = []
    for i in range(3):
        text = "Celia, 6 eggs please" if i == 0 else "No, too expensive, Celia"
        loop.call_at(6.0 * i + 0.01, lambda text=text: agent.receive_message(human(text, "Celia")))
        loop.run(until=6.0 * i + 5.0)
        _, msg = ctx.sent[-1]
        agent.receive_message(echo(msg))
        prices.append(msg["bid"]["price"]["value"])
    assert prices[0] > prices[1] > prices[2] >= agent.floor({"egg": 6})


def test_strong_seller_retries_after_a_simultaneous_block_only() -> None:
    agent, ctx, loop = started(StrongSeller("Celia"))
    agent.receive_message(human("3 eggs please"))
    loop.run(until=2.0)
    assert len(ctx.sent) == 1
    first = ctx.sent[0][1]
    agent.receive_rejection({**first, "rationale": "Simultaneous reply: Watson's message went out"})
    loop.run(until=4.0)
    assert len(ctx.sent) == 2
    agent.receive_rejection({**ctx.sent[1][1], "rationale": "Agent speaking twice since the most"})
    loop.run(until=8.0)
    assert len(ctx.sent) == 2


def test_strong_seller_confirms_its_own_offer_on_acceptance() -> None:
    agent, ctx, loop = started(StrongSeller("Celia"))
    agent.receive_message(human("Celia, 2 cups of flour and 1 cup of sugar", "Celia"))
    loop.run(until=3.0)
    offer = ctx.sent[-1][1]
    agent.receive_message(echo(offer))
    loop.call_later(5.5, lambda: agent.receive_message(human("OK, I accept your offer.")))
    loop.run(until=9.0)
    deal = ctx.sent[-1][1]
    assert deal["bid"]["type"] == "Accept"
    assert deal["bid"]["quantity"] == offer["bid"]["quantity"]
    assert deal["bid"]["price"] == offer["bid"]["price"]


def test_strong_seller_leaves_an_acceptance_of_the_rivals_offer_alone() -> None:
    agent, ctx, loop = started(StrongSeller("Celia"))
    agent.receive_message(human("2 eggs please"))
    agent.receive_message({"speaker": "Watson", "addressee": "Human", "text": "2 eggs for $3."})
    loop.run(until=3.0)
    n = len(ctx.sent)
    loop.call_later(6.0, lambda: agent.receive_message(human("Watson, I accept", "Watson")))
    loop.run(until=12.0)
    assert len(ctx.sent) == n
