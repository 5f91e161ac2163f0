"""Spec audit: the original platform's deviations that humaine-compat.md says not to copy,
each checked against our running orchestrator (the ones already covered elsewhere are
listed in docs/humaine-spec-checklist.md). Where timing is the point the spec's
constants are used; elsewhere R0's gap is shortened."""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI, Request

from accord.leagues.humaine.orchestrator import create_orchestrator_app
from accord.leagues.humaine.rules import RuleConfig
from accord.leagues.humaine.testing import (
    COSTS_C,
    COSTS_W,
    Party,
    ServerThread,
    Stage,
    agent,
    human,
    operator_headers,
    round_body,
    start_round,
)
from accord.web.testing import SkipClock, VirtualClock


class SlowConfirmUI:
    """A human UI that acknowledges everything at once but takes ``delay`` seconds to
    answer /confirmAccept (a person looking before clicking)."""

    def __init__(self, delay: float) -> None:
        self.confirms: list[float] = []
        app = FastAPI()

        @app.post("/{route}")
        async def handle(route: str, request: Request) -> dict[str, str]:
            await request.body()
            if route == "confirmAccept":
                self.confirms.append(time.monotonic())
                await asyncio.sleep(delay)
            return {"status": "acknowledged"}

        self.server = ServerThread(app)

    def spec(self) -> dict[str, Any]:
        return {"protocol": "http", "host": "127.0.0.1", "port": self.server.port, "name": "ui"}


def unused_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def relay(client: httpx.Client, body: dict[str, Any]) -> tuple[bool, str | None, str]:
    r = client.post("/relayMessage", json=body)
    assert r.status_code == 200, r.text
    data = r.json()
    return data["permitted"], data["rule"], data["rationale"]


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Any]:
    """A factory: ``served(config, watson_delay=..., clock=...)`` starts an orchestrator
    with two recording agents and a recording human UI; all stop at the end."""
    stack: list[Any] = []

    def make(
        config: RuleConfig, watson_delay: float = 0.0, clock: Any = time.monotonic
    ) -> tuple[httpx.Client, Party, Party, Party]:
        parties = [Party("Celia"), Party("Watson", delay=watson_delay), Party("ui")]
        for p in parties:
            stack.append(p.__enter__())
        app = create_orchestrator_app(db_path=tmp_path / "eo.db", rule_config=config, clock=clock)
        srv = ServerThread(app)
        stack.append(srv.__enter__())
        client = httpx.Client(base_url=srv.url, timeout=10, headers=operator_headers(app))
        stack.append(client)
        return client, parties[0], parties[1], parties[2]

    yield make
    for item in reversed(stack):
        item.__exit__(None, None, None)


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Any, ...]]:
    """One orchestrator (R0's gap shortened to 1 s) for the tests where timing is not
    the point; each test runs its own round."""
    db = Path(tmp_path_factory.mktemp("deviations")) / "eo.db"
    app = create_orchestrator_app(db_path=db, rule_config=RuleConfig(human_gap=1.0))
    with Stage(app) as stage:
        yield stage.client, stage.celia, stage.watson, stage.ui


def new_round(client: httpx.Client, celia: Party, watson: Party, ui: Party, **kw: Any) -> str:
    agents = [celia.agent_spec(COSTS_C), watson.agent_spec(COSTS_W)]
    return start_round(client, round_body(agents, [ui.ui_spec()], **kw))


def test_r4_is_not_applied_to_the_human(shared: tuple[Any, ...]) -> None:
    """The original blocked long human utterances ("Excessive message length"); R4
    speaks of agent responses only."""
    client, celia, watson, ui = shared
    rid = new_round(client, celia, watson, ui)
    long_text = "Watson, " + " ".join(["please"] * 150)
    assert relay(client, human(rid, long_text, "Watson"))[:2] == (True, None)
    assert watson.wait_for("/receiveMessage", round_id=rid)[0]["text"] == long_text
    assert relay(client, agent(rid, "Watson", " ".join(["sure"] * 101)))[:2] == (False, "R4")


