"""The GENIUS study server under a seeded fuzzer (a child process on loopback): no 5xx;
then killed (-9) and restarted on its folder with every negotiation intact."""

from __future__ import annotations

import os
from pathlib import Path

from accord.leagues.genius.server import condition, genius_design
from accord.web.fuzzing import fuzz_then_restart

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
    run = fuzz_then_restart(
        "accord.leagues.genius.server:create_genius_app", kwargs,
        {"folder": tmp_path / "schema"}, PW, EXAMPLES, "/api/genius/state", requests=N, seed=5,
    )  # fmt: skip
    for a, b in zip(run.after, run.before, strict=True):
        assert {k: a.get(k) for k in STABLE} == {k: b.get(k) for k in STABLE}
    assert run.admin_after == run.admin_before
