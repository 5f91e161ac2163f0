"""Utility sources and the orchestrator client of the manager, against real services."""

from __future__ import annotations

import socket
import threading

import pytest
import uvicorn

from accord.leagues.humaine.manager.competition import Competition
from accord.leagues.humaine.manager.services import (
    OrchestratorClient,
    ServiceError,
    http_utility_source,
    local_utility_source,
)
from accord.leagues.humaine.manager.store import ManagerStore
from accord.leagues.humaine.utility import BuyerUtility, SellerUtility
from accord.leagues.humaine.utility_generator import create_utility_generator_app
from accord.web.testing import wait_until


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def generator_url():
    port = free_port()
    server = uvicorn.Server(
        uvicorn.Config(
            create_utility_generator_app(7), host="127.0.0.1", port=port, log_level="warning"
        )  # fmt: skip
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    wait_until(lambda: server.started, "the utility generator's start")
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(10)


def test_utilities_from_the_running_generator_are_valid(generator_url):
    source = http_utility_source(generator_url)
    seller = SellerUtility.from_wire(source("seller"))
    assert 0.25 <= seller.costs["egg"] <= 0.5
    buyer = BuyerUtility.from_wire(source("buyer"))
    assert 15 <= buyer.cake.unit_value <= 30
    with pytest.raises(ServiceError, match="generateUtility/robot failed"):
        source("robot")


def test_an_unreachable_generator_or_orchestrator_is_a_clear_error():
    url = f"http://127.0.0.1:{free_port()}"
    with pytest.raises(ServiceError, match=f"utility generator at {url}/generateUtility/seller"):
        http_utility_source(url)("seller")
    with pytest.raises(ServiceError, match="orchestrator unreachable"):
        OrchestratorClient(url, timeout=1).start_round("r", [], {}, {})


def test_local_draws_are_valid_and_reproducible_per_seed():
    a, b = local_utility_source(5), local_utility_source(5)
    assert [a("seller"), a("buyer")] == [b("seller"), b("buyer")]
    assert local_utility_source(6)("seller") != local_utility_source(5)("seller")
    BuyerUtility.from_wire(a("buyer"))
    with pytest.raises(ValueError, match="must be 'seller' or 'buyer'"):
        a("robot")


def test_a_competition_redrawn_from_the_same_seed_gets_the_same_utilities():
    def planned(seed: int) -> list:
        c = Competition(ManagerStore(":memory:"))
        for name in ("a", "b", "c"):
            c.store.add_agent(name, "127.0.0.1", 9000)
        c.store.add_human("h")
        c.update_settings({"nPools": 1, "seed": seed})
        c.plan_pools()
        return [
            (r.celia, r.watson, c.store.utility(r.celia_utility)["body"], r.human)
            for r in c.store.rounds()
        ]

    assert planned(3) == planned(3)
    assert planned(3) != planned(4)
