"""Compiled bytecode of Accord's own modules for its sandboxes, kept outside the source tree.

A sandboxed agent's process imports Accord (its host, the agents' base classes) at every
start, from a read-only mount and with ``-B``. Where the installed Accord has no
``__pycache__`` (a checkout run with ``PYTHONDONTWRITEBYTECODE=1``, as CI and this
project's machines do) it compiles about a hundred modules each time: a third of its
start-up CPU. So the organiser compiles Accord's modules once into its cache directory
(:func:`prepare`; ``$ACCORD_CACHE_DIR``, else ``$XDG_CACHE_HOME/accord`` or
``~/.cache/accord``; safe to delete at any time), mounts it read-only in the sandbox, and
the sandbox's bootstrap reads Accord's modules from it (:func:`install`), each checked
against its source's modification time and size as Python checks a ``.pyc``; a missing
or stale one is compiled from source as before. Only ``accord`` modules, never an
agent's. Nothing is written where the organiser cannot keep it private (a directory of
its own user, not writable by others); then sandboxes compile as before.

This module imports nothing of Accord: the bootstrap imports it first.

    >>> import pathlib, tempfile
    >>> pkg = pathlib.Path(tempfile.mkdtemp(), "pkg")
    >>> pkg.mkdir(); _ = (pkg / "m.py").write_text("x = 1")
    >>> root = prepare(str(pkg), tempfile.mkdtemp())
    >>> os.path.isfile(cached(root, str(pkg / "m.py")))
    True
"""

from __future__ import annotations

import importlib.machinery
import marshal
import os
import sys
from importlib._bootstrap_external import MAGIC_NUMBER  # (importlib.util costs more)
from typing import Any

__all__ = ["accord_dir", "cache_root", "cached", "install", "prepare"]

_MAGIC = MAGIC_NUMBER


def accord_dir() -> str:
    """The real directory of the ``accord`` package."""
    import accord

    return os.path.dirname(os.path.realpath(accord.__file__))


def cache_root() -> str:
    """Where the organiser keeps the bytecode: ``$ACCORD_CACHE_DIR/bytecode/<tag>``
    (else under ``$XDG_CACHE_HOME/accord`` or ``~/.cache/accord``)."""
    base = os.environ.get("ACCORD_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"),
        "accord",
    )
    return os.path.join(os.path.realpath(base), "bytecode", sys.implementation.cache_tag or "")


def cached(root: str, source: str) -> str:
    """The cached ``.pyc`` of ``source`` (a mirror of its real path under ``root``)."""
    return root + os.path.realpath(source) + "c"


def _fresh(pyc: str, source: os.stat_result) -> bool:
    try:
        with open(pyc, "rb") as f:
            head = f.read(16)
    except OSError:
        return False
    return _header_ok(head, source)


def _header_ok(head: bytes, source: os.stat_result) -> bool:
    return (
        len(head) >= 16
        and head[:4] == _MAGIC
        and int.from_bytes(head[4:8], "little") == 0  # timestamp-checked
        and int.from_bytes(head[8:12], "little") == int(source.st_mtime) & 0xFFFFFFFF
        and int.from_bytes(head[12:16], "little") == source.st_size & 0xFFFFFFFF
    )


def _private(path: str) -> bool:
    """Whether nobody but this user (or root) can plant bytecode at ``path``: it is this
    user's, and it and every directory above it belong to this user or root and are
    writable by no one else (or sticky, as ``/tmp``)."""
    me = os.geteuid()
    try:
        if os.stat(path).st_uid != me:
            return False
        while True:
            st = os.stat(path)
            if st.st_uid not in (me, 0) or (st.st_mode & 0o022 and not st.st_mode & 0o1000):
                return False
            if path == os.path.dirname(path):
                return True
            path = os.path.dirname(path)
    except OSError:
        return False


def prepare(package: str, root: str | None = None) -> str | None:
    """Compile every module of ``package`` whose cached bytecode under ``root`` (default
    :func:`cache_root`) is missing or stale; the root, or None where it cannot be kept
    private (see the module docstring). Quick once done: one ``stat`` and one 16-byte
    read per module."""
    import py_compile  # the organiser's side only

    root = cache_root() if root is None else os.path.realpath(root)
    try:
        os.makedirs(root, mode=0o755, exist_ok=True)
    except OSError:
        return None
    if not _private(root):
        return None
    for where, dirs, names in os.walk(package):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        for name in names:
            if not name.endswith(".py"):
                continue
            source = os.path.join(where, name)
            try:
                st = os.stat(source)
            except OSError:
                continue
            pyc = cached(root, source)
            if _fresh(pyc, st):
                continue
            try:
                os.makedirs(os.path.dirname(pyc), mode=0o755, exist_ok=True)
                py_compile.compile(
                    source,
                    cfile=pyc,
                    doraise=True,
                    optimize=0,
                    invalidation_mode=py_compile.PycInvalidationMode.TIMESTAMP,
                )
            except (OSError, py_compile.PyCompileError, ValueError):
                continue  # the sandbox compiles this one from source
    return root


class _Loader(importlib.machinery.SourceFileLoader):
    """Accord's module from the cached bytecode when it is fresh, else from source."""

    root = ""

    def get_code(self, fullname: str) -> Any:
        source = self.get_filename(fullname)
        try:
            st = os.stat(source)
            with open(cached(self.root, source), "rb") as f:
                data = f.read()
            if _header_ok(data[:16], st):
                return marshal.loads(memoryview(data)[16:])
        except (OSError, ValueError, EOFError, TypeError):
            pass
        return super().get_code(fullname)


class _Finder:
    """Finds ``accord`` modules as the path finder does, loading them with :class:`_Loader`."""

    def __init__(self, root: str) -> None:
        self.loader = type("_RootedLoader", (_Loader,), {"root": root})

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> Any:
        if not name.startswith("accord."):
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, path, target)
        if spec is not None and type(spec.loader) is importlib.machinery.SourceFileLoader:
            spec.loader = self.loader(spec.loader.name, spec.loader.path)
        return spec


def install(root: str | None) -> None:
    """In the sandbox, before Accord's modules are imported: read them from ``root``
    (nothing if None)."""
    if root is not None and os.path.isdir(root):
        sys.meta_path.insert(0, _Finder(root))
