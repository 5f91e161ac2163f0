"""What an agent is, for resuming: the source of its code, its parameters, Accord's version.

A results file stores every agent's fingerprint. Resuming with an agent whose code,
parameters or Accord version changed is refused with a message naming what changed,
because the stored sessions would no longer be results of that agent; ``--fresh``
(``fresh=True``) starts over.

The code of an agent outside Accord and the installed packages (a submitted agent) is
its whole package: every file under its top-level package's folder (helper modules and
data files alike), or, for an agent that is a single module, every module beside it.
It is read from disk, never imported (a submitted agent's code runs only in its
sandbox). A built-in or installed agent's code is the module of its class and of every
class it inherits from.

    >>> from accord.tournament.config import AgentSpec
    >>> fp = agent_fingerprint(AgentSpec("B", "accord.agents.timebased:Boulware"))
    >>> sorted(fp), "accord.agents.timebased" in fp["sources"]
    (['accord', 'params', 'sources', 'type'], True)
    >>> changes("B", fp, {**fp, "params": '{"exponent": 0.1}'})
    ['agent B: parameters changed from {} to {"exponent": 0.1}']
"""

from __future__ import annotations

import hashlib
import inspect
import json
import os
import sys
from collections.abc import Mapping, Sequence
from typing import Any

import accord
from accord.sandbox import agent_code
from accord.tournament.agents import agent_factory
from accord.tournament.config import AgentSpec

_SKIP_DIRS = {"__pycache__", ".git", ".mypy_cache", ".pytest_cache", ".ruff_cache"}


def agent_fingerprint(spec: AgentSpec) -> dict[str, Any]:
    """``type``, ``params`` (JSON), ``accord`` (version) and ``sources``: a hash of every
    file of the agent's own package, or of every module defining its class or a base."""
    code = agent_code(spec.type)
    sources = package_sources(code.mounts) if code.mounts else _class_sources(spec.type)
    return {
        "type": spec.type,
        "params": json.dumps(dict(spec.params), sort_keys=True, default=str),
        "accord": accord.__version__,
        "sources": sources,
    }


def package_sources(roots: Sequence[str]) -> dict[str, str]:
    """A hash of every file under ``roots`` (files or folders), by module name for
    modules and by path relative to the folder holding them for data files (caches and
    version-control folders left out)."""
    out: dict[str, str] = {}
    for root in roots:
        base = os.path.dirname(root)
        if os.path.isfile(root):
            out[_key(root, base)] = _file_hash(root)
            continue
        for here, dirs, files in os.walk(root):
            dirs[:] = sorted(d for d in dirs if d not in _SKIP_DIRS)
            for name in sorted(files):
                if name.endswith((".pyc", ".pyo")):
                    continue
                path = os.path.join(here, name)
                out[_key(path, base)] = _file_hash(path)
    return out


def _key(path: str, base: str) -> str:
    rel = os.path.relpath(path, base)
    if not rel.endswith(".py"):
        return rel
    parts = rel[:-3].split(os.sep)
    if parts[-1] == "__init__" and len(parts) > 1:
        parts.pop()
    return ".".join(parts)


def _class_sources(target: str) -> dict[str, str]:
    factory = agent_factory(target)
    owners: list[Any] = list(inspect.getmro(factory)) if isinstance(factory, type) else [factory]
    sources: dict[str, str] = {}
    for owner in owners:
        name = getattr(owner, "__module__", None)
        if not name or name == "builtins" or name in sources:
            continue
        sources[name] = _source_hash(sys.modules.get(name), owner)
    return sources


def fingerprints(specs: Sequence[AgentSpec]) -> dict[str, dict[str, Any]]:
    """Every agent's fingerprint by name."""
    return {s.name: agent_fingerprint(s) for s in specs}


def changes(name: str, old: Mapping[str, Any], new: Mapping[str, Any]) -> list[str]:
    """What differs between two fingerprints of agent ``name``, in words."""
    out = []
    if old.get("type") != new.get("type"):
        out.append(f"agent {name}: type changed from {old.get('type')} to {new.get('type')}")
    if old.get("params") != new.get("params"):
        out.append(
            f"agent {name}: parameters changed from {old.get('params')} to {new.get('params')}"
        )
    if old.get("accord") != new.get("accord"):
        out.append(
            f"agent {name}: Accord version changed from {old.get('accord')} to {new.get('accord')}"
        )
    before, after = old.get("sources", {}), new.get("sources", {})
    for module in sorted(set(before) | set(after)):
        if before.get(module) != after.get(module):
            out.append(f"agent {name}: the source of {module} changed")
    return out


def _file_hash(path: str) -> str:
    digest = hashlib.sha256()
    try:
        with open(path, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                digest.update(block)
    except OSError:
        return "unavailable"
    return digest.hexdigest()[:16]


def _source_hash(module: Any, owner: Any) -> str:
    text: str | bytes | None = None
    path = getattr(module, "__file__", None)
    if path:
        try:
            with open(path, "rb") as f:
                text = f.read()
        except OSError:
            text = None
    if text is None:
        try:
            text = inspect.getsource(owner)
        except (OSError, TypeError):
            return "unavailable"
    data = text if isinstance(text, bytes) else text.encode()
    return hashlib.sha256(data).hexdigest()[:16]