def test_client_clocks_never_count(shared: tuple[Any, ...]) -> None:
    """The original trusted a client-supplied ``now``: a message claiming a later time
    (or an older timestamp) must still be judged at its receipt."""
    client, celia, watson, ui = shared
    rid = new_round(client, celia, watson, ui)
    assert relay(client, human(rid, "Celia, 2 eggs?", "Celia"))[0]
    future = int(time.time() * 1000) + 60_000
    forged = human(rid, "Again!") | {"now": future, "timestamp": future}
    forged |= {"timeStamp": "2099-01-01T00:00:00.000Z"}
    assert relay(client, forged)[:2] == (False, "R0")
    # an agent claiming to answer within the addressee window of an old utterance
    late = agent(rid, "Watson", "2 eggs for 4") | {"now": 0, "timeStamp": "2000-01-01T00:00:00Z"}
    assert relay(client, late)[:2] == (False, "R2")  # Celia still has her 2 s


def test_r1_reserves_the_money_before_the_confirmation_arrives(tmp_path: Path) -> None:
    """The original checked R1 before an awaited confirmation, so two acceptances could
    both pass. Here the human UI takes 3 s to confirm; a second acceptance within
    that time is judged against the reserved budget and blocked."""
    ui = SlowConfirmUI(delay=3.0)
    clock = SkipClock()
    app = create_orchestrator_app(
        db_path=tmp_path / "eo.db", rule_config=RuleConfig(human_gap=0.2), clock=clock
    )
    with (
        Party("Celia") as celia,
        Party("Watson") as watson,
        ui.server,
        ServerThread(app) as srv,
        httpx.Client(base_url=srv.url, timeout=10, headers=operator_headers(app)) as client,
    ):
        agents = [celia.agent_spec(COSTS_C), watson.agent_spec(COSTS_W)]
        rid = start_round(client, round_body(agents, [ui.spec()], budget=10.0))
        assert relay(client, human(rid, "Watson, I accept 2 eggs for 8 dollars", "Watson"))[0]
        assert relay(client, agent(rid, "Watson", "Deal.", "Accept", {"egg": 2}, 8.0))[0]
        clock.skip(0.2)  # R0
        assert relay(client, human(rid, "Celia, I accept 3 eggs for 3 dollars", "Celia"))[0]
        verdict = relay(client, agent(rid, "Celia", "Deal.", "Accept", {"egg": 3}, 3.0))
        assert verdict[:2] == (False, "R1")
        assert (
            "accepting 3.00 USD would drive the human's budget of 2.00 USD negative" in (verdict[2])
        )
        assert len(ui.confirms) == 1 and time.monotonic() - ui.confirms[0] < 3.0  # unanswered
        state = client.get(f"/rounds/{rid}").json()
        assert state["remainingBudget"] == 2.0 and state["purchases"] == {"egg": 2}


