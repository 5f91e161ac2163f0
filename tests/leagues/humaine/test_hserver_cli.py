"""``accord humaine up``: the whole stack on free loopback ports, and a round through it
with the real default agents."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner

from accord.leagues.humaine.cli import app, build_stack, serve_all
from accord.leagues.humaine.testing import BUYER_UTILITY, Party, human, secret_of
from accord.web.testing import wait_until


def test_up_starts_and_answers(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        app, ["up", "--port-base", "0", "--data", str(tmp_path), "--exit-after", "2", "--check"]
    )
    assert result.exit_code == 0, result.output
    assert "check orchestrator: ok" in result.output
    assert "check utility generator: ok" in result.output
    assert "http://127.0.0.1:" in result.output
    assert (tmp_path / "orchestrator.sqlite").exists()


def test_round_through_the_stack_with_default_agents(tmp_path: Path) -> None:
    services, notes = build_stack("127.0.0.1", 0, tmp_path, "strong", "regex", True, False, 1)
    names = [s.name for s in services]
    if not any(n.startswith("agent Watson") for n in names):
        pytest.skip(f"agents package unavailable: {notes}")
    url = {s.name.split(" (")[0]: s.url for s in services}
    stop = threading.Event()
    thread = threading.Thread(
        target=lambda: asyncio.run(serve_all(services, should_stop=stop.is_set)), daemon=True
    )
    thread.start()
    try:
        with Party("ui") as ui, httpx.Client(timeout=10, trust_env=False) as client:

            def healthy() -> bool:
                try:
                    return client.get(url["orchestrator"] + "/health").status_code == 200
                except httpx.HTTPError:
                    return False

            wait_until(healthy, "the orchestrator's /health")
            gen = url["utility generator"]
            agents = []
            for name in ("Celia", "Watson"):
                port = int(url[f"agent {name}"].rsplit(":", 1)[1])
                utility = client.get(f"{gen}/generateUtility/seller", params={"seed": 3}).json()
                agents.append(
                    {"host": "127.0.0.1", "port": port, "name": name, "utilityFunction": utility}
                )
            body = {
                "agents": agents,
                "human": {"utilityFunction": BUYER_UTILITY},
                "durations": {"warmUp": 0, "round": 30, "post": 5},
                "humanUIs": [ui.ui_spec()],
            }
            eo = url["orchestrator"]
            admin = {"X-Accord-Admin": (tmp_path / "admin-secret").read_text().strip()}
            rid = client.post(eo + "/initializeRound", json=body, headers=admin).json()["roundId"]
            replies = client.post(eo + "/startRound", json={"roundId": rid}, headers=admin).json()
            assert [r["utility"]["name"] for r in replies[-2:]] == ["Celia", "Watson"]
            # the agents' /startRound went into their ordered outboxes with the UI's, so
            # it reaches them before the message below
            ui.wait_for("/startRound", 1, round_id=rid)
            text = "Watson, I would like to buy 2 eggs and 2 cups of flour"
            secret = {"X-Accord-Token": secret_of(ui, rid)}  # the person's UI's
            r = client.post(eo + "/relayMessage", json=human(rid, text, "Watson"), headers=secret)
            assert r.json()["permitted"]
            said = wait_until(
                lambda: [m for m in ui.bodies("/receiveMessage", rid) if m["speaker"] == "Watson"],
                "Watson's answer in the UI",
            )
            assert said[0]["bid"]["type"] == "SellOffer"
            assert said[0]["bid"]["quantity"].get("egg") == 2
    finally:
        stop.set()
        thread.join(10)
