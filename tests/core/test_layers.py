"""Imports point down the layers and never form a cycle, function-local imports included.

Layers, lowest first (``ARCHITECTURE.md``): core (with formats, scenarios and plots)
< agents < sandbox < tournament < web < leagues < cli/commands. A module may import its own layer
and the layers below. Every ``import`` statement counts, wherever it is: module level,
inside a function, under ``try`` or ``if TYPE_CHECKING:`` (a cycle of type-only imports
is still two modules that cannot be understood apart).
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterator
from pathlib import Path

import source_scan

SRC = Path(__file__).resolve().parents[2] / "src"
PACKAGE = SRC / "accord"

LAYERS: dict[str, int] = {
    "accord": 0,
    "accord.core": 0,
    "accord.formats": 0,
    "accord.scenarios": 0,
    "accord.plots": 0,
    "accord.agents": 1,
    "accord.bridges": 1,  # beside the agents: imports core and agents, nothing above
    "accord.sandbox": 2,  # one sandbox for every entrant's code (issue 22): core only
    "accord.drivers": 3,  # replay driver, sandboxed seats (issue 24): core and sandbox
    "accord.tournament": 3,
    "accord.web": 4,
    "accord.leagues": 5,
    "accord.commands": 6,
    "accord.cli": 6,
}

# Import cycles that exist and are being removed (issue 17 part 4: the SCML world).
# Each entry is the exact set of modules of one cycle as this test finds it. A new
# cycle, or a known one that grows or shrinks, fails the test; when one is gone,
# delete its entry.
KNOWN_CYCLES: list[frozenset[str]] = []  # the SCML world's nine-module cycle is gone


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for p in source_scan.files(PACKAGE)}


def layer_of(module: str) -> int:
    """The layer of a module: its longest prefix in :data:`LAYERS`."""
    parts = module.split(".")
    for i in range(len(parts), 0, -1):
        prefix = ".".join(parts[:i])
        if prefix in LAYERS:
            return LAYERS[prefix]
    raise AssertionError(f"{module} is in no layer; add its package to LAYERS")


def imports_of(module: str, path: Path, known: set[str]) -> Iterator[tuple[str, int]]:
    """``(imported accord module, line)`` for every import statement in a file."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in source_scan.nodes(path):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                stem = ".".join(base + ([node.module] if node.module else []))
            else:
                stem = node.module or ""
            # ``from pkg import sub`` depends on the submodule when it is one.
            targets = [
                f"{stem}.{a.name}" if f"{stem}.{a.name}" in known else stem for a in node.names
            ]
        for target in targets:
            while target and target not in known:
                target = target.rpartition(".")[0]  # ``import a.b.c`` of a package path
            if target.startswith("accord") and target != module:
                yield target, node.lineno


@functools.cache
def _graph() -> tuple[dict[str, set[str]], list[str]]:
    """The import graph and the upward imports (built once per run; read only)."""
    modules = _modules()
    known = set(modules)
    graph: dict[str, set[str]] = {m: set() for m in modules}
    upward: list[str] = []
    for module, path in modules.items():
        for target, line in imports_of(module, path, known):
            if layer_of(target) > layer_of(module):
                where = path.relative_to(SRC)
                upward.append(f"{where}:{line} imports {target} (a higher layer)")
            graph[module].add(target)
    return graph, upward


def cycles(graph: dict[str, set[str]]) -> list[frozenset[str]]:
    """The strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[frozenset[str]] = []
    counter = 0

    def visit(v: str) -> None:
        nonlocal counter
        index[v] = low[v] = counter
        counter += 1
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = set()
            while True:
                w = stack.pop()
                on.discard(w)
                comp.add(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(frozenset(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_the_checker_sees_cycles_and_relative_and_local_imports(tmp_path: Path) -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [frozenset("abc")]
    pkg = tmp_path / "accord" / "leagues" / "x"
    pkg.mkdir(parents=True)
    f = pkg / "m.py"
    f.write_text(
        "from . import n\nfrom .n import thing\ndef g():\n    import accord.web.y\n"
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from accord.cli import app\n"
    )
    known = {"accord.leagues.x.m", "accord.leagues.x.n", "accord.web.y", "accord.cli"}
    found = sorted(imports_of("accord.leagues.x.m", f, known))
    assert found == [
        ("accord.cli", 7),
        ("accord.leagues.x.n", 1),
        ("accord.leagues.x.n", 2),
        ("accord.web.y", 4),
    ]
    assert layer_of("accord.leagues.x.m") == 5 and layer_of("accord.core.errors") == 0


def test_no_module_imports_from_a_higher_layer() -> None:
    _, upward = _graph()
    assert upward == [], "imports must point down the layers:\n" + "\n".join(upward)


def test_there_is_no_import_cycle_beyond_the_known_ones() -> None:
    graph, _ = _graph()
    found = cycles(graph)
    new = [sorted(c) for c in found if c not in KNOWN_CYCLES]
    assert new == [], f"import cycles (function-local imports count too): {new}"


def test_every_known_cycle_still_exists() -> None:
    graph, _ = _graph()
    found = cycles(graph)
    gone = [sorted(c) for c in KNOWN_CYCLES if c not in found]
    assert gone == [], f"these cycles are gone or changed; update KNOWN_CYCLES: {gone}"
