"""The HAN study server under a seeded fuzzer (a child process on loopback, agents in
their own processes as served): no 5xx; then killed (-9) and restarted on its file with
every game intact."""

from __future__ import annotations

import os
from pathlib import Path

from accord.web.fuzzing import fuzz_then_restart

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
    kwargs = {"db": tmp_path / "han.sqlite", "agents": ["fair", "tough"], "time_limit": 600.0,
              "password": PW}  # fmt: skip
    run = fuzz_then_restart(
        "accord.leagues.han.server:create_han_app", kwargs, {"db": tmp_path / "schema.sqlite"},
        PW, EXAMPLES, "/api/han/state", requests=N, seed=11, people=3,
        admin_reads=("/api/study/participants", "/api/han/games.csv"),
    )  # fmt: skip
    for a, b in zip(run.after, run.before, strict=True):
        assert {k: a.get(k) for k in STABLE} == {k: b.get(k) for k in STABLE}, a.get("error")
    assert run.admin_after == run.admin_before
