"""The ``os`` sandbox of an organiser that is not root (``bwrap --unshare-user`` as that
user): the red-team checks of ``nonroot_organiser.py``, run as an unprivileged uid.

As root the script runs as a fresh unused uid (``setresuid`` before exec) in a private
mount namespace where the Python runtime is made reachable (it may live under
``/root``, which that uid cannot enter): the organiser is then an ordinary user, with
more processes of its own than a sandbox may have.
"""

from __future__ import annotations

import ctypes
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from accord.sandbox.bwrap import next_uid

pytestmark = pytest.mark.needs_bwrap
SCRIPT = Path(__file__).with_name("nonroot_organiser.py")
_CLONE_NEWNS, _MS_BIND, _MS_REC, _MS_PRIVATE = 0x20000, 0x1000, 0x4000, 0x40000


def _closed_ancestor(path: str) -> str | None:
    """The highest directory above ``path`` that others may not enter, if any."""
    for parent in reversed(Path(path).parents):
        if parent != Path("/") and not os.stat(parent).st_mode & 0o001:
            return str(parent)
    return None


def _as_user(uid: int, runtime: list[str]) -> Callable[[], None]:
    """Between fork and exec, as root: make ``runtime`` reachable in a private mount
    namespace (a tmpfs over each closed ancestor, the directory bound back), then
    become ``uid`` with no groups and no capabilities."""
    libc = ctypes.CDLL(None, use_errno=True)

    def run() -> None:
        assert libc.unshare(_CLONE_NEWNS) == 0
        assert libc.mount(None, b"/", None, _MS_REC | _MS_PRIVATE, None) == 0
        for path in runtime:
            closed = _closed_ancestor(path)
            if closed is None:
                continue
            fd = os.open(path, os.O_PATH)
            assert libc.mount(b"runtime", closed.encode(), b"tmpfs", 0, b"mode=0755") == 0
            os.makedirs(path, 0o755, exist_ok=True)
            source = f"/proc/self/fd/{fd}".encode()
            assert libc.mount(source, path.encode(), None, _MS_BIND | _MS_REC, None) == 0
            os.close(fd)
        os.setgroups([])
        os.setresgid(uid, uid, uid)
        os.setresuid(uid, uid, uid)

    return run


def _open_dir() -> str | None:
    """A temporary directory every user may enter (pytest's own is closed to others)."""
    for base in (tempfile.gettempdir(), "/tmp", "/var/tmp"):
        if os.path.isdir(base) and _closed_ancestor(os.path.join(base, "x")) is None:
            return base
    return None


@pytest.fixture
def work() -> Iterator[Path]:
    base = _open_dir()
    if base is None:
        pytest.skip("no temporary directory that an unprivileged uid may enter")
    path = Path(tempfile.mkdtemp(prefix="accord-nonroot-", dir=base))
    yield path
    shutil.rmtree(path, ignore_errors=True)


def test_a_non_root_organiser_keeps_every_red_team_check(work: Path) -> None:
    env = {
        "PATH": "/usr/bin:/bin",
        "PYTHONPATH": os.pathsep.join(p for p in sys.path if p and os.path.isdir(p)),
        "HOME": str(work),
        "TMPDIR": str(work),
    }
    preexec = None
    if os.geteuid() == 0:
        uid = next_uid()
        os.chown(work, uid, uid)
        runtime = sorted({os.path.realpath(p) for p in (sys.base_prefix, sys.prefix)})
        preexec = _as_user(uid, runtime)
    done = subprocess.run(
        [sys.executable, str(SCRIPT)], cwd=work, env=env, capture_output=True, text=True,
        timeout=300, preexec_fn=preexec,  # noqa: PLW1509 - mounts and setresuid only
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["uid"] != 0 and seen["available"] is None and seen["strategy"] == "userns"
    assert seen["echo"] == [1, "x"] and seen["threads"] >= 2  # 40 own processes: not counted
    assert seen["lift"] == dict.fromkeys(seen["lift"], "ValueError") and len(seen["lift"]) == 5
    assert list(seen["files"].values()) == ["FileNotFoundError; FileNotFoundError"]
    proc = seen["proc"]
    assert proc["kill"] == "ProcessLookupError" and proc["mem"] == "FileNotFoundError"
    assert seen["fork"]["error"] == 11 and seen["fork"]["forked"] < 16  # EAGAIN at the limit
    assert seen["denied"] == ["ENOSYS", "EPERM", "ok"]
    status = seen["status"]
    assert status["Seccomp"] == "2" and int(status["CapEff"], 16) == 0
    assert seen["partial"] == ["timeout", True]
    ran, total, rows = seen["tournament"]
    assert ran == total == 1
    assert [a for a, _ in rows] == ["ProcSpy"]
    assert "contained: no organiser process visible" in rows[0][1]
    assert seen["results_intact"]
    assert seen["forking"] is None and seen["colluders"] == []  # forked: nothing passes
    assert seen["forked status"] == 2  # the agent's process, in a PID namespace of its own
