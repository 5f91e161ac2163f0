"""What an agent is, for resuming: the source of its code, its parameters, Accord's version.

A results file stores every agent's fingerprint. Resuming with an agent whose code (the
module of its class, or of any class it inherits from), parameters or Accord version
changed is refused with a message naming what changed, because the stored sessions
would no longer be results of that agent; ``--fresh`` (``fresh=True``) starts over.

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
import sys
from collections.abc import Mapping, Sequence
from typing import Any

import accord
from accord.tournament.agents import agent_factory
from accord.tournament.config import AgentSpec


def agent_fingerprint(spec: AgentSpec) -> dict[str, Any]:
    """``type``, ``params`` (JSON), ``accord`` (version) and ``sources``: a hash of the
    source of every module defining the agent's class or one of its base classes."""
    factory = agent_factory(spec.type)
    owners: list[Any] = list(inspect.getmro(factory)) if isinstance(factory, type) else [factory]
    sources: dict[str, str] = {}
    for owner in owners:
        name = getattr(owner, "__module__", None)
        if not name or name == "builtins" or name in sources:
            continue
        sources[name] = _source_hash(sys.modules.get(name), owner)
    return {
        "type": spec.type,
        "params": json.dumps(dict(spec.params), sort_keys=True, default=str),
        "accord": accord.__version__,
        "sources": sources,
    }


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
