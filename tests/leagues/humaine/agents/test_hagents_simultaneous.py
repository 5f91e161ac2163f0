"""R3's simultaneous replies (issue 9, item 3) against two real agent services that
answer every human utterance at once: of two replies received less than
``RuleConfig.simultaneity`` (50 ms) apart, the first is granted and the second blocked,
whenever its copy of the first went out."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import httpx

from accord.leagues.humaine.agents.base import Heard, SellerAgent
from accord.leagues.humaine.agents.service import create_agent_app
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

TRIES = 16
WINDOW = RuleConfig().simultaneity


class Eager(SellerAgent):
    """Offers 2 eggs the moment it hears the human (both sellers do: they collide)."""

    kind = "eager"

    def on_human(self, heard: Heard) -> None:
        self.offer({"egg": 2}, 4.0 if self.name == "Celia" else 4.5)


def spec(name: str, url: str, costs: Mapping[str, float]) -> dict[str, Any]:
    host, port = url.removeprefix("http://").split(":")
    return {"name": name, "host": host, "port": int(port), "utilityFunction": seller_utility(
        dict(costs))}  # fmt: skip


def test_simultaneous_replies_of_two_real_agents_grant_the_first_and_block_the_second() -> None:
    clock = SkipClock()  # real time (R3's window is the point), R0's gap skipped
    eo_app = create_orchestrator_app(rule_config=RuleConfig(human_gap=0.2), clock=clock)
    with (
        ServerThread(eo_app) as eo,
        Party("ui") as ui,
        httpx.Client(base_url=eo.url, timeout=10, headers=operator_headers(eo_app)) as client,
    ):
        celia = ServerThread(create_agent_app(Eager("Celia"), eo.url)).__enter__()
        watson = ServerThread(create_agent_app(Eager("Watson"), eo.url)).__enter__()
        try:
            agents = [spec("Celia", celia.url, COSTS_C), spec("Watson", watson.url, COSTS_W)]
            body = round_body(agents, [ui.ui_spec()], authenticated=True, duration=60)
            rid = start_round(client, body)
            person = {"X-Accord-Token": secret_of(ui, rid)}
            pairs = []
            for i in range(TRIES):
                said = client.post(
                    "/relayMessage", json=human(rid, f"I would like 2 eggs ({i})"), headers=person
                )
                assert said.json()["permitted"], said.text

                def judged() -> list[Any]:  # both replies judged
                    log = client.get(f"/rounds/{rid}").json()["decisions"]
                    last_h = max(j for j, d in enumerate(log) if d["speaker"] == "Human")
                    replies = [d for d in log[last_h + 1 :] if d["speaker"] != "Human"]
                    return replies if len(replies) >= 2 else []

                pairs.append(wait_until(judged, "both replies judged")[:2])
                clock.skip(0.2)  # R0
        finally:
            celia.__exit__(None, None, None)
            watson.__exit__(None, None, None)
    simultaneous = 0
    for first, second in pairs:
        gap = second["t"] - first["t"]
        assert gap >= 0  # judged in the order received
        if gap < WINDOW:
            simultaneous += 1
            assert first["permitted"], first
            assert (second["permitted"], second["rule"]) == (False, "R3"), (gap, second)
            assert second["rationale"].startswith("Simultaneous reply")
        else:
            assert first["permitted"] and second["permitted"], (gap, first, second)
    assert simultaneous >= 2, f"the agents did not collide ({simultaneous} of {TRIES})"
