"""Resolving ``package.module:Name`` import paths given by users.

Agents, protocols and league agents can be named by import path in configuration files
and on the command line. :func:`import_object` is the one place that turns such a path
into an object. Like ``python -m``, it lets the path name a module in the folder the
program runs in: when it resolves a path it puts the current working directory on
``sys.path`` (once, and only then; importing Accord changes nothing).

    >>> import_object("accord.core.time:Deadline", "class").__name__
    'Deadline'
    >>> import_object("accord.core.time.Deadline", "class").__name__
    'Deadline'
    >>> import_object("accord.core.time:Nope", "agent")
    Traceback (most recent call last):
    ...
    accord.core.errors.ConfigError: agent 'accord.core.time:Nope': module 'accord.core.time' has no attribute 'Nope'
"""

from __future__ import annotations

import importlib
import os
import sys
from typing import Any

from accord.core.errors import ConfigError

#: Packages an optional extra of Accord provides: the hint given when one is missing.
EXTRAS: dict[str, str] = {
    "negmas": "negmas",
    "negmas_genius_agents": "negmas",
    "negmas_negolog": "negmas",
}


def install_hint(module: str) -> str:
    """``"; install the optional extra: ..."`` for a module an extra of Accord provides
    (``negmas_negolog`` -> the ``negmas`` extra), else ``""``.

    >>> install_hint("negmas_negolog.agents")
    "; install the optional extra: pip install '.[negmas]' (in the Accord clone)"
    >>> install_hint("mine")
    ''
    """
    extra = EXTRAS.get(module.strip().partition(":")[0].partition(".")[0])
    return (
        f"; install the optional extra: pip install '.[{extra}]' (in the Accord clone)"
        if extra
        else ""
    )


def is_import_path(name: str) -> bool:
    """True if ``name`` looks like an import path rather than a short registered name.

    >>> is_import_path("boulware"), is_import_path("my_agent:Mine")
    (False, True)
    """
    return ":" in name or "." in name


def import_object(path: str, what: str = "object") -> Any:
    """The object ``path`` (``package.module:Name`` or ``package.module.Name``) names.

    ``what`` says what the path should name (``"agent"``, ``"protocol"``) in the error.
    Raises :class:`ConfigError` naming the path and what went wrong.
    """
    path = path.strip()
    module_name, sep, attr = path.partition(":")
    if not sep:
        module_name, _, attr = path.rpartition(".")
    if not module_name or not attr:
        raise ConfigError(f"{what} import path must look like 'package.module:Name', got {path!r}")
    _allow_cwd()
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise ConfigError(
            f"cannot import module {module_name!r} for {what} {path!r}: {exc}"
        ) from None
    obj: Any = module
    for part in attr.split("."):
        if not hasattr(obj, part):
            raise ConfigError(f"{what} {path!r}: module {module_name!r} has no attribute {attr!r}")
        obj = getattr(obj, part)
    return obj


def _allow_cwd() -> None:
    """Let import paths name modules of the working directory (as ``python -m`` does)."""
    cwd = os.getcwd()
    if cwd not in sys.path:
        sys.path.insert(0, cwd)
