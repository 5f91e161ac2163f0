"""accord.web sits above the tournament layer and below the leagues: it imports no
league and no CLI, and nothing below it imports it (function-local imports included)."""

from __future__ import annotations

import ast
from pathlib import Path

import accord

SRC = Path(accord.__file__).resolve().parent


def imports(folder: Path) -> dict[str, set[str]]:
    """Module file -> every module it imports, at any depth of the code."""
    out: dict[str, set[str]] = {}
    for path in sorted(folder.rglob("*.py")):
        names: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                names |= {a.name for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names.add(node.module)
        out[str(path.relative_to(SRC))] = names
    return out


def test_the_web_layer_imports_no_league_and_no_cli() -> None:
    found = imports(SRC / "web")
    assert len(found) >= 15
    wrong = {
        f: sorted(n for n in names if n.startswith(("accord.leagues", "accord.cli")))
        for f, names in found.items()
    }
    assert {f: n for f, n in wrong.items() if n} == {}


def test_the_layers_below_do_not_import_the_web_layer() -> None:
    for layer in ("core", "agents", "formats", "tournament"):
        for f, names in imports(SRC / layer).items():
            assert not any(n.startswith("accord.web") for n in names), f
