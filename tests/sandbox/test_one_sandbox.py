"""There is one sandbox: every entrant's code runs through :mod:`accord.sandbox`.

Any module that starts processes (``multiprocessing``, ``subprocess``, ``os.fork``)
must be in :data:`ALLOWED` with the reason it is not agent isolation; a second
isolation implementation (a ``Pipe`` and a ``Process`` around an agent) fails here.
The sandbox itself imports only :mod:`accord.core` (and the standard library).
"""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src"
PACKAGE = SRC / "accord"

ALLOWED = {
    "accord/sandbox/process.py": "the sandbox itself: starts bubblewrap or the child",
    "accord/sandbox/bwrap.py": "the sandbox itself: probes whether bwrap makes a user namespace",
    "accord/sandbox/zygote.py": "the sandbox itself: starts a zygote in bubblewrap",
    "accord/sandbox/forkserver.py": "the sandbox itself: the zygote forks confined sandboxes",
    "accord/tournament/workers.py": "the tournament's worker pool (runs sessions, not agents)",
    "accord/tournament/testing.py": "a test helper that writes to SQLite from another process",
    "accord/web/testing.py": "a test helper serving a study app in a child process",
    "accord/leagues/humaine/listening.py": "runs the speech recogniser, not an agent",
    "accord/leagues/humaine/speech/synth.py": "runs espeak-ng, not an agent",
}
_SPAWNERS = {"multiprocessing", "subprocess", "pty", "concurrent.futures.process"}
_CALLS = {"fork", "forkpty", "spawnv", "spawnl", "spawnve", "posix_spawn", "execv", "execve"}


def _starts_processes(tree: ast.AST) -> list[str]:
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [a.name for a in node.names if a.name.split(".")[0] in _SPAWNERS]
        elif isinstance(node, ast.ImportFrom) and node.module:
            if node.module.split(".")[0] in _SPAWNERS or node.module in _SPAWNERS:
                found.append(node.module)
        elif (
            isinstance(node, ast.Attribute)
            and node.attr in _CALLS
            and isinstance(node.value, ast.Name)
            and node.value.id == "os"
        ):
            found.append(f"os.{node.attr}")
    return found


def test_only_the_sandbox_starts_processes_for_agents() -> None:
    offenders = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(SRC).as_posix()
        found = _starts_processes(ast.parse(path.read_text(encoding="utf-8")))
        if found and rel not in ALLOWED:
            offenders[rel] = sorted(set(found))
    assert offenders == {}, (
        "modules starting processes outside accord.sandbox (run agents through "
        f"accord.sandbox, or add a reason to ALLOWED): {offenders}"
    )


def test_every_allowed_module_still_starts_processes() -> None:
    stale = [
        rel
        for rel in ALLOWED
        if not (SRC / rel).exists()
        or not _starts_processes(ast.parse((SRC / rel).read_text(encoding="utf-8")))
    ]
    assert stale == [], f"no longer start processes; remove from ALLOWED: {stale}"


def test_the_sandbox_imports_only_the_core() -> None:
    bad = []
    for path in sorted((PACKAGE / "sandbox").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                names = [node.module]
            for name in names:
                if (
                    name.startswith("accord")
                    and not name.startswith(("accord.core", "accord.sandbox"))
                    and name not in ("accord", "accord._bytecode")  # stdlib only, layer 0
                ):
                    bad.append(f"{path.name}: {name}")
    assert bad == []


def test_the_isolation_modules_are_users_of_the_sandbox() -> None:
    for rel in (
        "accord/tournament/isolation.py",
        "accord/leagues/scml/isolation.py",
        "accord/leagues/han/isolation.py",
    ):
        text = (SRC / rel).read_text(encoding="utf-8")
        assert "from accord.sandbox import" in text and "multiprocessing" not in text, rel
        assert "pickle.loads" not in text and ".recv()" not in text, rel


# The one module that starts an entrant's sandbox: the agent driver's seats
# (``start_entrant``). The tournament, SCML, HAN, Diplomacy, GENIUS and Colored Trails
# entrants all start there, each league giving only its Interface (its host and the
# checks of its answers). A league that starts sandboxes of its own fails here.
STARTERS = {"accord/drivers/seats.py"}


# Who starts entrants through the seats, and with which league's Interface (never a
# bare host string: every entrant's answers have a declared check).
INTERFACES = {
    "accord/tournament/isolation.py": "OFFERS",
    "accord/leagues/scml/isolation.py": "INTERFACE",
    "accord/leagues/han/isolation.py": "INTERFACE",
    "accord/leagues/diplomacy/sandboxed.py": "INTERFACE",
    "accord/leagues/genius/sandboxed.py": "INTERFACE",
    "accord/leagues/trails/sandboxed.py": "INTERFACE",
}


def test_entrants_are_started_in_the_listed_modules_only() -> None:
    import source_scan

    found = set()
    users = {}
    for path in source_scan.files():
        rel = path.relative_to(SRC).as_posix()
        if rel.startswith("accord/sandbox/"):
            continue
        for node in source_scan.nodes(path):
            if isinstance(node, ast.Call):
                f = node.func
                name = f.id if isinstance(f, ast.Name) else getattr(f, "attr", "")
                if name == "start_sandbox":
                    found.add(rel)
                elif name in ("start_entrant", "launch_entrant") and rel not in STARTERS:
                    arg = node.args[0] if node.args else node
                    users[rel] = arg.id if isinstance(arg, ast.Name) else ast.dump(arg)
    assert found == STARTERS
    assert users == INTERFACES