def test_simultaneous_acceptances_never_overspend(shared: tuple[Any, ...]) -> None:
    """Both sellers accept at the same instant, each for more than half the budget:
    exactly one deal goes through and the budget never goes negative."""
    client, celia, watson, ui = shared
    rid = new_round(client, celia, watson, ui, budget=10.0)
    assert relay(client, human(rid, "I will pay 6 dollars for 2 eggs, whoever comes first"))[0]
    barrier = threading.Barrier(2)
    verdicts: dict[str, tuple[bool, str | None, str]] = {}

    def accept(name: str) -> None:
        with httpx.Client(base_url=str(client.base_url), timeout=10) as own:
            barrier.wait()
            verdicts[name] = relay(own, agent(rid, name, "Deal.", "Accept", {"egg": 2}, 6.0))

    threads = [threading.Thread(target=accept, args=(n,)) for n in ("Celia", "Watson")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(v[0] for v in verdicts.values()) == [False, True]
    loser = next(v for v in verdicts.values() if not v[0])
    assert loser[1] in ("R1", "R3")  # over budget, or simultaneous: either way blocked
    state = client.get(f"/rounds/{rid}").json()
    assert state["remainingBudget"] == 4.0 and state["purchases"] == {"egg": 2}
    assert len([d for d in state["deals"] if not d["cancelled"]]) == 1


def test_unaddressed_agent_is_freed_by_the_copy_of_the_addressees_reply(served: Any) -> None:
    """R2 with the spec's 2 s: Watson (unaddressed) is slow, 0.8 s per call, so his copy
    of Celia's reply leaves his queue only after the human's message, ~0.8 s after it.
    Before that his reply is premature and blocked; once the copy went out he may
    answer, well inside the 2 s. (The original kept the unaddressed agent waiting for
    the whole window; R2 frees it by the copy, and not before.)

    The rules' clock is virtual: the 2 s window cannot run out while the machine is slow,
    and the copy leaves Watson's queue at least 0.8 s (real) after Celia's reply, long
    after the premature answer below."""
    clock = VirtualClock(start=1000.0)
    client, celia, watson, ui = served(RuleConfig(), watson_delay=0.8, clock=clock)
    rid = new_round(client, celia, watson, ui)
    watson.wait_for("/startRound", round_id=rid)
    assert relay(client, human(rid, "Celia, I would like to buy 2 eggs.", "Celia"))[0]
    clock.advance(0.2)
    assert relay(client, agent(rid, "Celia", "2 eggs for 5 dollars.", price=5))[:2] == (True, None)
    clock.advance(0.25)
    permitted, rule, why = relay(client, agent(rid, "Watson", "2 eggs for 4.5 dollars."))
    assert (permitted, rule) == (False, "R2") and "has not been delivered to Watson" in why
    copy = watson.wait_for("/receiveMessage", 2, round_id=rid)[1]
    assert copy["text"] == "2 eggs for 5 dollars."
    permitted, rule, why = relay(client, agent(rid, "Watson", "2 eggs for 4.5 dollars."))
    assert (permitted, rule) == (True, None)
    assert why == "Unaddressed agent answering after Celia's reply"  # not the window's end
    assert clock.now() - 1000.0 < 2.0  # inside the window (virtual: exactly 0.45 s in)


def test_a_dead_and_a_slow_agent_never_stall_another_round(tmp_path: Path) -> None:
    """One slow agent stalled every relay of the original. Round A has a dead agent and
    one that takes 6 s per call (timeout 2 s); round B, on the same orchestrator, is
    served at once all the while (within 1.8 s: generous for a loaded machine, below the
    2 s a relay or delivery waiting for round A would take)."""
    clock = SkipClock()
    app = create_orchestrator_app(
        db_path=tmp_path / "two.db",
        rule_config=RuleConfig(human_gap=0.2),
        call_timeout=2.0,
        clock=clock,
    )
    with (
        Party("Celia", delay=6.0) as slow,
        Party("Celia") as celia,
        Party("Watson") as watson,
        Party("ui") as ui,
        ServerThread(app) as srv,
        httpx.Client(base_url=srv.url, timeout=10, headers=operator_headers(app)) as client,
    ):
        dead = watson.agent_spec(COSTS_W) | {"port": unused_port()}
        round_a = start_round(client, round_body([slow.agent_spec(COSTS_C), dead], []))
        round_b = new_round(client, celia, watson, ui)
        for i in range(3):
            relay(client, human(round_a, f"Celia, round A message {i}", "Celia"))
            t = time.monotonic()
            assert relay(client, human(round_b, f"Watson, round B message {i}", "Watson"))[0]
            assert time.monotonic() - t < 1.8
            watson.wait_for("/receiveMessage", i + 1, round_id=round_b)
            ui.wait_for("/receiveMessage", i + 1, round_id=round_b)
            assert max(watson.times("/receiveMessage")) - t < 1.8
            clock.skip(0.2)  # R0
        errors_a = client.get(f"/rounds/{round_a}").json()["deliveryErrors"]
        assert {e["party"] for e in errors_a} == {"Celia", "Watson"}
        assert client.get(f"/rounds/{round_b}").json()["deliveryErrors"] == []
