"""The SCML league's modules import each other without a cycle, and the world sits below
the agent interface (every import counts: module-level, function-local, TYPE_CHECKING)."""

from __future__ import annotations

import ast
from pathlib import Path

import accord.leagues.scml as scml
import source_scan

PKG = "accord.leagues.scml"
ROOT = Path(scml.__file__).parent


def _module_name(path: Path) -> str:
    rel = path.relative_to(ROOT).with_suffix("")
    parts = [p for p in rel.parts if p != "__init__"]
    return ".".join([PKG, *parts])


def _graph() -> dict[str, set[str]]:
    modules = {_module_name(p): p for p in source_scan.files(ROOT)}
    graph: dict[str, set[str]] = {m: set() for m in modules}
    for name, path in modules.items():
        for node in source_scan.nodes(path):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                targets = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
            for t in targets:
                if t in modules and t != name:
                    graph[name].add(t)
    return graph


def _reach(graph: dict[str, set[str]], start: str) -> set[str]:
    seen: set[str] = set()
    todo = [start]
    while todo:
        for nxt in graph[todo.pop()]:
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return seen


def test_no_import_cycle_in_the_league_including_local_imports():
    graph = _graph()
    assert len(graph) > 15
    cycles = sorted(m for m in graph if m in _reach(graph, m))
    assert cycles == []


def test_the_world_sits_below_the_agent_interface():
    graph = _graph()
    below = _reach(graph, f"{PKG}.world")
    for upper in ("agent", "awi", "agents", "agents.trader", "agents.basic", "isolation"):
        assert f"{PKG}.{upper}" not in below
    for lower in ("signing", "execution", "state"):
        assert f"{PKG}.world" not in _reach(graph, f"{PKG}.{lower}")
