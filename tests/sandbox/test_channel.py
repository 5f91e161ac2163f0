"""The sandbox's channel and limits against hostile agents, in both modes where safe.

Each hostile behaviour lives in ``entries/hostile_fns.py`` and runs inside a sandbox
through ``EchoHost``; the organiser must get one typed failure with its reason, never
hang past the deadline, never run what the agent sends, and stay alive.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from accord.sandbox import (
    AgentCrashed,
    AgentProtocolError,
    AgentRaised,
    AgentTimeout,
    Limits,
    Sandbox,
    start_sandbox,
)

ENTRIES = str(Path(__file__).parent / "entries")
HOST = "accord.sandbox.host:EchoHost"
AGENT = "hostile_fns:run"
FAST = Limits(cpu_seconds=20, memory_mb=1024, call_timeout=2.0, startup_timeout=60)

pytestmark = pytest.mark.needs_bwrap


def box(limits: Limits = FAST, mode: str = "os", fork: bool = False) -> Sandbox:
    return start_sandbox(HOST, AGENT, code_paths=[ENTRIES], limits=limits, mode=mode, fork=fork)


@pytest.fixture(scope="module", params=[False, True], ids=["bwrap", "forked"])
def shared(request: pytest.FixtureRequest) -> Iterator[Sandbox]:
    """One sandbox for the behaviours that leave it alive: started by bubblewrap, and
    forked from a zygote (:mod:`accord.sandbox.zygote`)."""
    b = box(fork=request.param)
    yield b
    b.close()


def test_a_call_round_trips_json_and_startup_is_measured(shared: Sandbox) -> None:
    assert shared.call("echo", {"a": [1, 2.5, None, "x"]}) == {"a": [1, 2.5, None, "x"]}
    assert shared.startup_seconds is not None and shared.startup_seconds > 0


@pytest.mark.parametrize(
    ("op", "kind"),
    [("kbint", "KeyboardInterrupt"), ("sysexit", "SystemExit"), ("nope", "ValueError")],
)
def test_an_exception_is_reported_and_the_agent_lives_on(
    shared: Sandbox, op: str, kind: str
) -> None:
    with pytest.raises(AgentRaised) as info:
        shared.call(op)
    assert info.value.type_name == kind and kind in info.value.reason
    assert "hostile_fns.py" in info.value.agent_traceback or kind == "ValueError"
    assert shared.call("echo", 1) == 1


def test_limits_are_hard_and_cannot_be_lifted(shared: Sandbox) -> None:
    lifted = shared.call("lift")
    assert lifted == dict.fromkeys(lifted, "ValueError") and len(lifted) == 5


def test_memory_beyond_the_limit_fails_in_the_agent_only(shared: Sandbox) -> None:
    with pytest.raises(AgentRaised, match="MemoryError"):
        shared.call("mem", 1500)  # above the 1024 MB address-space limit
    assert shared.call("mem", 50) == 50 * 1024 * 1024


def test_a_stdout_and_stderr_flood_neither_blocks_nor_corrupts(shared: Sandbox) -> None:
    assert shared.call("flood", 20, timeout=30) == "flooded"  # 20 MB on each stream
    assert shared.call("echo", "after") == "after"
    assert len(shared.stderr_tail()) <= 8192


def test_threads_left_running_do_not_disturb_later_calls(shared: Sandbox) -> None:
    assert shared.call("thread") >= 2
    assert shared.call("echo", 2) == 2


def test_the_sandbox_sees_no_organiser_files_network_or_processes(
    shared: Sandbox, tmp_path: Path
) -> None:
    import accord

    results = tmp_path / "results.sqlite"
    results.write_bytes(b"SQLite format 3\x00" + b"\x00" * 100)
    scenario = Path(accord.__file__).parent / "scenarios" / "holiday.json"
    own = Path(ENTRIES) / "hostile_fns.py"
    seen = shared.call("files", [str(results), str(scenario), str(own), os.getcwd()])
    assert seen[str(results)] == "FileNotFoundError; FileNotFoundError"
    hidden = seen[str(scenario)]  # covered by /dev/null: unreadable or empty
    assert hidden.startswith(("PermissionError", "read 0 bytes")) and "wrote" not in hidden
    assert seen[str(own)].startswith("read 100 bytes") and "wrote" not in seen[str(own)]
    assert results.read_bytes().endswith(b"\x00") and scenario.stat().st_size > 100
    proc = shared.call("proc", os.getpid())
    assert proc["kill"] == "ProcessLookupError" and proc["pids"][:1] == ["1"]
    assert proc["mem"] == proc["fd"] == proc["environ"] == "FileNotFoundError"
    net = shared.call("net", [["127.0.0.1", 22], ["1.1.1.1", 80]])
    assert set(net.values()) <= {"ConnectionRefusedError", "OSError"}
    assert "connected" not in net.values()
    who = shared.call("who")
    assert who["uid"] != 0 and who["cwd"] == "/tmp"
    assert "work" not in who["root"] or os.getcwd() not in {p for p in who["path"]}


def test_a_crafted_pickle_is_refused_and_never_run(tmp_path: Path) -> None:
    mark = tmp_path / "pwned"
    os.environ["HOSTILE_MARK"] = str(mark)
    for op in ("pickle", "pickle_in_json"):
        b = box(mode="process")  # even without the OS sandbox the channel holds
        with pytest.raises(AgentProtocolError):
            b.call(op)
        b.close()
    assert not mark.exists()


@pytest.mark.parametrize(
    ("op", "failure", "words"),
    [
        ("partial", AgentTimeout, "did not answer within 2 s"),
        ("oversize", AgentProtocolError, "1073741824 bytes"),
        ("notjson", AgentProtocolError, "not JSON"),
        ("shape", AgentProtocolError, "wrong shape"),
        ("exit", AgentCrashed, "exit code 7"),
        ("sleep", AgentTimeout, "did not answer"),
    ],
)
def test_bad_frames_exits_and_hangs_end_in_one_typed_failure_in_time(
    op: str, failure: type, words: str
) -> None:
    b = box()
    b.call("echo", 0)
    start = time.monotonic()
    with pytest.raises(failure, match=words):
        b.call(op, 30)
    assert time.monotonic() - start < 15  # generous: the deadline is 2 s
    assert not b.alive
    with pytest.raises(failure):  # the failure sticks
        b.call("echo", 1)
    b.close()


def test_cpu_hog_is_killed_by_the_cpu_limit() -> None:
    b = box(Limits(cpu_seconds=2, call_timeout=60, startup_timeout=60))
    with pytest.raises(AgentCrashed, match="SIGXCPU|SIGKILL"):
        b.call("cpu")
    b.close()


@pytest.mark.parametrize("fork", [False, True], ids=["bwrap", "forked"])
def test_fork_bomb_is_contained_by_the_process_limit(fork: bool) -> None:
    b = box(Limits(processes=16, call_timeout=30, startup_timeout=60), fork=fork)
    out = b.call("fork")
    assert out["error"] == 11 and out["forked"] < 16  # EAGAIN
    b.close()
    assert b.call  # the organiser is unharmed


def test_kill_everything_kills_only_the_sandbox() -> None:
    b = box()
    with pytest.raises((AgentCrashed, AgentRaised, AgentTimeout)):
        b.call("killall")
        b.call("echo", 1)
    b.close()


def test_a_file_beyond_the_file_size_limit_is_stopped() -> None:
    b = box(Limits(file_size_mb=4, call_timeout=10))
    with pytest.raises(
        (AgentCrashed, AgentRaised), match="SIGXFSZ|file-size|No space|File too large"
    ):
        b.call("bigfile", 8)
    b.close()
