"""The bubblewrap command line of an ``os`` sandbox, and whether one can run here.

Visible inside, read-only: the system's libraries and binaries (``/usr``, ``/lib*``,
``/bin``), the Python runtime (``sys.base_prefix``, ``sys.prefix``), the directories of
the organiser's ``sys.path`` that installed packages come from (site-packages and what
their ``.pth`` files add), Accord's own package with its bundled data (scenario files,
league domain data, static pages) hidden, and the agent's own code directories.
Writable: a private tmpfs scratch (``/tmp``) and the agent's learning-data directory
where the league allows one. Nothing else: no working directory, no results, no other
entrants' code, no network (a new network namespace), no other processes (a new PID
namespace with its own ``/proc``).

Every ``os`` sandbox has its own user namespace and the seccomp filter of
:mod:`accord.sandbox.seccomp` (``--seccomp FD``). How the user namespace is made depends
on who runs the organiser (:func:`os_strategy`):

- ``"uid-userns"`` (root, where user namespaces work): bubblewrap itself runs as a uid
  of the sandbox's own (unused by anyone else, no capabilities) and creates an
  unprivileged user namespace; the agent's processes belong to that uid outside, so
  ``RLIMIT_NPROC`` counts only them (root would be exempt from it).
- ``"drop"`` (root, where they do not): bubblewrap runs privileged and the launcher
  drops to such a uid before the agent's code is imported.
- ``"userns"`` (any other user): bubblewrap creates an unprivileged user namespace as
  that user. The kernel counts ``RLIMIT_NPROC`` per user namespace and uid (5.14+), so
  the limit is set inside, by the launcher, on the namespace's processes alone; set
  before bubblewrap starts, it would count every process the organiser's user runs.

Directories are passed as open file descriptors, so the runtime may live under
``/root``.
"""

from __future__ import annotations

import functools
import os
import subprocess
import sys
import sysconfig
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

from accord.core.errors import StateError
from accord.sandbox.datadir import DATA_IN

__all__ = ["SCRATCH", "Mounts", "bwrap_command", "os_strategy"]

SCRATCH = "/tmp"
BYTECODE = "/.accord-bytecode"
"""Where the organiser's cache of Accord's compiled modules is, inside the sandbox."""
_SYSTEM = ("/usr", "/lib", "/lib64", "/lib32", "/bin", "/sbin")
_ETC = ("/etc/ld.so.cache", "/etc/localtime")
_CODE_SUFFIXES = (".py", ".pyc", ".pyi", ".so", ".pth")
_UID_BASE = 0x60000000
_uid_counter = 0


def running_as_root() -> bool:
    """Whether this (organiser) process runs with effective uid 0."""
    return os.geteuid() == 0


def next_uid() -> int:
    """A uid (and gid) used by no one else: one per sandbox of this organiser process
    (the pid's 22 bits, Linux's largest ``pid_max``, and 256 sandboxes in turn), in
    ``0x60000000``-``0x9fffffff``, far above the ranges systems hand out.

    >>> _UID_BASE <= next_uid() <= 0x9FFFFFFF
    True
    """
    global _uid_counter
    _uid_counter += 1
    return _UID_BASE + ((os.getpid() & 0x3FFFFF) << 8) + (_uid_counter & 255)


@functools.cache
def os_strategy() -> str:
    """How this organiser makes an ``os`` sandbox's user namespace: ``"uid-userns"``,
    ``"drop"`` or ``"userns"`` (see the module docstring). Cached per process; as root
    it tries one user namespace as an unused uid (a few milliseconds)."""
    if not running_as_root():
        return "userns"
    uid = next_uid()
    try:
        done = subprocess.run(
            ["bwrap", "--unshare-user", "--disable-userns", "--ro-bind", "/", "/", "true"],
            user=uid, group=uid, extra_groups=[], capture_output=True, timeout=30,
        )  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return "drop"
    return "uid-userns" if done.returncode == 0 else "drop"


