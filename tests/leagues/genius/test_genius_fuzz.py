"""The GENIUS study server under a seeded fuzzer (a child process on loopback): no 5xx;
then killed (-9) and restarted on its folder with every negotiation intact."""

from __future__ import annotations

import os
from pathlib import Path

import httpx

from accord.leagues.genius.server import condition, create_genius_app, genius_design
from accord.web.fuzzing import Operation, client, experimenter, fuzz, operations, participants
from accord.web.testing import ServerProcess

N = int(os.environ.get("ACCORD_FUZZ_REQUESTS", "10000"))
PW = "pw-genius-fuzz"
EXAMPLES = {
    "POST /api/genius/action": [
        {"kind": "offer", "values": {"Salary": "12,000 NIS", "Working Hours": "9 hours"}},
        {"kind": "accept", "offer": 0},
        {"kind": "reject", "offer": 1},
        {"kind": "comment", "index": 2},
        {"kind": "threat", "index": 1},
        {"kind": "opt_out"},
    ],
}  # fmt: skip
STABLE = ("session", "offers", "agreement", "messages", "status", "result", "turn")


def test_genius_server_survives_the_fuzzer_and_restarts_intact(tmp_path: Path) -> None:
    design = genius_design(
        [condition("kbagent", turn_seconds=600), condition("person", turn_seconds=600)]
    )
    kwargs = {"folder": tmp_path / "study", "design": design, "password": PW}
    spec = create_genius_app(**{**kwargs, "folder": tmp_path / "schema"})[0].openapi()
    ops = [
        *operations(spec, EXAMPLES),
        Operation("GET", "/s/{token}"),
        Operation("POST", "/s/{token}"),
    ]
    factory = "accord.leagues.genius.server:create_genius_app"
    server = ServerProcess(factory, **kwargs).start()
    try:
        admin = experimenter(server.url, PW)
        people = participants(admin, 4)
        for p in people:
            p.get("/api/genius/state")
        report = fuzz([*people, client(server.url), admin], ops, spec, N, seed=5)
        print(report.summary())
        assert report.server_errors == 0, "\n".join(report.failures)
        before = [p.get("/api/genius/state").json() for p in people]
        listed = admin.get("/api/study/participants").json()
    finally:
        server.kill()
    server = ServerProcess(factory, **kwargs).start()
    try:
        for c in [*people, admin]:
            c.base_url = httpx.URL(server.url)
        after = [p.get("/api/genius/state").json() for p in people]
        for a, b in zip(after, before, strict=True):
            assert {k: a.get(k) for k in STABLE} == {k: b.get(k) for k in STABLE}
        assert admin.get("/api/study/participants").json() == listed
    finally:
        server.stop()
