"""Each call of a multiplexed batch keeps its own deadline: a hanging call is caught near
its own limit, not at the sum of the budgets of everything that shares its batch (an
``end`` or ``start`` call's budget is 30 s)."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path
from typing import Any

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
ROWS = "SELECT reason, failure_agent, failure_kind, failure_message FROM sessions ORDER BY idx"


def _play(
    where: Path,
    monkeypatch: pytest.MonkeyPatch,
    module: tuple[str, str],
    agents: tuple[Any, ...],
    *,
    time_limit: float,
    rounds: int,
    executor: SerialExecutor | None = None,
) -> tuple[float, list[tuple[Any, ...]]]:
    """Plays ``agents`` pairwise on the tiny scenario, the first one submitted (``module``:
    its name and source, written under ``where``) and alone in its OS sandbox, its
    opponents in-process; returns the seconds taken and each session's (reason, failure
    agent, kind, message), in order."""
    name, source = module
    (where / f"{name}.py").write_text(source)
    monkeypatch.syspath_prepend(str(where))
    cfg = TournamentConfig(
        agents,
        ("builtin:tiny",),
        sandbox="auto",  # the submitted agent only, in its OS sandbox
        self_play=False,
        rotate=False,
        pairing="combinations",
        time_limit=time_limit,
        rounds=rounds,
    )
    out = where / "t.sqlite"
    t0 = time.perf_counter()
    run_tournament(cfg, out, executor or SerialExecutor())
    seconds = time.perf_counter() - t0
    with sqlite3.connect(out) as db:
        return seconds, db.execute(ROWS).fetchall()


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
    accepts = {
        "name": "Accepts",
        "type": f"{S}RandomNegotiator",
        "params": {"accept_probability": 1.0},
    }
    agents = ("Hangs=hangs_entry:HangsInRespond", accepts, "boulware")
    seconds, rows = _play(
        tmp_path, monkeypatch, ("hangs_entry", HANGS), agents, time_limit=0.3, rounds=10
    )
    assert seconds < 15  # about 2 s; 31 s when the batch's sum was its only deadline
    (r1, *f1), (r2, *f2), (r3, *f3) = rows
    assert (r1, f1, r3, f3) == ("agreement", [None] * 3, "agreement", [None] * 3)
    assert (r2, f2[:2]) == ("failure", ["Hangs", "timeout"])
    assert "call 2 of its batch of 2 (counter) ran past its 1.100 s" in f2[2]


SLOW = """
from accord.tournament.faulty import Sleeper as Slow
"""


@pytest.mark.needs_bwrap
def test_a_long_batch_of_calls_each_within_its_limit_is_never_cut_short(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The submitted agent sleeps 0.2 s a call in four sessions at once (its opponents
    # in-process): a batch of their four proposals takes 0.8 s, past the first look at
    # half its shortest budget (0.375 s), so it is watched call by call, and past one
    # call's budget (0.75 s: a deadline that ignored progress would cut it); each call
    # is far within its own budget and its limit (0.5 s).
    slow = {"name": "Slow", "type": "slow_entry:Slow", "params": {"seconds": 0.2}}
    agents = (slow, "boulware", "conceder", "linear", "frequency")
    ex = SerialExecutor()
    _, rows = _play(
        tmp_path, monkeypatch, ("slow_entry", SLOW), agents, time_limit=0.5, rounds=2, executor=ex
    )
    assert ex.hub.watched >= 1  # the long batches were watched ...
    failures = [r[1] for r in rows]
    assert failures == [None] * 10  # ... and no call was cut short


LIAR = """
import os, sys, time
from accord.agents.timebased import TimeDependent
from accord.sandbox.host import Host

class Liar(TimeDependent):
    def __init__(self, how, name=None):
        super().__init__(1.0, name)
        self.how = how

    def respond(self, view, offer):
        frame = sys._getframe()  # up to the host's frame: its context is in reach
        while not isinstance(frame.f_locals.get("self"), Host):
            frame = frame.f_back
        context = frame.f_locals["self"].context
        if self.how == "fake":
            context.report(100_000)  # every call of the batch done, many times over
        else:
            os.close(context.report.args[0])  # no progress ever again
        time.sleep(3600)
"""


@pytest.mark.needs_bwrap
@pytest.mark.parametrize(
    ("how", "reason"),
    [
        ("fake", "its batch of 2 calls took more than their 2.200 s"),
        ("close", "call 1 of its batch of 2 (counter) ran past its 1.100 s"),
    ],
    ids=["fake", "close"],
)
def test_an_agent_that_fakes_or_closes_its_progress_is_still_caught(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, how: str, reason: str
) -> None:
    # It reports progress it has not made (caught at the batch's trusted deadline, the
    # sum of its calls' budgets), or closes the progress pipe (caught at its own budget:
    # a closed pipe neither counts as progress nor wakes the organiser in a loop).
    liar = {"name": "Liar", "type": "liar_entry:Liar", "params": {"how": how}}
    agents = (liar, "boulware", f"{S}Hardliner")
    seconds, rows = _play(
        tmp_path, monkeypatch, ("liar_entry", LIAR), agents, time_limit=0.3, rounds=10
    )
    assert seconds < 15  # about 3 s
    rows = [r[1:] for r in rows]
    assert [r[:2] for r in rows] == [("Liar", "timeout")] * 2 + [(None, None)], rows
    assert all(reason in r[2] for r in rows[:2]), rows
