"""The person confirms a deal: the UI server holds its /confirmAccept answer until
Confirm or Decline is clicked (``POST api/decide``) or the timeout declines; the
orchestrator refunds a declined deal and keeps delivering everything meanwhile."""

from __future__ import annotations

import concurrent.futures
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from hui_kit import KEYS, join
from test_ui_server import ACCEPT, BUYER, RID, closed_port

from accord.leagues.humaine.orchestrator import create_orchestrator_app
from accord.leagues.humaine.rules import RuleConfig
from accord.leagues.humaine.testing import (
    COSTS_C,
    COSTS_W,
    Party,
    ServerThread,
    agent,
    human,
    loopback_socket,
    operator_headers,
    round_body,
    start_round,
)
from accord.leagues.humaine.ui_server import create_ui_app
from accord.web.testing import SkipClock, wait_until

pytestmark = pytest.mark.timeout(300)  # a hang guard (a loaded machine is slow, not hung)


def wait(what: str, get: Callable[[], Any]) -> Any:
    """Poll ``get`` until it returns something truthy (:func:`wait_until`)."""
    return wait_until(get, what)


def held(answer: concurrent.futures.Future[Any], seconds: float = 0.3) -> bool:
    """Whether ``answer`` is still unanswered after waiting ``seconds`` for it (a negative
    check: a loaded machine can only make it pass more slowly, never wrongly fail)."""
    return not concurrent.futures.wait([answer], timeout=seconds).done


@pytest.fixture
def ui(tmp_path: Path) -> Iterator[Callable[..., httpx.Client]]:
    """``ui(confirm_timeout=...)`` (default 60 s: never reached by a test that clicks): a UI server (orchestrator unreachable) in an active
    round, served on loopback; returns a client to it. ``ui(db=...)`` restarts on the
    file of the first one (no new round)."""
    stack: list[Any] = []
    pool = concurrent.futures.ThreadPoolExecutor(4)

    def make(confirm_timeout: float = 60.0, db: Path | None = None) -> httpx.Client:
        app = create_ui_app(
            orchestrator_url=f"http://127.0.0.1:{closed_port()}",
            db_path=db or tmp_path / "ui.sqlite",
            confirm_timeout=confirm_timeout,
            **KEYS,
        )
        server = ServerThread(app).__enter__()
        client = join(httpx.Client(base_url=server.url, timeout=30))
        stack.extend([server, client])
        client.pool = pool  # type: ignore[attr-defined]
        if db is not None:
            return client
        meta = {"roundId": RID, "durations": {"warmUp": 0, "round": 60, "post": 10},
                "humanBudget": {"value": 50}}  # fmt: skip
        client.post("/sendRoundMetadata", json=meta)
        client.post("/setUtility", json={**BUYER, "roundId": RID})
        client.post("/startRound", json={"roundId": RID, "roundDuration": 60})
        return client

    yield make
    pool.shutdown(wait=True)
    for part in reversed(stack):
        part.__exit__(None, None, None)


def ask(c: httpx.Client, body: dict[str, Any] = ACCEPT) -> concurrent.futures.Future[Any]:
    """POST /confirmAccept from another thread (the answer waits for the person)."""
    return c.pool.submit(lambda: c.post("/confirmAccept", json=body).json())  # type: ignore[attr-defined]


def state(c: httpx.Client) -> dict[str, Any]:
    return dict(c.get("/api/state").json())


def test_the_answer_waits_for_the_persons_confirm(ui):
    c = ui()
    answer = ask(c)
    pending = wait("a pending deal", lambda: state(c)["pending"])
    assert [(d["id"], d["seller"], d["price"], d["status"]) for d in pending] == [
        (0, "Watson", 8.21, "pending")
    ]
    assert pending[0]["quantity"] == {"egg": 2, "flour": 2, "milk": 1, "sugar": 1}
    assert 30.0 < pending[0]["secondsLeft"] <= 60.0  # 60 s less the time since it came
    s = state(c)
    assert (s["left"], s["reserved"], s["have"]["egg"], s["deals"]) == (50.0, 8.21, 0, [])
    assert held(answer)  # nobody clicked yet
    r = c.post("/api/decide", json={"deal": 0, "confirm": True})
    assert r.status_code == 200 and r.json()["answer"] == {"status": "acknowledged"}
    assert answer.result(timeout=5) == {"status": "acknowledged"}
    s = state(c)
    assert (s["left"], s["reserved"], s["have"]["egg"], s["pending"]) == (41.79, 0, 2, [])
    assert [(d["seller"], d["status"], d["by"]) for d in s["deals"]] == [
        ("Watson", "confirmed", "person")
    ]
    again = c.post("/api/decide", json={"deal": 0, "confirm": False})
    assert again.status_code == 409
    assert again.json()["error"] == (
        "deal 0 is already confirmed (by person); only a pending deal can be decided"
    )
    r = c.post("/api/decide", json={"deal": 7, "confirm": True})
    assert r.status_code == 404 and r.json()["error"] == f"no deal 7 in round {RID!r} (ids 0-0)"
    assert c.post("/api/decide", json={"deal": -1, "confirm": True}).status_code == 422


