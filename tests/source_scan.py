"""One parse of Accord's source for every test that scans it (issue 24.4).

The layer, cycle, error-type, view-privacy and SCML-layer tests each walked every module;
each used to parse all of them again (seven full parses per run). Here each file is read,
parsed and walked once per test session, and the trees are shared (read only).

    >>> path = files()[0]
    >>> tree(path) is tree(path), nodes(path)[0] is tree(path)
    (True, True)
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterator
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"
PACKAGE = SRC / "accord"


@functools.cache
def files(root: Path = PACKAGE) -> tuple[Path, ...]:
    """Every ``.py`` file under ``root`` (default: the ``accord`` package), sorted."""
    return tuple(sorted(root.rglob("*.py")))


@functools.cache
def tree(path: Path) -> ast.Module:
    """The parsed module at ``path`` (parsed once; do not modify it)."""
    return ast.parse(path.read_text(encoding="utf-8"))


@functools.cache
def nodes(path: Path) -> tuple[ast.AST, ...]:
    """Every node of :func:`tree` in ``ast.walk`` order (walked once)."""
    return tuple(ast.walk(tree(path)))


def trees(root: Path = PACKAGE) -> Iterator[tuple[Path, ast.Module]]:
    """``(path, tree)`` for every file under ``root``."""
    for path in files(root):
        yield path, tree(path)
