"""The HUMAINE orchestrator and human-UI servers under a seeded fuzzer (child processes
on loopback): no 5xx from either (the orchestrator N/2 requests, the UI server N/5: each
of its confirmations waits out its timeout), as a stranger, as the operator (admin secret) and as
the joined person; killed (-9) and restarted on their files, they answer the same."""

from __future__ import annotations

import os
from pathlib import Path

import httpx

from accord.leagues.humaine.orchestrator import create_orchestrator_app
from accord.leagues.humaine.ui_server import create_ui_app
from accord.web.fuzzing import client, fuzz, operations
from accord.web.testing import ServerProcess

N = int(os.environ.get("ACCORD_FUZZ_REQUESTS", "10000"))
SECRET = "operator-secret-for-the-fuzz-test"
KEY = "person-key-for-the-fuzz-test"


def test_orchestrator_survives_the_fuzzer_and_restarts_intact(tmp_path: Path) -> None:
    db = tmp_path / "orchestrator.sqlite"
    kwargs = {"db_path": db, "admin_secret": SECRET}
    spec = create_orchestrator_app(admin_secret=SECRET).openapi()
    ops = operations(spec)
    factory = "accord.leagues.humaine.orchestrator:create_orchestrator_app"
    server = ServerProcess(factory, **kwargs).start()
    try:
        stranger = client(server.url)
        operator = client(server.url)
        operator.headers["X-Accord-Admin"] = SECRET
        report = fuzz([stranger, operator], ops, spec, N // 2, seed=17)
        print("orchestrator:", report.summary())
        assert report.server_errors == 0, "\n".join(report.failures)
        before = operator.get("/rounds").status_code, operator.get("/rounds").text
    finally:
        server.kill()
    with ServerProcess(factory, **kwargs) as server:
        operator.base_url = httpx.URL(server.url)
        assert (operator.get("/rounds").status_code, operator.get("/rounds").text) == before


def test_human_ui_server_survives_the_fuzzer_and_restarts_intact(tmp_path: Path) -> None:
    db = tmp_path / "ui.sqlite"
    # a confirmation waits for the person's page (fail closed when none answers): short
    # here, so that the fuzzer's confirmations do not each wait the default 90 s
    kwargs = {"db_path": db, "person_key": KEY, "admin_key": KEY + "-admin", "confirm_timeout": 0.2}
    spec = create_ui_app(**{**kwargs, "db_path": ":memory:"}).openapi()
    ops = operations(spec)
    factory = "accord.leagues.humaine.ui_server:create_ui_app"
    server = ServerProcess(factory, **kwargs).start()
    try:
        person = client(server.url)
        person.get("/join", params={"key": KEY})
        report = fuzz([client(server.url), person], ops, spec, N // 5, seed=19)
        print("human UI:", report.summary())
        assert report.server_errors == 0, "\n".join(report.failures)
    finally:
        server.kill()
    with ServerProcess(factory, **kwargs) as server:
        assert client(server.url).get("/").status_code < 500
