"""Where an agent's own code is, so that exactly that is visible in its sandbox.

>>> agent_code("boulware")          # a built-in: Accord's code is visible anyway
AgentCode(paths=(), mounts=())
>>> agent_code("accord.agents.timebased:Boulware")
AgentCode(paths=(), mounts=())
"""

from __future__ import annotations

import importlib.util
import os
import sys
from typing import NamedTuple

from accord.core.errors import ConfigError
from accord.core.imports import is_import_path

__all__ = ["AgentCode", "agent_code"]


class AgentCode(NamedTuple):
    """``paths``: directories for the agent's ``sys.path``; ``mounts``: what of them is
    visible (its top-level package directory, or its module and the modules beside it)."""

    paths: tuple[str, ...]
    mounts: tuple[str, ...]


def agent_code(agent: str) -> AgentCode:
    """The code of ``agent`` (``pkg.module:Class``; a short name is built in), found
    without importing it. A module in the working directory counts, as for imports."""
    if not is_import_path(agent):
        return AgentCode((), ())
    module = agent.partition(":")[0] if ":" in agent else agent.rpartition(".")[0]
    top = module.split(".")[0]
    if not top:
        raise ConfigError(f"agent {agent!r}: expected 'package.module:Class'")
    cwd = os.getcwd()
    if cwd not in sys.path:
        sys.path.insert(0, cwd)  # as accord.core.imports does for import paths
    try:
        spec = importlib.util.find_spec(top)
    except (ImportError, ValueError) as exc:
        raise ConfigError(f"cannot import module {top!r} for agent {agent!r}: {exc}") from None
    if spec is None:
        raise ConfigError(  # (callers above the sandbox add how to install an extra)
            f"cannot import module {top!r} for agent {agent!r}: it is neither on the path "
            f"nor in {cwd}"
        )
    if spec.submodule_search_locations:
        where = os.path.realpath(list(spec.submodule_search_locations)[0])
    elif spec.origin and os.path.exists(spec.origin):
        where = os.path.realpath(spec.origin)
    else:
        return AgentCode((), ())  # a built-in or frozen module
    if _is_runtime(where):
        return AgentCode((), ())
    folder = os.path.dirname(where)
    if os.path.isdir(where):
        return AgentCode((folder,), (where,))
    # a single module: it and the modules beside it (its helpers), never the folder's
    # other files (it may be the organiser's working directory, results and all)
    siblings = sorted(
        os.path.join(folder, n)
        for n in os.listdir(folder)
        if n.endswith(".py") and os.path.isfile(os.path.join(folder, n))
    )
    return AgentCode((folder,), tuple(siblings))


def _is_runtime(path: str) -> bool:
    """True for code the sandbox shows anyway (the runtime, installed packages, Accord)."""
    from accord.sandbox.bwrap import accord_package_dir

    accord_dir = str(accord_package_dir())
    roots = {os.path.realpath(p) for p in (sys.base_prefix, sys.prefix, sys.exec_prefix)}
    roots.add(accord_dir)
    return any(path == r or path.startswith(r + os.sep) for r in roots)
