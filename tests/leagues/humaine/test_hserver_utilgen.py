"""The utility generator service (port 7021 by default) over HTTP."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import numpy as np
import pytest

from accord.leagues.humaine.testing import BUYER_UTILITY, COSTS_W, ServerThread, seller_utility
from accord.leagues.humaine.utility_generator import (
    SELLER_COST_RANGES,
    create_utility_generator_app,
    generate_buyer_utility,
    generate_seller_utility,
)


@pytest.fixture(scope="module")
def client() -> Iterator[httpx.Client]:
    with (
        ServerThread(create_utility_generator_app(seed=7)) as srv,
        httpx.Client(base_url=srv.url, timeout=10) as c,
    ):
        yield c


def test_seeded_draws_reproduce() -> None:
    a = generate_seller_utility(np.random.default_rng(3))
    b = generate_seller_utility(np.random.default_rng(3))
    c = generate_seller_utility(np.random.default_rng(4))
    assert a == b and a != c


def test_draws_within_appendix_a_ranges_in_cents() -> None:
    rng = np.random.default_rng(0)
    sellers = [generate_seller_utility(rng) for _ in range(300)]
    for good, (lo, hi) in SELLER_COST_RANGES.items():
        costs = np.array([s.costs[good] for s in sellers])
        assert costs.min() >= lo and costs.max() <= hi
        assert np.allclose(costs * 100, np.round(costs * 100))
        assert abs(costs.mean() - (lo + hi) / 2) < (hi - lo) * 0.06  # uniform: mean mid-range
    buyers = [generate_buyer_utility(rng) for _ in range(300)]
    values = np.array([b.cake.unit_value for b in buyers] + [b.pancake.unit_value for b in buyers])
    assert values.min() >= 15 and values.max() <= 30
    for b in buyers:
        t = b.cake.supplements["chocolate"]
        assert (t.min_quantity, t.max_quantity) == (3, 6)  # the table, not the text's (2, 5)
        assert 2 <= t.min_value <= 4 and 4 <= t.max_value <= 8
        assert (
            b.cake.supplements["vanilla"].min_quantity,
            b.cake.supplements["vanilla"].max_quantity,
        ) == (2, 4)
        assert (
            b.pancake.supplements["blueberry"].min_quantity,
            b.pancake.supplements["blueberry"].max_quantity,
        ) == (1, 3)


def test_generate_routes(client: httpx.Client) -> None:
    s = client.get("/generateUtility/seller").json()
    assert s["currencyUnit"] == "USD"
    assert set(s["utility"]) == set(SELLER_COST_RANGES)
    assert s["utility"]["egg"]["type"] == "unitcost" and s["utility"]["egg"]["unit"] == "each"
    b = client.get("/generateUtility/human").json()
    assert b["utility"]["cake"]["type"] == "unitvaluePlusSupplement"
    assert b["utility"]["pancake"]["parameters"]["supplement"]["blueberry"]["type"] == "trapezoid"
    assert (
        client.get("/generateUtility/agent?seed=5").json()
        == client.get("/generateUtility/seller?seed=5").json()
    )
    r = client.get("/generateUtility/baker")
    assert r.status_code == 404 and "unknown role 'baker'" in r.json()["error"]


def test_calculate_seller(client: httpx.Client) -> None:
    body = seller_utility(COSTS_W) | {
        "bundle": {"price": 8.21, "quantity": {"egg": 2, "flour": 2, "milk": 1, "sugar": 1}}
    }
    assert client.post("/calculateUtility/seller", json=body).json() == {
        "currencyUnit": "USD",
        "value": 4.04,
    }
    body["bundle"]["quantity"] = {"bread": 1}
    r = client.post("/calculateUtility/seller", json=body)
    assert r.status_code == 422 and "unknown good 'bread'" in r.json()["error"]


def test_calculate_buyer(client: httpx.Client) -> None:
    body = BUYER_UTILITY | {
        "bundle": {
            "cost": 20,
            "products": {
                "cake": {
                    "unit": "each",
                    "quantity": 1,
                    "supplement": [{"vanilla": {"unit": "teaspoon", "quantity": 4}}],
                },
                "pancake": {"unit": "each", "quantity": 1},
            },
        }
    }
    got = client.post("/calculateUtility/buyer", json=body).json()
    # 23.81 + 27.43 + 7.03 (4 tsp vanilla = the maximum) = 58.27
    assert got["value"] == 58.27
    assert got["breakdown"]["cake"]["supplement"] == [
        {"good": "vanilla", "quantity": 4, "utility": 7.03}
    ]


def test_check_allocation_original_example(client: httpx.Client) -> None:
    """The original generator's own example: 3 cakes and 2 pancake batches from 3 eggs."""
    body = {
        "allocation": {
            "products": {
                "cake": {
                    "unit": "each",
                    "quantity": 3,
                    "supplement": [
                        {
                            "chocolate": {"unit": "ounce", "quantity": 2},
                            "vanilla": {"unit": "teaspoon", "quantity": 2},
                        },
                        {"chocolate": {"unit": "ounce", "quantity": 3}},
                        {"vanilla": {"unit": "teaspoon", "quantity": 1}},
                    ],
                },
                "pancake": {
                    "unit": "each",
                    "quantity": 2,
                    "supplement": [{"blueberry": {"unit": "packet", "quantity": 2}}, {}],
                },
            }
        },
        "ingredients": {
            "egg": 3,
            "flour": 3,
            "milk": 3,
            "sugar": 4,
            "chocolate": 6,
            "vanilla": 2,
            "blueberry": 2,
        },
    }
    got = client.post("/checkAllocation", json=body).json()
    assert got["sufficient"] is False
    r = got["rationale"]
    assert r["egg"] == {"need": 8, "have": 3} and r["flour"] == {"need": 10, "have": 3}
    assert r["milk"] == {"need": 7, "have": 3} and r["sugar"] == {"need": 3, "have": 4}
    assert r["chocolate"] == {"need": 5, "have": 6} and r["vanilla"] == {"need": 3, "have": 2}
    assert r["blueberry"] == {"need": 2, "have": 2}


def test_optimize_allocation(client: httpx.Client) -> None:
    body = BUYER_UTILITY | {
        "ingredients": {"egg": 3, "flour": 4, "milk": 3, "sugar": 1, "blueberry": 3}
    }
    got = client.post("/optimizeAllocation", json=body).json()
    assert got["value"] == round(23.81 + 27.43 + 7.57, 2)
    assert got["allocation"]["products"]["pancake"]["supplement"] == [
        {"blueberry": {"unit": "packet", "quantity": 3}}
    ]


def test_bad_input(client: httpx.Client) -> None:
    r = client.post(
        "/checkAllocation", content=b"{nope", headers={"content-type": "application/json"}
    )
    assert r.status_code == 400 and "malformed JSON" in r.json()["error"]
    r = client.post("/calculateUtility/seller", json={"utility": {}})
    assert r.status_code == 422 and "bundle" in r.json()["error"]
