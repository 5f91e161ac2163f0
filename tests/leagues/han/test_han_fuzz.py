"""The HAN study server under a seeded fuzzer (a child process on loopback, agents in
their own processes as served): no 5xx; then killed (-9) and restarted on its file with
every game intact."""

from __future__ import annotations

import os
from pathlib import Path

import httpx

from accord.leagues.han.server import create_han_app
from accord.web.fuzzing import Operation, client, experimenter, fuzz, operations, participants
from accord.web.testing import ServerProcess

N = int(os.environ.get("ACCORD_FUZZ_REQUESTS", "10000"))
PW = "pw-han-fuzz"
EXAMPLES = {
    "POST /api/han/event": [
        {"kind": "SEND_OFFER", "offer": [[1, 3, 1], [1, 3, 1], [1, 3, 1], [1, 3, 1]]},
        {"kind": "OFFER_IN_PROGRESS"},
        {"kind": "SEND_MESSAGE", "preset": 3},
        {"kind": "SEND_MESSAGE", "preference": {"issue1": 0, "issue2": 1, "relation": "GREATER_THAN", "query": False}},
        {"kind": "SEND_MESSAGE", "batna": 4},
        {"kind": "SEND_EXPRESSION", "emotion": "happy"},
        {"kind": "FORMAL_ACCEPT"},
    ],
}  # fmt: skip
STABLE = ("issues", "values", "offer", "history", "refused", "batna", "game", "result")


def test_han_server_survives_the_fuzzer_and_restarts_intact(tmp_path: Path) -> None:
    db = tmp_path / "han.sqlite"
    kwargs = {"db": db, "agents": ["fair", "tough"], "time_limit": 600.0, "password": PW}
    spec = create_han_app(**{**kwargs, "db": tmp_path / "schema.sqlite"})[0].openapi()
    ops = [
        *operations(spec, EXAMPLES),
        Operation("GET", "/s/{token}"),
        Operation("POST", "/s/{token}"),
    ]
    factory = "accord.leagues.han.server:create_han_app"
    server = ServerProcess(factory, **kwargs).start()
    try:
        admin = experimenter(server.url, PW)
        people = participants(admin, 3)
        for p in people:
            p.get("/api/han/state")
        report = fuzz([*people, client(server.url), admin], ops, spec, N, seed=11)
        print(report.summary())
        assert report.server_errors == 0, "\n".join(report.failures)
        before = [p.get("/api/han/state").json() for p in people]
        listed = admin.get("/api/study/participants").json()
        rows = admin.get("/api/han/games.csv").text
    finally:
        server.kill()
    server = ServerProcess(factory, **kwargs).start()
    try:
        for c in [*people, admin]:
            c.base_url = httpx.URL(server.url)
        after = [p.get("/api/han/state").json() for p in people]
        for a, b in zip(after, before, strict=True):
            assert {k: a.get(k) for k in STABLE} == {k: b.get(k) for k in STABLE}, a.get("error")
        assert admin.get("/api/study/participants").json() == listed
        assert admin.get("/api/han/games.csv").text == rows
    finally:
        server.stop()
