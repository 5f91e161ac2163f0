"""The HUMAINE orchestrator and human-UI servers under a seeded fuzzer (child processes
on loopback, requests sent 16 at a time over keep-alive connections): 10,000 requests
each and no 5xx, as a stranger, as the operator (admin secret) and as the joined person
(the fuzzer starts real rounds and relays real messages from the valid examples it
mutates). Then each is killed (-9) and restarted on its file, and everything it kept
reads the same: every round's description, decisions, deals, queue and totals (the
orchestrator), every round's state as the person's page sees it (the UI server), with
only the clock's own fields (elapsed, remaining, seconds left) set aside."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx

from accord.leagues.humaine.orchestrator import create_orchestrator_app
from accord.leagues.humaine.testing import (
    BUYER_UTILITY,
    COSTS_C,
    COSTS_W,
    human,
    round_body,
    seller_utility,
)
from accord.leagues.humaine.ui_server import create_ui_app
from accord.web.fuzzing import client, fuzz, operations
from accord.web.testing import ServerProcess

N = int(os.environ.get("ACCORD_FUZZ_REQUESTS", "10000"))
SECRET = "operator-secret-for-the-fuzz-test"
KEY = "person-key-for-the-fuzz-test"
CLOCK = {"elapsed", "remaining", "secondsLeft", "phase", "deliveryErrors"}
NOWHERE = "http://127.0.0.1:9"  # agents that never answer (refused at once)


def _agent(name: str, costs: dict[str, float]) -> dict[str, Any]:
    return {"name": name, "url": NOWHERE, "utilityFunction": seller_utility(costs)}


def _timeless(value: Any) -> Any:
    """``value`` without the fields that follow the clock (they differ a second later)."""
    if isinstance(value, dict):
        return {k: _timeless(v) for k, v in value.items() if k not in CLOCK}
    if isinstance(value, list):
        return [_timeless(v) for v in value]
    return value


def _orchestrator_state(c: httpx.Client) -> dict[str, Any]:
    rounds = c.get("/rounds").json()
    out: dict[str, Any] = {"rounds": _timeless(rounds)}
    for r in rounds:
        rid = quote(r["roundId"], safe="")  # the fuzzer's round ids too
        out[rid] = [_timeless(c.get(p).json()) for p in
                    (f"/rounds/{rid}", f"/viewQueue/{rid}", f"/viewTotals/{rid}")]  # fmt: skip
    return out


def test_orchestrator_survives_the_fuzzer_and_restarts_intact(tmp_path: Path) -> None:
    db = tmp_path / "orchestrator.sqlite"
    kwargs = {"db_path": db, "admin_secret": SECRET, "call_timeout": 0.5}
    spec = create_orchestrator_app(admin_secret=SECRET).openapi()
    body = round_body(
        [_agent("Celia", COSTS_C), _agent("Watson", COSTS_W)], duration=3600.0, post=3600.0
    )
    body["human"] = {"utilityFunction": BUYER_UTILITY, "authenticated": False}
    examples = {
        "POST /initializeRound": [body, body | {"roundId": "fuzz-round"}],
        "POST /startRound": [{"roundId": "fuzz-round"}, body],
        "POST /relayMessage": [
            human("fuzz-round", "Celia, how much for 2 eggs?", "Celia"),
            human(None, "Watson, 1 flour for $2?", "Watson"),
        ],
        "POST /endRound": [{"roundId": "fuzz-round"}],
    }
    ops = operations(spec, examples)
    factory = "accord.leagues.humaine.orchestrator:create_orchestrator_app"
    server = ServerProcess(factory, **kwargs).start()
    try:
        stranger = client(server.url)
        operator = client(server.url)
        operator.headers["X-Accord-Admin"] = SECRET
        report = fuzz([stranger, operator], ops, spec, N, seed=17)
        print("orchestrator:", report.summary())
        assert report.server_errors == 0, "\n".join(report.failures)
        before = _orchestrator_state(operator)
    finally:
        server.kill()
    assert len(before["rounds"]) >= 2, "the fuzzer made no rounds: nothing was compared"
    with ServerProcess(factory, **kwargs) as server:
        operator.base_url = httpx.URL(server.url)
        after = _orchestrator_state(operator)
        assert [r["roundId"] for r in after["rounds"]] == [r["roundId"] for r in before["rounds"]]
        for k in before:
            assert after[k] == before[k], k


def _ui_state(c: httpx.Client) -> dict[str, Any]:
    rounds = c.get("/api/rounds").json()
    out: dict[str, Any] = {"rounds": _timeless(rounds)}
    for r in rounds:
        out[r["roundId"]] = _timeless(c.get("/api/state", params={"round": r["roundId"]}).json())
    return out


def test_human_ui_server_survives_the_fuzzer_and_restarts_intact(tmp_path: Path) -> None:
    db = tmp_path / "ui.sqlite"
    # a confirmation waits for the person's page (fail closed when none answers): short
    # here, so that the fuzzer's confirmations do not each wait the default 90 s
    kwargs = {"db_path": db, "person_key": KEY, "admin_key": KEY + "-admin", "confirm_timeout": 0.2}
    spec = create_ui_app(**{**kwargs, "db_path": ":memory:"}).openapi()
    meta = {"roundId": "r1", "durations": {"warmUp": 0, "round": 3600, "post": 3600},
            "humanBudget": {"value": 50}}  # fmt: skip
    examples = {
        "POST /sendRoundMetadata": [meta, meta | {"roundId": "r2"}],
        "POST /receiveMessage": [human("r1", "Celia, how much for 2 eggs?") | {"speaker": "Celia"}],
    }
    ops = operations(spec, examples)
    factory = "accord.leagues.humaine.ui_server:create_ui_app"
    server = ServerProcess(factory, **kwargs).start()
    try:
        person = client(server.url)
        person.get("/join", params={"key": KEY})
        assert person.post("/sendRoundMetadata", json=meta).status_code == 200
        report = fuzz([client(server.url), person], ops, spec, N, seed=19, concurrency=32)
        print("human UI:", report.summary())
        # no orchestrator runs here: the person's allocation is answered 502 bad_gateway
        # ("orchestrator unreachable"), the right answer; any other 5xx is a failure
        errors = [f for f in report.failures if "bad_gateway" not in f]
        assert report.server_errors == report.statuses[502] and not errors, "\n".join(errors)
        before = _ui_state(person)
    finally:
        server.kill()
    assert len(before["rounds"]) >= 1
    with ServerProcess(factory, **kwargs) as server:
        person.base_url = httpx.URL(server.url)
        assert _ui_state(person) == before
