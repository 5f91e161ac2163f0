"""Sandboxes forked from a zygote (:mod:`accord.sandbox.zygote`) against colluders.

Two forked sandboxes of one entrant (the tournament's sandboxes of one agent on two
sides of a scenario) try to pass a secret on every channel two processes of one user
on one machine could share: scratch files, ``/dev/shm``, the root and ``/dev``, an
abstract unix socket (network namespace), SysV shared memory (IPC namespace), ``/proc``
of the other (its memory, its command line) and signals. None may arrive; the same
attempts inside one sandbox find the secret (the test can fail). The zygote never
imports the agent, and a forked sandbox fails as a started one does.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from accord.sandbox import AgentCrashed, AgentTimeout, Limits, Sandbox, start_sandbox
from accord.sandbox.zygote import forking_unavailable

ENTRIES = str(Path(__file__).parent / "entries")
HOST = "accord.sandbox.host:EchoHost"
LIMITS = Limits(cpu_seconds=20, memory_mb=1024, call_timeout=1.0, startup_timeout=60)
SECRET = "opponent-utility-0.731"

pytestmark = pytest.mark.needs_bwrap


def forked() -> Sandbox:
    box = start_sandbox(HOST, "colluders:run", code_paths=[ENTRIES], limits=LIMITS, fork=True)
    where = box.call("where", None)
    assert where["imported here"]
    assert where["shared writable"] == []  # no page it could share with a sibling
    why = forking_unavailable()
    if why is not None:  # sandboxes then start one bubblewrap each (and are tested so)
        box.close()
        pytest.skip(f"sandboxes cannot be forked from a zygote here: {why}")
    return box


@pytest.fixture(scope="module")
def pair() -> Iterator[tuple[Sandbox, Sandbox]]:
    a, b = forked(), forked()
    yield a, b
    a.close()
    b.close()


def test_two_forked_sandboxes_of_one_entrant_pass_no_secret(pair: tuple[Sandbox, Sandbox]) -> None:
    a, b = pair
    planted = a.call("plant", SECRET)
    assert planted["/tmp/secret"] == planted["/dev/shm/secret"] == planted["shm"] == "written"
    assert planted["/secret"] == planted["/dev/secret"] == "Read-only file system"
    found = b.call("steal", None)
    own = set(b.call("where", None)["tasks"])
    assert {k: v for k, v in found.items() if SECRET in str(v)} == {}
    assert not any(k.endswith("/mem") for k in found)  # its init is not dumpable
    assert {k for k in found if k.startswith("kill")} <= {"kill 1", *(f"kill {t}" for t in own)}
    assert found["pids"] == [1, 2]  # its own: the namespace's first process and itself
    assert a.call("signalled", None) is False
    # the same attempts within one sandbox find the secret: the channels were real
    mine = a.call("steal", None)
    assert mine["/tmp/secret"] == mine["/dev/shm/secret"] == mine["shm"] == SECRET
    assert mine["abstract socket"] == SECRET


def test_the_zygote_never_imports_the_agent(pair: tuple[Sandbox, Sandbox]) -> None:
    a, b = pair
    wa, wb = a.call("where", None), b.call("where", None)
    assert wa["imported here"] and wb["imported here"] and wa["pid"] == wb["pid"] == 2


def test_a_forked_sandbox_fails_as_a_started_one_does() -> None:
    box = forked()
    with pytest.raises(AgentCrashed, match="SIGSEGV"):
        box.call("die", None)
    assert not box.alive
    box.close()
    box = forked()
    with pytest.raises(AgentTimeout, match="did not answer within 1 s"):
        box.call("sleep", 30)
    assert not box.alive and box._proc.wait(5) == 128 + 9  # killed through its pidfd
    box.close()


def test_no_zygote_where_sandboxes_cannot_make_namespaces(monkeypatch: pytest.MonkeyPatch) -> None:
    """A root organiser without unprivileged user namespaces (the ``drop`` strategy):
    sandboxes start one bubblewrap each, as before."""
    from accord.sandbox import bwrap
    from accord.sandbox.zygote import zygote_for

    monkeypatch.setattr(bwrap, "os_strategy", lambda: "drop")
    assert zygote_for(HOST, [ENTRIES], [], LIMITS) is None
