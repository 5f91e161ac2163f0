"""The study layer (links, consent, events, state, completion, the experimenter's API and
a league's route) under a seeded fuzzer in a child process on loopback: no 5xx; then
killed (-9) and restarted on its file with every participant and event intact."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import httpx

from accord.web.fuzzing import Operation, client, experimenter, fuzz, operations, participants
from accord.web.study import Study, create_study_app
from accord.web.testing import ServerProcess

N = int(os.environ.get("ACCORD_FUZZ_REQUESTS", "10000"))
PW = "pw-study-fuzz"


def study_app(path: Path, password: str) -> Any:
    """The tiny ultimatum league's study app (a factory the child process calls)."""
    from tiny_league import DESIGN, PAGES, Ultimatum

    study = Study(path, DESIGN, password=password, page_writes=True)
    return create_study_app(study, Ultimatum(study), pages={"/": str(PAGES)})


def test_study_server_survives_the_fuzzer_and_restarts_intact(tmp_path: Path) -> None:
    path = tmp_path / "study.sqlite"
    spec = study_app(tmp_path / "schema.sqlite", PW).openapi()
    examples = {
        "POST /api/participant/events": [{"kind": "note", "data": {"x": 1}}],
        "PUT /api/participant/state": [{"state": {"step": 2, "seen": ["a"]}}],
        "POST /api/ultimatum/offer": [{"give": 50}],
        "POST /api/participant/consent": [{"agree": True, "version": "2"}],
    }
    ops = [
        *operations(spec, examples),
        Operation("GET", "/s/{token}"),
        Operation("POST", "/s/{token}"),
    ]
    factory = f"{__name__}:study_app"
    server = ServerProcess(factory, path=path, password=PW).start()
    try:
        admin = experimenter(server.url, PW)
        people = participants(admin, 4)
        report = fuzz([*people, client(server.url), admin], ops, spec, N, seed=7)
        print(report.summary())
        assert report.server_errors == 0, "\n".join(report.failures)
        mine = [p.get("/api/participant").json() for p in people]
        listed = admin.get("/api/study/participants").json()
        events = admin.get("/api/study/events.csv").text
    finally:
        server.kill()
    server = ServerProcess(factory, path=path, password=PW).start()
    try:
        for c in [*people, admin]:
            c.base_url = httpx.URL(server.url)
        assert [p.get("/api/participant").json() for p in people] == mine
        assert admin.get("/api/study/participants").json() == listed
        assert admin.get("/api/study/events.csv").text == events
    finally:
        server.stop()