def accord_package_dir() -> Path:
    """The resolved directory of the installed ``accord`` package."""
    import accord

    return Path(accord.__file__).resolve().parent


def hidden_data(package: Path) -> tuple[list[str], list[str]]:
    """Accord's bundled data: ``(directories holding no code, data files beside code)``
    (walked once per process: every sandbox hides the same)."""
    dirs, files = _hidden_data(str(package))
    return list(dirs), list(files)


@functools.lru_cache(maxsize=8)
def _hidden_data(package: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    dirs: list[str] = []
    files: list[str] = []
    for root, subdirs, names in os.walk(package):
        subdirs[:] = [d for d in subdirs if d != "__pycache__"]
        here = Path(root)
        if not any(n.endswith(_CODE_SUFFIXES) for n in names) and not _has_code(here):
            dirs.append(str(here))
            subdirs[:] = []
            continue
        files += [
            str(here / n) for n in names if not n.endswith(_CODE_SUFFIXES) and n != "py.typed"
        ]
    return tuple(dirs), tuple(files)


def _has_code(path: Path) -> bool:
    return any(p.suffix in (".py", ".so") for p in path.rglob("*"))


def runtime_paths() -> tuple[list[str], list[str]]:
    """``(directories to mount read-only, sys.path for the sandbox)`` from this process's
    runtime: the prefixes, site-packages, ``.pth`` additions and Accord's package
    (found once per ``sys.path``: every sandbox of a run mounts the same)."""
    mounts, path = _runtime_paths(tuple(sys.path))
    return list(mounts), list(path)


@functools.lru_cache(maxsize=8)
def _runtime_paths(entries: tuple[str, ...]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    prefixes = {os.path.realpath(p) for p in (sys.base_prefix, sys.prefix, sys.exec_prefix)}
    mounts = set(prefixes)
    stdlib = {sysconfig.get_path(k) for k in ("stdlib", "platstdlib", "purelib", "platlib")}
    pth_dirs = set(_pth_entries())
    accord_parent = str(accord_package_dir().parent)
    path: list[str] = []
    for entry in entries:
        if not entry or not os.path.exists(entry):
            continue
        real = os.path.realpath(entry)
        under_prefix = any(real == p or real.startswith(p + os.sep) for p in prefixes)
        if under_prefix or entry in stdlib or real in pth_dirs:
            path.append(entry)
            if not under_prefix:
                mounts.add(real)
        elif real == accord_parent:
            path.append(entry)  # only the accord package of it is mounted (below)
    if accord_parent not in {os.path.realpath(p) for p in path}:
        path.append(accord_parent)
    return tuple(sorted(mounts)), tuple(path)


def _pth_entries() -> Iterator[str]:
    for site in {sysconfig.get_path("purelib"), sysconfig.get_path("platlib")}:
        try:
            names = os.listdir(site)
        except OSError:
            continue
        for name in names:
            if not name.endswith(".pth"):
                continue
            try:
                lines = Path(site, name).read_text(encoding="utf-8").splitlines()
            except (OSError, UnicodeDecodeError):
                continue
            for line in lines:
                line = line.strip()
                if line and not line.startswith(("#", "import ", "import\t")):
                    full = os.path.realpath(os.path.join(site, line))
                    if os.path.isdir(full):
                        yield full


class Mounts:
    """The bwrap arguments and the directory fds they refer to (close them after start).

    ``staged`` (the ``"uid-userns"`` strategy): bubblewrap runs as a uid that may not
    traverse the sources (a runtime under ``/root``), so each source fd is bind-mounted
    by :func:`stage_and_drop` at ``STAGE/<i>`` in a private mount namespace first (as
    root) and the arguments name those paths; otherwise they name fds
    (``--ro-bind-fd``) of the sources.
    """

    def __init__(self, staged: bool = False) -> None:
        self.args: list[str] = []
        self.fds: list[int] = []
        self.staged = staged
        self.stage: list[tuple[str, bool]] = []  # (source, is a directory)
        self._dirs: set[str] = set()

    def ro(self, src: str, dest: str | None = None) -> None:
        self._bind("--ro-bind", src, dest)

    def rw(self, src: str, dest: str | None = None) -> None:
        self._bind("--bind", src, dest)

    def parents(self, dest: str) -> None:
        """Make the parents of ``dest`` readable directories (bwrap makes missing ones
        0700: unreadable once the launcher drops root)."""
        for parent in reversed(list(Path(dest).parents)[:-1]):
            if str(parent) not in self._dirs:
                self._dirs.add(str(parent))
                self.args += ["--dir", str(parent)]

    def _bind(self, flag: str, src: str, dest: str | None) -> None:
        dest = dest or src
        self.parents(dest)
        if self.staged:
            self.args += [flag, f"{STAGE}/{len(self.stage)}", dest]
            self.stage.append((src, os.path.isdir(src)))
            return
        fd = os.open(src, os.O_PATH | os.O_CLOEXEC)
        self.fds.append(fd)
        self.args += [flag + "-fd", str(fd), dest]

    def close(self) -> None:
        for fd in self.fds:
            os.close(fd)
        self.fds = []


STAGE = "/tmp/.accord-stage"
_CLONE_NEWNS = 0x00020000
_MS_BIND, _MS_REC, _MS_PRIVATE = 0x1000, 0x4000, 0x40000


def stage_and_drop(stage: Sequence[tuple[str, bool]], uid: int) -> Callable[[], None]:
    """Run in the child between fork and exec (as root): a private mount namespace with
    a fresh tmpfs on ``/tmp`` (bubblewrap's own base directory goes there too), each
    source bind-mounted at ``STAGE/<i>``, then every uid and gid set to ``uid`` with no
    supplementary groups (all capabilities go with root)."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)

    def check(result: int, what: str) -> None:
        if result != 0:
            err = ctypes.get_errno()
            raise StateError(f"staging the sandbox's mounts: {what}: {os.strerror(err)}")

    def run() -> None:
        check(libc.unshare(_CLONE_NEWNS), "unshare")
        check(libc.mount(None, b"/", None, _MS_REC | _MS_PRIVATE, None), "mount private")
        # opened before the tmpfs covers /tmp: a source under /tmp stays reachable
        fds = [os.open(src, os.O_PATH | os.O_CLOEXEC) for src, _ in stage]
        check(libc.mount(b"accord", b"/tmp", b"tmpfs", 0, b"mode=1777,size=1m"), "tmpfs")
        os.mkdir(STAGE, 0o755)
        for i, ((src, is_dir), fd) in enumerate(zip(stage, fds, strict=True)):
            target = f"{STAGE}/{i}"
            if is_dir:
                os.mkdir(target, 0o755)
            else:
                os.close(os.open(target, os.O_CREAT | os.O_WRONLY, 0o644))
            source = f"/proc/self/fd/{fd}".encode()
            check(libc.mount(source, target.encode(), None, _MS_BIND | _MS_REC, None), src)
            os.close(fd)
        os.setgroups([])
        os.setresgid(uid, uid, uid)
        os.setresuid(uid, uid, uid)

    return run


def bwrap_command(
    inner: Sequence[str],
    *,
    code_paths: Sequence[str],
    code_mounts: Sequence[str] = (),
    data_dir: str | None,
    scratch_bytes: int,
    drop_root: bool,
    seccomp: int | None = None,
    staged: bool = False,
    data_bytes: int = 64 << 20,
    bytecode: str | None = None,
    forking: bool = False,
) -> Mounts:
    """The mounts and bwrap arguments running ``inner`` in a fresh sandbox.

    ``drop_root``: bubblewrap runs privileged and the launcher drops root (the ``"drop"``
    strategy); otherwise it makes a user namespace. ``seccomp``: an fd holding the
    filter program. The returned :class:`Mounts` holds ``args`` (the whole command
    line) and ``fds`` (pass them to the child; close them afterwards); ``staged``: see
    :class:`Mounts`. ``data_dir`` becomes a tmpfs of ``data_bytes`` at its own path, its
    stored copy read-only at :data:`~accord.sandbox.datadir.DATA_IN`
    (:mod:`accord.sandbox.datadir`). ``bytecode``: the organiser's cache of Accord's
    compiled modules (:mod:`accord._bytecode`), mounted read-only at :data:`BYTECODE`
    (not at its own path: that would show the organiser's directories). ``forking``:
    the command of a zygote (:mod:`accord.sandbox.zygote`), whose children make their
    own namespaces and install the filter themselves: user namespaces stay allowed and
    the root and ``/dev`` are read-only.
    """
    m = Mounts(staged)
    m.args = ["bwrap"]
    if drop_root:  # privileged bwrap; the launcher drops to a uid of its own
        m.args += ["--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
    else:
        m.args += ["--unshare-user"] if forking else ["--unshare-user", "--disable-userns"]
    if seccomp is not None:
        m.args += ["--seccomp", str(seccomp)]
        m.fds.append(seccomp)
    m.args += [
        "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts",
        "--unshare-cgroup-try", "--die-with-parent", "--new-session",
        "--hostname", "sandbox", "--clearenv",
        "--setenv", "PATH", "/usr/bin:/bin", "--setenv", "HOME", SCRATCH,
        "--setenv", "OPENBLAS_NUM_THREADS", "1", "--setenv", "OMP_NUM_THREADS", "1",
        "--setenv", "MKL_NUM_THREADS", "1", "--setenv", "PYTHONDONTWRITEBYTECODE", "1",
    ]  # fmt: skip
    for path in _SYSTEM:
        if os.path.islink(path):
            m.args += ["--symlink", os.readlink(path), path]
        elif os.path.isdir(path):
            m.ro(path)
    for path in _ETC:
        if os.path.exists(path):
            m.ro(path)
    m.args += ["--proc", "/proc", "--dev", "/dev"]
    m.args += ["--perms", "1777", "--size", str(scratch_bytes), "--tmpfs", SCRATCH]
    runtime, syspath = runtime_paths()
    for path in runtime:
        if not path.startswith(("/usr/", "/lib")):
            m.ro(path)
    package = accord_package_dir()
    m.ro(str(package))
    copies = {str(package)} | {os.path.realpath(os.path.join(p, "accord")) for p in syspath}
    for copy in sorted(c for c in copies if os.path.isfile(os.path.join(c, "__init__.py"))):
        dirs, files = hidden_data(Path(copy))  # every copy of Accord on the path
        for d in dirs:
            m.args += ["--tmpfs", d, "--remount-ro", d]
        for f in files:
            m.args += ["--ro-bind", "/dev/null", f]
    if bytecode is not None:
        m.ro(bytecode, BYTECODE)
    for path in code_mounts or code_paths:
        real = os.path.realpath(path)
        m.ro(real, real)
    if data_dir is not None:
        real = os.path.realpath(data_dir)
        m.ro(real, DATA_IN)
        m.parents(real)
        m.args += ["--perms", "1777", "--size", str(data_bytes), "--tmpfs", real]
    if forking:  # the children mount their own /tmp, /dev/shm and /dev/pts
        m.args += ["--remount-ro", "/dev", "--remount-ro", "/"]
    m.args += ["--chdir", SCRATCH, "--", *inner]
    return m


@functools.cache
def bytecode_root() -> str | None:
    """The organiser's cache of Accord's compiled modules, brought up to date once per
    process (:mod:`accord._bytecode`), or None where it cannot be kept."""
    from accord._bytecode import accord_dir, prepare

    return prepare(accord_dir())
