"""The ``os`` sandbox's seccomp filter and user namespace.

The filter program is checked call by call with a small interpreter of its opcodes
(both architectures), then a hostile agent tries every denied call inside a real
sandbox and sees ``EPERM`` while threads and ``fork`` still work; in ``process`` mode
(no filter) the same kind of call runs, so the refusal is the filter's.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from accord.sandbox import Limits, Sandbox, start_sandbox
from accord.sandbox import process as sandbox_process
from accord.sandbox.seccomp import (
    AUDIT_ARCH,
    CLONE,
    CLONE3,
    DENIED,
    ENOSYS,
    EPERM,
    PERSONALITY,
    RET_ALLOW,
    RET_ERRNO,
    RET_KILL_PROCESS,
    filter_program,
    run_filter,
)

ENTRIES = str(Path(__file__).parent / "entries")
AGENT = "hostile_syscalls:run"
LIMITS = Limits(cpu_seconds=20, memory_mb=1024, call_timeout=10.0, startup_timeout=60)
DENY = RET_ERRNO | EPERM
THREAD_FLAGS = 0x3D0F00  # what glibc's pthread_create passes to clone
# read, write, openat, mmap, futex, exit_group, getpid, kill: (x86_64, aarch64)
ALLOWED = [(0, 63), (1, 64), (257, 56), (9, 222), (202, 98), (231, 94), (39, 172), (62, 129)]


@pytest.mark.parametrize("arch", ["x86_64", "aarch64"])
def test_the_filter_program_answers_each_call_as_documented(arch: str) -> None:
    prog, me, i = filter_program(arch), AUDIT_ARCH[arch], ("x86_64", "aarch64").index(arch)
    for name, numbers in DENIED.items():
        if numbers[i] is not None:
            assert run_filter(prog, numbers[i], me) == DENY, name
    for numbers in ALLOWED:
        assert run_filter(prog, numbers[i], me) == RET_ALLOW
    assert run_filter(prog, 0, 0x40000003) == RET_KILL_PROCESS  # i386 (int 0x80)
    other = AUDIT_ARCH["aarch64" if arch == "x86_64" else "x86_64"]
    assert run_filter(prog, 0, other) == RET_KILL_PROCESS
    assert run_filter(prog, CLONE[arch], me, [THREAD_FLAGS]) == RET_ALLOW
    assert run_filter(prog, CLONE[arch], me, [17]) == RET_ALLOW  # fork: SIGCHLD only
    for flag in (0x20000, 0x2000000, 0x4000000, 0x8000000, 0x10000000, 0x20000000,
                 0x40000000, 0x80):  # fmt: skip
        assert run_filter(prog, CLONE[arch], me, [flag | 17]) == DENY, hex(flag)
    assert run_filter(prog, CLONE3[arch], me) == RET_ERRNO | ENOSYS
    assert run_filter(prog, PERSONALITY[arch], me, [0xFFFFFFFF]) == RET_ALLOW
    assert run_filter(prog, PERSONALITY[arch], me, [0]) == RET_ALLOW
    assert run_filter(prog, PERSONALITY[arch], me, [0x0040000]) == DENY
    if arch == "x86_64":
        assert run_filter(prog, 0x40000000, me) == DENY  # x32 read
    assert len(prog) // 8 < 100


@pytest.fixture(scope="module", params=[False, True], ids=["bwrap", "forked"])
def hostile(request: pytest.FixtureRequest) -> Iterator[Sandbox]:
    """Started by bubblewrap (which installs the filter), and forked from a zygote
    (whose child installs it itself: :mod:`accord.sandbox.forkserver`)."""
    box = start_sandbox("accord.sandbox.host:EchoHost", AGENT, code_paths=[ENTRIES],
                        limits=LIMITS, fork=request.param)  # fmt: skip
    yield box
    box.close()


@pytest.mark.needs_bwrap
def test_every_denied_call_is_refused_and_threads_and_fork_still_work(hostile: Sandbox) -> None:
    seen = hostile.call("denied")
    refused = {k: v for k, v in seen.items() if k not in ("clone3", "personality(query)",
                                                          "thread and fork")}  # fmt: skip
    assert refused == dict.fromkeys(refused, "EPERM") and len(refused) >= 50
    assert seen["clone3"] == "ENOSYS"  # glibc falls back to clone, whose flags are checked
    assert seen["personality(query)"] == seen["thread and fork"] == "ok"


@pytest.mark.needs_bwrap
def test_the_agent_runs_filtered_without_capabilities_in_a_user_namespace(
    hostile: Sandbox,
) -> None:
    status = hostile.call("status")
    assert status["Seccomp"] == "2" and status["Seccomp_filters"] == "1"
    assert status["NoNewPrivs"] == "1" and int(status["CapEff"], 16) == 0
    assert status["uid"] != "0"
    assert status["uid_map"] != "0 0 4294967295"  # not the host's: a user namespace of its own
    assert hostile.call("echo", [1]) == [1]


def test_without_the_filter_the_same_calls_run() -> None:
    """``process`` mode has no filter: the calls the sandbox refuses run here."""
    box = start_sandbox("accord.sandbox.host:EchoHost", AGENT, code_paths=[ENTRIES],
                        limits=LIMITS, mode="process")  # fmt: skip
    try:
        assert box.call("harmless") == {"unshare(0)": 0, "process_vm_readv(self, 0 iovecs)": 0}
        assert box.call("status")["Seccomp"] == "0"
    finally:
        box.close()


@pytest.mark.needs_bwrap
def test_the_root_fallback_without_a_user_namespace_is_filtered_too(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Root where user namespaces fail: privileged bwrap, the launcher drops root."""
    import os

    if os.geteuid() != 0:
        pytest.skip("the 'drop' strategy is the root organiser's fallback")
    monkeypatch.setattr(sandbox_process, "os_strategy", lambda: "drop")
    box = start_sandbox("accord.sandbox.host:EchoHost", AGENT, code_paths=[ENTRIES], limits=LIMITS)
    try:
        status = box.call("status")
        assert status["Seccomp"] == "2" and status["uid"] != "0"
        assert status["uid_map"] == "0 0 4294967295"  # no user namespace in this fallback
        assert box.call("denied")["ptrace"] == "EPERM"
    finally:
        box.close()
