"""Language (issue 9, item 10): misspelled goods are matched, number words read in
prices, and an unknown good gets said so in the agent's reply, over HTTP with a real
orchestrator and our real agent services."""

from __future__ import annotations

import httpx
import pytest

from accord.leagues.humaine.agents.language import good_of, parse_utterance
from accord.leagues.humaine.agents.service import create_agent_app
from accord.leagues.humaine.agents.simple import RegexSeller
from accord.leagues.humaine.orchestrator import create_orchestrator_app
from accord.leagues.humaine.rules import RuleConfig
from accord.leagues.humaine.testing import (
    COSTS_C,
    COSTS_W,
    Party,
    ServerThread,
    human,
    operator_headers,
    round_body,
    secret_of,
    seller_utility,
    start_round,
)
from accord.web.testing import SkipClock, wait_until


@pytest.mark.parametrize(
    ("text", "goods", "price"),
    [
        ("Watson, 3 egss for $2", {"egg": 3}, 2.0),
        ("some suger please", {"sugar": None}, None),
        ("2 cups of flower and 1 cup of mlik", {"flour": 2, "milk": 1}, None),
        ("I will give you a dollar for 2 eggs", {"egg": 2}, 1.0),
        ("2 eggs for two fifty", {"egg": 2}, 2.5),
        ("2 eggs at three ninety-nine", {"egg": 2}, 3.99),
        ("2 eggs for twelve fifteen", {"egg": 2}, 12.15),
        ("2 eggs for two dollars fifty", {"egg": 2}, 2.5),
    ],
)
def test_misspelled_goods_and_spoken_prices_are_read(text, goods, price) -> None:
    act = parse_utterance(text)
    assert dict(act.goods) == goods and act.price == price


def test_real_words_near_a_good_are_not_taken_for_it() -> None:
    assert [good_of(w) for w in ("floor", "mile", "legs", "four", "apple")] == [None] * 5
    assert dict(parse_utterance("put 2 eggs on the floor for 3 dollars").goods) == {"egg": 2}


def test_unknown_goods_are_noted() -> None:
    act = parse_utterance("3 apples, 2 cups of salt and 2 eggs for 3 dollars")
    assert act.unknown == ("apples", "salt") and dict(act.goods) == {"egg": 2}
    assert parse_utterance("I need 5 minutes to think").unknown == ()


def test_an_agent_says_it_does_not_sell_an_unknown_good_and_offers_the_rest() -> None:
    clock = SkipClock()
    eo_app = create_orchestrator_app(rule_config=RuleConfig(human_gap=0.2), clock=clock)
    with (
        ServerThread(eo_app) as eo,
        Party("ui") as ui,
        httpx.Client(base_url=eo.url, timeout=10, headers=operator_headers(eo_app)) as client,
    ):
        sellers = {
            n: ServerThread(create_agent_app(RegexSeller(n, seed=1), eo.url)).__enter__()
            for n in ("Celia", "Watson")
        }
        try:
            agents = [
                {"name": n, "url": srv.url, "utilityFunction": seller_utility(c)}
                for (n, srv), c in zip(sellers.items(), (COSTS_C, COSTS_W), strict=True)
            ]
            rid = start_round(client, round_body(agents, [ui.ui_spec()], authenticated=True))
            person = {"X-Accord-Token": secret_of(ui, rid)}
            text = "Celia, I'd like 3 egss, 2 cups of flower and 4 apples. How much?"
            assert client.post(
                "/relayMessage", json=human(rid, text, "Celia"), headers=person
            ).json()["permitted"]
            said = [
                m for m in ui.wait_for("/receiveMessage", 2, round_id=rid)
                if m["speaker"] == "Celia"
            ]  # fmt: skip
            assert said[0]["text"].startswith("Sorry, I don't sell apples: I sell egg, flour")
            assert said[0]["bid"]["type"] == "SellOffer"
            assert said[0]["bid"]["quantity"] == {"egg": 3, "flour": 2}
            # nothing but an unknown good: the addressed seller still says so
            clock.skip(0.2)  # R0
            only = human(rid, "Celia, do you have 2 bananas?", "Celia")
            assert client.post("/relayMessage", json=only, headers=person).json()["permitted"]
            wait_until(
                lambda: [
                    m
                    for m in ui.bodies("/receiveMessage", rid)
                    if "bananas" in m["text"] and m["speaker"] == "Celia"
                ],  # fmt: skip
                "Celia's answer about bananas",
            )
        finally:
            for srv in sellers.values():
                srv.__exit__(None, None, None)
