"""Each call of a multiplexed batch keeps its own deadline: a hanging call is caught near
its own limit, not at the sum of the budgets of everything that shares its batch (an
``end`` or ``start`` call's budget is 30 s)."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

import pytest

from accord.tournament.config import TournamentConfig
from accord.tournament.executors import SerialExecutor
from accord.tournament.runner import run_tournament

HANGS = """
import time
from accord.agents.timebased import TimeDependent

class HangsInRespond(TimeDependent):
    def respond(self, view, offer):
        time.sleep(3600)
"""
S = "accord.agents.simple:"


@pytest.mark.needs_bwrap
def test_a_hanging_call_batched_with_an_end_call_is_caught_at_its_own_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A submitted agent (sandboxed, its opponents in-process) proposes first in two
    # sessions; their answers come back in one frame, so both sessions' next calls to it
    # go in one batch, whatever the timing. Against an agent that accepts everything
    # that session ends (its `end` call: budget 30.25 s); in the other its `respond`
    # never returns. With the batch's sum as its only deadline it ran 31 s; the call's own budget is 1.1 s (a respond
    # and its counter-offer).
    (tmp_path / "hangs_entry.py").write_text(HANGS)
    monkeypatch.syspath_prepend(str(tmp_path))
    accepts = {
        "name": "Accepts",
        "type": f"{S}RandomNegotiator",
        "params": {"accept_probability": 1.0},
    }
    cfg = TournamentConfig(
        ("Hangs=hangs_entry:HangsInRespond", accepts, "boulware"),
        ("builtin:tiny",),
        sandbox="auto",  # the submitted agent only, in its OS sandbox
        self_play=False,
        rotate=False,
        pairing="combinations",
        time_limit=0.3,
        rounds=10,
    )
    out = tmp_path / "t.sqlite"
    t0 = time.perf_counter()
    run_tournament(cfg, out, SerialExecutor())
    seconds = time.perf_counter() - t0
    with sqlite3.connect(out) as db:
        rows = db.execute(
            "SELECT s.id, s.reason, s.failure_agent, s.failure_kind, s.failure_message "
            "FROM sessions s ORDER BY s.idx"
        ).fetchall()
    assert seconds < 15  # about 2 s; 31 s when the batch's sum was its only deadline
    (_, r1, *f1), (_, r2, *f2), (_, r3, *f3) = rows
    assert (r1, f1, r3, f3) == ("agreement", [None] * 3, "agreement", [None] * 3)
    assert (r2, f2[:2]) == ("failure", ["Hangs", "timeout"])
    assert "call 2 of its batch of 2 (counter) ran past its 1.100 s" in f2[2]
