"""An agent's own learning-data directory in the ``os`` sandbox: persistent, private and
size-capped.

Inside the sandbox the directory is a tmpfs of ``Limits.data_mb`` (a hard cap: a write
beyond it fails with ``ENOSPC``, in the agent only) at the same path as on the host.
The launcher fills it from the stored copy (mounted read-only at :data:`DATA_IN`)
before any of the agent's code runs, then tells the organiser, which opens the tmpfs
through ``/proc/<pid>/root`` at that moment (nothing of the agent has run yet, so no
path on the way can be its symlink). When the sandbox ends the organiser copies the
tmpfs back through that descriptor: regular files and directories only, never following
a link, into a fresh directory that then replaces the stored one. No other agent's
sandbox mounts it; another agent's data is simply not there.

    >>> import tempfile, pathlib
    >>> src = pathlib.Path(tempfile.mkdtemp()); (src / "a").mkdir()
    >>> _ = (src / "a" / "n.txt").write_text("3"); (src / "link").symlink_to("/etc")
    >>> dest = pathlib.Path(tempfile.mkdtemp()) / "agent"
    >>> fd = os.open(src, os.O_PATH | os.O_DIRECTORY)
    >>> save_data(fd, dest, cap_bytes=1 << 20)
    1
    >>> os.close(fd); sorted(p.name for p in dest.rglob("*")), (dest / "a" / "n.txt").read_text()
    (['a', 'n.txt'], '3')
"""

from __future__ import annotations

import os
import shutil
import stat
import uuid
from pathlib import Path

__all__ = ["DATA_IN", "copy_in", "open_data", "save_data"]

DATA_IN = "/run/accord-data-in"
"""Where the stored copy of the agent's data is visible (read-only) inside the sandbox."""


def copy_in(src: str, dest: str) -> None:
    """The launcher's copy of the stored data into the tmpfs (before the agent runs)."""
    for root, dirs, files in os.walk(src):
        rel = os.path.relpath(root, src)
        target = dest if rel == "." else os.path.join(dest, rel)
        os.makedirs(target, exist_ok=True)
        for name in files:
            path = os.path.join(root, name)
            if os.path.isfile(path) and not os.path.islink(path):
                shutil.copyfile(path, os.path.join(target, name))
        dirs[:] = [d for d in dirs if not os.path.islink(os.path.join(root, d))]


def open_data(outer_pid: int, path: str) -> int | None:
    """An ``O_PATH`` descriptor of ``path`` as the sandbox of ``outer_pid`` (bubblewrap's
    pid) sees it, or None if it cannot be reached (the sandbox is gone)."""
    try:
        with open(f"/proc/{outer_pid}/task/{outer_pid}/children", encoding="ascii") as f:
            children = [int(c) for c in f.read().split()]
    except (OSError, ValueError):
        return None
    for child in children:
        try:
            return os.open(f"/proc/{child}/root{path}", os.O_PATH | os.O_DIRECTORY)
        except OSError:
            continue
    return None


def save_data(fd: int, dest: Path, cap_bytes: int) -> int:
    """Copy the tree under ``fd`` into ``dest`` (replaced as a whole): regular files and
    directories only, no link followed, at most ``cap_bytes`` in all; returns how many
    files were kept."""
    dest = Path(dest)
    fresh = dest.with_name(f".{dest.name}.new-{uuid.uuid4().hex[:8]}")
    fresh.mkdir(parents=True)
    os.chmod(fresh, 0o755)  # the sandbox's own uid reads it next time, whatever the umask
    kept = [0, cap_bytes]
    try:
        _copy_dir(fd, fresh, kept, depth=0)
    except BaseException:
        shutil.rmtree(fresh, ignore_errors=True)
        raise
    old = dest.with_name(f".{dest.name}.old-{uuid.uuid4().hex[:8]}")
    if dest.exists():
        os.replace(dest, old)
    os.replace(fresh, dest)
    shutil.rmtree(old, ignore_errors=True)
    return kept[0]


def _copy_dir(dir_fd: int, target: Path, kept: list[int], depth: int) -> None:
    if depth > 32:
        return
    try:
        real = os.open(".", os.O_RDONLY | os.O_DIRECTORY, dir_fd=dir_fd)
    except OSError:
        return
    try:
        names = os.listdir(real)
        for name in names:
            try:
                info = os.stat(name, dir_fd=real, follow_symlinks=False)
            except OSError:
                continue
            if stat.S_ISDIR(info.st_mode):
                sub = os.open(name, os.O_PATH | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=real)
                try:
                    (target / name).mkdir()
                    os.chmod(target / name, 0o755)
                    _copy_dir(sub, target / name, kept, depth + 1)
                finally:
                    os.close(sub)
            elif stat.S_ISREG(info.st_mode) and info.st_size <= kept[1]:
                _copy_file(real, name, target / name, kept)
    finally:
        os.close(real)


def _copy_file(dir_fd: int, name: str, target: Path, kept: list[int]) -> None:
    try:
        src = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=dir_fd)
    except OSError:
        return
    try:
        if not stat.S_ISREG(os.fstat(src).st_mode):
            return
        out_fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        os.fchmod(out_fd, 0o644)
        with open(out_fd, "wb") as out:
            while kept[1] > 0:
                chunk = os.read(src, min(1 << 20, kept[1]))
                if not chunk:
                    break
                out.write(chunk)
                kept[1] -= len(chunk)
        kept[0] += 1
    finally:
        os.close(src)
