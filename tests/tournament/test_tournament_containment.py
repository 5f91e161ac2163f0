"""The default (in-process) mode contains its agents: whatever one does, it is recorded
against that agent and every other session finishes; Ctrl-C stops cleanly and resumes."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml
from tournament_helpers import F, T, table
from typer.testing import CliRunner

from accord.core.negotiator import Response
from accord.core.protocols import Session
from accord.core.time import Deadline
from accord.tournament.cli import app
from accord.tournament.config import TournamentConfig
from accord.tournament.results import Results
from accord.tournament.runner import run_tournament
from accord.tournament.scenarios import resolve_scenarios
from accord.tournament.schedule import schedule

GOOD = {"Boulware", "Dict"}
# what each bad agent's failures must say (kind, words in the message, words in the traceback)
EXPECTED = {
    "Raiser": ("exception", "RuntimeError: deliberate failure", "raise RuntimeError"),
    "Exit": ("exception", "SystemExit: 4", "sys.exit(4)"),
    "Garbage": ("invalid", "", ""),
    "Sleep": ("timeout", "did not return within 2 s; it was pre-empted", "time.sleep"),
    "Hog": ("exception", "MemoryError", "blocks.append(bytes("),
    "Crash": ("exception", "exit code 3) in Crash's propose()", ""),
}


def rogues() -> TournamentConfig:
    return TournamentConfig(
        agents=(
            f"Boulware={T}Boulware",
            f"Dict={F}DictOffers",
            f"Raiser={F}Raiser",
            f"Exit={F}Exiter",
            f"Garbage={F}Garbage",
            {"name": "Sleep", "type": f"{F}Sleeper", "params": {"seconds": 30}},
            f"Hog={F}MemoryHog",
            f"Crash={F}Crasher",
        ),
        scenarios=("builtin:tiny",),
        self_play=False,
        pairing="combinations",
        rotate=False,
        time_limit=2.0,
        memory_limit=100,
        name="rogues",
    )


def test_the_default_mode_contains_every_kind_of_bad_agent(tmp_path: Path) -> None:
    cfg = rogues()
    path = tmp_path / "cfg.yaml"
    path.write_text(yaml.safe_dump(cfg.to_dict()))
    out = tmp_path / "rogues.sqlite"
    t0 = time.perf_counter()
    result = CliRunner().invoke(
        app, ["tournament", str(path), "--out", str(out), "--workers", "2", "--no-report"]
    )
    assert result.exit_code == 0, result.output
    assert time.perf_counter() - t0 < 60  # a 30 s sleeper was cut off, every time
    total = len(schedule(cfg))
    assert f"{total} sessions ({total} run now)" in result.output
    res = Results(out)
    sessions = res.sessions
    assert len(sessions) == total  # every session is stored, none lost to a dead worker
    failed = sessions[sessions.failure_kind.notna()]
    # the terminal says how many failed and why
    assert f"{len(failed)} of {total} sessions failed; most common reasons:" in result.output
    assert "Crash (exception): the worker process exited (exit code 3)" in result.output
    # every failure is on the agent that caused it, with its traceback
    assert set(failed.failure_agent) == set(EXPECTED)
    for f in failed.itertuples():
        kind, words, where = EXPECTED[f.failure_agent]
        assert f.failure_kind == kind, (f.failure_agent, f.failure_message)
        assert words in f.failure_message, f
        tb = f.failure_traceback if isinstance(f.failure_traceback, str) else ""
        assert where in tb, f
    # the good agents are never blamed; their sessions together end normally
    both_good = sessions[sessions.id.isin(_between(res, GOOD))]
    assert len(both_good) == 1 and set(both_good.reason) <= {"agreement", "deadline"}
    assert both_good.agreement.notna().all()
    res.close()


def _between(res: Results, agents: set[str]) -> set[str]:
    p = res.parties
    inside = p.groupby("session_id")["agent"].agg(lambda a: set(a) <= agents)
    return set(inside[inside].index)


def test_dict_offers_are_normalised_and_garbage_is_blamed_on_its_agent() -> None:
    from accord.tournament.faulty import DictOffers, Garbage

    scenario = resolve_scenarios(["builtin:tiny"])["builtin:tiny"]
    u = list(scenario.utilities)
    res = Session(scenario.space, [DictOffers(), DictOffers()], u, Deadline(rounds=20)).run()
    assert res.failure is None and res.agreement is not None
    assert scenario.space.is_valid(res.agreement) and type(res.agreement) is tuple
    res = Session(scenario.space, [DictOffers(), Garbage()], u, Deadline(rounds=20)).run()
    assert res.failure is not None and res.failure.name == "Garbage"
    assert "respond() must return a Response" in res.failure.message
    assert Response.ACCEPT is not None


def test_system_exit_and_base_exceptions_do_not_escape_a_session() -> None:
    from accord.tournament.faulty import Exiter

    class Odd(BaseException):
        pass

    class Thrower(Exiter):
        def propose(self, view):  # type: ignore[no-untyped-def]
            raise Odd("not an Exception")

    scenario = resolve_scenarios(["builtin:tiny"])["builtin:tiny"]
    u = list(scenario.utilities)
    for agent, words in ((Exiter(), "SystemExit: 4"), (Thrower(), "Odd: not an Exception")):
        res = Session(scenario.space, [agent, Exiter()], u, Deadline(rounds=5)).run()
        assert res.failure is not None and res.failure.party == 0
        assert words in res.failure.message and "Traceback" in res.failure.traceback


def test_a_call_past_its_limit_is_pre_empted_in_the_serial_executor(tmp_path: Path) -> None:
    cfg = TournamentConfig(
        agents=(
            f"{T}Boulware",
            {"name": "Sleep", "type": f"{F}Sleeper", "params": {"seconds": 30}},
        ),
        scenarios=("builtin:tiny",),
        self_play=False,
        pairing="combinations",
        time_limit=0.3,
    )
    t0 = time.perf_counter()
    run = run_tournament(cfg, tmp_path / "t.sqlite", "serial")
    # pre-empted at 0.3 s, not after the 30 s sleep (25 s: a loaded machine's sandbox
    # start-ups fit in it with room to spare; an un-pre-empted call does not)
    assert time.perf_counter() - t0 < 25
    rows = table(tmp_path / "t.sqlite", "SELECT failure_agent, failure_kind FROM sessions")
    assert run.ran == 2 and rows == [("Sleep", "timeout")] * 2


def test_ctrl_c_stops_cleanly_and_the_run_resumes(tmp_path: Path) -> None:
    gate = tmp_path / "gate"
    gate.touch()
    cfg = TournamentConfig(
        agents=(
            f"{T}Boulware",
            f"{T}Conceder",
            # its sessions wait while the gate file exists: they are certainly left when
            # the interrupt lands (a sleeping agent raced the clock: a quiet machine
            # finished all 54 sessions before the test's process could send it)
            {"name": "Gated", "type": f"{F}Gated", "params": {"path": str(gate)}},
        ),
        scenarios=("builtin:tiny",),
        reps=3,
        name="ctrlc",
    )
    total = len(schedule(cfg))
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump(cfg.to_dict()))
    out = tmp_path / "c.sqlite"
    # Ctrl-C as from a terminal: a child inherits an ignored SIGINT (Python then keeps it
    # ignored), and code run earlier in this test process may have left it ignored
    code = (
        "import signal; signal.signal(signal.SIGINT, signal.default_int_handler); "
        "from accord.tournament.cli import app; app()"
    )
    # -X faulthandler: a run that does not stop dumps where it waits (see _stop)
    cmd = [sys.executable, "-X", "faulthandler", "-c", code, "tournament", str(path)]
    cmd += ["--out", str(out), "--workers", "2", "--no-report"]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    proc = subprocess.Popen(
        cmd, cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.05)
        if out.exists() and _count(out) >= 1:  # the gated agent's sessions are still open
            break
    proc.send_signal(signal.SIGINT)
    # the interrupt has landed with the gated sessions open; opening the gate now means
    # only the run's own stopping can keep it alive (a call held at the gate could hold
    # a worker up to its 30 s limit, as long as this test waits)
    gate.unlink()
    stdout, stderr = _stop(proc, 30)
    assert proc.returncode == 130, stdout + stderr
    assert "interrupted: every finished session is stored" in stderr
    stored = _count(out)
    assert 0 < stored < total
    again = subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert again.returncode == 0, again.stdout + again.stderr
    assert f"{total} sessions ({total - stored} run now)" in again.stdout
    ids = table(out, "SELECT COUNT(*), COUNT(DISTINCT id) FROM sessions")
    assert ids == [(total, total)]


def _stop(proc: subprocess.Popen[str], seconds: float) -> tuple[str, str]:
    """The process's output once it exits; if it has not exited within ``seconds``, fail
    with the stacks faulthandler dumps on SIGABRT (where it waits)."""
    try:
        return proc.communicate(timeout=seconds)
    except subprocess.TimeoutExpired:
        proc.send_signal(signal.SIGABRT)
        stdout, stderr = proc.communicate(timeout=30)
        pytest.fail(f"the run did not stop within {seconds} s of Ctrl-C:\n{stderr[-6000:]}")


def _count(out: Path) -> int:
    try:
        return int(table(out, "SELECT COUNT(*) FROM sessions")[0][0])  # type: ignore[call-overload]
    except Exception:  # noqa: BLE001 - the file may not have its tables yet
        return 0


@pytest.mark.parametrize("n", [1])
def test_a_dead_worker_is_replaced_and_loses_only_its_session(tmp_path: Path, n: int) -> None:
    cfg = TournamentConfig(
        agents=(f"{T}Boulware", f"{T}Conceder", f"Crash={F}Crasher"),
        scenarios=("builtin:tiny",),
        reps=2,
    )
    out = tmp_path / "t.sqlite"
    run = run_tournament(cfg, out, "processes", workers=n)
    assert run.ran == run.total == len(schedule(cfg))
    rows = table(out, "SELECT failure_agent, COUNT(*) FROM sessions GROUP BY failure_agent")
    by = dict(rows)
    # every session with Crash in it failed because of Crash; all the others finished
    with_crash = sum("Crash" in s.agents for s in schedule(cfg))
    assert by.get("Crash") == with_crash
    assert by.get(None) == run.total - with_crash
