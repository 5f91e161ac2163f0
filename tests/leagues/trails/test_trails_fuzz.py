"""The Colored Trails study server under a seeded fuzzer (a child process on loopback):
no 5xx, then killed (-9) and restarted on its folder with every game intact."""

from __future__ import annotations

import os
from pathlib import Path

import httpx

from accord.leagues.trails.server import create_trails_app, trails_design
from accord.web.fuzzing import Operation, client, experimenter, fuzz, operations, participants
from accord.web.testing import ServerProcess

N = int(os.environ.get("ACCORD_FUZZ_REQUESTS", "10000"))
PW = "pw-trails-fuzz"
EXAMPLES = {
    "POST /api/trails/act": [
        {"kind": "propose", "give": [1, 0, 0, 0], "take": [0, 1, 0, 0], "turn": 0, "phase": "propose"},
        {"kind": "pass"},
        {"kind": "respond", "accept": True},
        {"kind": "transfer", "send": [0, 0, 0, 0]},
        {"kind": "move", "cell": 3},
        {"kind": "endmove"},
    ]
}  # fmt: skip


def test_trails_server_survives_the_fuzzer_and_restarts_intact(tmp_path: Path) -> None:
    folder = tmp_path / "study"
    kwargs = {"folder": folder, "design": trails_design(["purb", "person"]), "password": PW}
    spec = create_trails_app(**{**kwargs, "folder": tmp_path / "schema"})[0].openapi()
    ops = [
        *operations(spec, EXAMPLES),
        Operation("GET", "/s/{token}"),
        Operation("POST", "/s/{token}"),
    ]
    factory = "accord.leagues.trails.server:create_trails_app"
    server = ServerProcess(factory, **kwargs).start()
    try:
        admin = experimenter(server.url, PW)
        people = participants(admin, 4)
        for p in people:
            p.get("/api/trails/state")
        report = fuzz([*people, client(server.url), admin], ops, spec, N, seed=23)
        print(report.summary())
        assert report.server_errors == 0, "\n".join(report.failures)
        before = [p.get("/api/trails/state").json() for p in people]
        listed = admin.get("/api/study/participants").json()
        events = admin.get("/api/study/events.csv").text
    finally:
        server.kill()
    server = ServerProcess(factory, **kwargs).start()
    try:
        for c in [*people, admin]:
            c.base_url = httpx.URL(server.url)
        assert [p.get("/api/trails/state").json() for p in people] == before
        assert admin.get("/api/study/participants").json() == listed
        assert admin.get("/api/study/events.csv").text == events
    finally:
        server.stop()
