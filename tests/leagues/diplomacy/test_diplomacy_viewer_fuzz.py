"""The Diplomacy viewer under a seeded fuzzer (a child process on loopback, 10,000
requests 16 at a time): no 5xx; killed (-9) and served again from the same record, it
answers the same, every phase and every map."""

from __future__ import annotations

import os
from typing import Any

import pytest

pytest.importorskip(
    "diplomacy", reason="needs the optional AGPL engine: pip install '.[diplomacy]'"
)

from accord.leagues.diplomacy.deals import POWERS  # noqa: E402
from accord.leagues.diplomacy.negotiator import AllianceNegotiator  # noqa: E402
from accord.leagues.diplomacy.runner import play_game  # noqa: E402
from accord.leagues.diplomacy.viewer import viewer_app  # noqa: E402
from accord.web.fuzzing import client, fuzz, operations  # noqa: E402
from accord.web.testing import ServerProcess  # noqa: E402

# the viewer draws each phase's map once (~20 ms on a loaded machine) and keeps it
N = int(os.environ.get("ACCORD_FUZZ_REQUESTS", "10000"))


def test_viewer_survives_the_fuzzer_and_serves_the_same_after_a_restart() -> None:
    negs = {p: AllianceNegotiator(i) for i, p in enumerate(POWERS[:4])}
    record: dict[str, Any] = play_game(
        negs, seed=4, clock="virtual", ticks=2, last_year=1901, candidates=1
    ).to_json()
    spec = viewer_app(record).openapi()
    ops = operations(spec)
    factory = "accord.leagues.diplomacy.viewer:viewer_app"
    paths = ["/api/game", "/api/phase/0?view=god", f"/api/phase/0?view={POWERS[0]}"]
    paths += [f"/api/phase/{i}?view=god" for i in range(1, len(record["phases"]))]
    server = ServerProcess(factory, record=record).start()
    try:
        c = client(server.url)
        report = fuzz([c, client(server.url)], ops, spec, N, seed=3)
        print(report.summary())
        assert report.server_errors == 0, "\n".join(report.failures)
        before = [c.get(p).json() for p in paths]
        maps = [c.get(f"/api/phase/{i}/map.svg").text for i in range(len(record["phases"]))]
    finally:
        server.kill()
    with ServerProcess(factory, record=record) as server:
        c = client(server.url)
        assert [c.get(p).json() for p in paths] == before
        assert [c.get(f"/api/phase/{i}/map.svg").text for i in range(len(maps))] == maps