def test_decline_answers_declined_and_buys_nothing(ui):
    c = ui()
    first, repeat = ask(c), None
    wait("a pending deal", lambda: state(c)["pending"])
    repeat = ask(c)  # the same confirmation again is the same deal, not a second one
    # it must reach the server before the decision below; the server shows no sign of a
    # repeat it folded into the pending deal, so this one wait stays (0.2 s)
    time.sleep(0.2)
    assert len(state(c)["pending"]) == 1
    c.post("/api/decide", json={"deal": 0, "confirm": False})
    declined = {"status": "declined", "rationale": "the buyer declined"}
    assert first.result(timeout=5) == declined and repeat.result(timeout=5) == declined
    s = state(c)
    assert (s["left"], s["spent"], s["reserved"], s["deals"], s["pending"]) == (50.0, 0, 0, [], [])
    assert sum(s["have"].values()) == 0
    assert [(d["seller"], d["by"]) for d in s["declined"]] == [("Watson", "person")]
    # asked again after the decision: a new deal, which waits for its own answer
    again = ask(c)
    pending = wait("the second deal", lambda: state(c)["pending"])
    assert [d["id"] for d in pending] == [1] and not again.done()
    c.post("/api/decide", json={"deal": 1, "confirm": True})
    assert again.result(timeout=5) == {"status": "acknowledged"}
    assert [(d["id"], d["status"]) for d in state(c)["deals"]] == [(1, "confirmed")]


def test_no_click_within_the_timeout_declines_for_the_buyer(ui, tmp_path):
    c = ui(confirm_timeout=0.4)
    t0 = time.monotonic()
    answer = ask(c).result(timeout=30)
    # declined at its timeout: not before it, and not held on (30 s: a loaded machine's
    # generous bound, far below the 60 s of the other tests' deals)
    assert 0.35 < time.monotonic() - t0 < 30
    assert answer == {"status": "declined", "rationale": "the buyer did not confirm within 0.4 s"}
    s = state(c)
    assert s["left"] == 50.0 and s["deals"] == [] and s["declined"][0]["by"] == "timeout"
    late = c.post("/api/decide", json={"deal": 0, "confirm": True})
    assert late.status_code == 409 and "already declined (by timeout)" in late.json()["error"]
    # the decisions are events: a restarted server shows the same
    again = ui(db=tmp_path / "ui.sqlite")
    assert state(again)["declined"] == s["declined"]


def test_a_restart_shows_an_unanswered_deal_as_not_bought(ui, tmp_path):
    """A pending deal whose server restarted was never answered: the orchestrator's call
    failed and a deal nobody confirmed is no deal (it fails closed), so the UI does not
    count it either (it is marked unanswered)."""
    c = ui()
    answer = ask(c)
    wait("a pending deal", lambda: state(c)["pending"])
    restarted = ui(db=tmp_path / "ui.sqlite")
    s = state(restarted)
    assert (s["deals"], s["left"], s["pending"]) == ([], 50.0, [])
    c.post("/api/decide", json={"deal": 0, "confirm": True})
    assert answer.result(timeout=5) == {"status": "acknowledged"}


# -- the orchestrator with the real UI server -----------------------------------------------
clock = SkipClock()
"""The orchestrator's clock in these tests (only ever skipped forward)."""


