"""The Colored Trails study server under a seeded fuzzer (a child process on loopback):
no 5xx, then killed (-9) and restarted on its folder with every game intact."""

from __future__ import annotations

import os
from pathlib import Path

from accord.leagues.trails.server import trails_design
from accord.web.fuzzing import fuzz_then_restart

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
    kwargs = {
        "folder": tmp_path / "study",
        "design": trails_design(["purb", "person"]),
        "password": PW,
    }
    run = fuzz_then_restart(
        "accord.leagues.trails.server:create_trails_app", kwargs,
        {"folder": tmp_path / "schema"}, PW, EXAMPLES, "/api/trails/state", requests=N, seed=23,
        admin_reads=("/api/study/participants", "/api/study/events.csv"),
    )  # fmt: skip
    assert run.after == run.before
    assert run.admin_after == run.admin_before