@pytest.fixture
def stage(tmp_path: Path) -> Iterator[tuple[httpx.Client, httpx.Client, Party, str]]:
    """Orchestrator + UI server (person confirms, 60 s) + recording Celia and Watson, in an
    active round; yields (orchestrator client, UI client, Celia, roundId). The
    orchestrator's clock is ``clock`` (skip R0's 0.2 s with ``clock.skip(0.2)``)."""
    socks = {k: loopback_socket() for k in ("orch", "ui")}
    url = {k: f"http://127.0.0.1:{s.getsockname()[1]}" for k, s in socks.items()}
    orch = create_orchestrator_app(
        db_path=tmp_path / "eo.db",
        rule_config=RuleConfig(human_gap=0.2),
        human_uis=[url["ui"]],
        clock=clock,
    )
    web = create_ui_app(
        orchestrator_url=url["orch"], db_path=tmp_path / "ui.db", confirm_timeout=60.0, **KEYS
    )
    with (
        Party("Celia") as celia,
        Party("Watson") as watson,
        ServerThread(orch, socks["orch"]),
        ServerThread(web, socks["ui"]),
        httpx.Client(base_url=url["orch"], timeout=10, headers=operator_headers(orch)) as eo,
        httpx.Client(base_url=url["ui"], timeout=10) as hui,
    ):
        join(hui)
        agents = [celia.agent_spec(COSTS_C), watson.agent_spec(COSTS_W)]
        rid = start_round(eo, round_body(agents, [{"url": url["ui"], "name": "humanUI"}]))
        yield eo, hui, celia, rid


def deal_pending(eo: httpx.Client, hui: httpx.Client, rid: str) -> None:
    """The human accepts, Watson accepts (8 USD for 2 eggs): a deal awaits the person."""
    assert (
        eo.post(
            "/relayMessage", json=human(rid, "Watson, 2 eggs for $8 please", "Watson")
        ).status_code
        == 200
    )
    r = eo.post("/relayMessage", json=agent(rid, "Watson", "Deal.", "Accept", {"egg": 2}, 8.0))
    assert r.json()["permitted"], r.text
    wait("the pending deal in the UI", lambda: hui.get("/api/state").json()["pending"])
    assert eo.get(f"/rounds/{rid}").json()["remainingBudget"] == 42.0  # reserved


def test_messages_keep_flowing_to_the_ui_while_the_person_decides(stage):
    eo, hui, celia, rid = stage
    deal_pending(eo, hui, rid)
    clock.skip(0.2)  # R0 (0.2 s here) since the human's accept
    for i in range(3):
        text = f"Celia, what about flour? ({i})"
        t0 = time.monotonic()
        assert eo.post("/relayMessage", json=human(rid, text, "Celia")).json()["permitted"]
        wait("the message in the UI", lambda t=text: any(
            m["text"] == t for m in hui.get("/api/state").json()["transcript"]))  # fmt: skip
        # not behind the pending confirmation, which waits up to 60 s for the person (a
        # generous bound: well above a loaded machine's delivery, well below 60 s)
        assert time.monotonic() - t0 < 30
        wait("Celia's copy", lambda t=text: any(b["text"] == t for b in celia.bodies(
            "/receiveMessage", rid)))  # fmt: skip
        clock.skip(0.2)
    s = hui.get("/api/state").json()
    assert len(s["pending"]) == 1 and s["left"] == 50.0 and s["reserved"] == 8.0
    hui.post("/api/decide", json={"deal": 0, "confirm": True})
    s = wait("the deal", lambda: hui.get("/api/state").json()["deals"])
    assert s[0]["price"] == 8.0 and hui.get("/api/state").json()["left"] == 42.0
    state = wait("the booking", lambda: (s := eo.get(f"/rounds/{rid}").json())["purchases"] and s)
    assert state["remainingBudget"] == 42.0 and state["purchases"] == {"egg": 2}


def test_a_declined_deal_is_cancelled_and_refunded_by_the_orchestrator(stage):
    eo, hui, _celia, rid = stage
    deal_pending(eo, hui, rid)
    assert hui.post("/api/decide", json={"deal": 0, "confirm": False}).status_code == 200
    wait("the refund", lambda: eo.get(f"/rounds/{rid}").json()["remainingBudget"] == 50.0)
    state = eo.get(f"/rounds/{rid}").json()
    assert state["purchases"] == {} and state["deals"][0]["cancelled"] is True
    s = hui.get("/api/state").json()
    assert (s["left"], s["deals"], s["declined"][0]["by"]) == (50.0, [], "person")
