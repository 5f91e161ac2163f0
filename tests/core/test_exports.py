"""The export lists of the public packages say exactly what they offer.

For every package below, :func:`export_problems` checks that ``__all__`` is without
repeats, names only objects that exist and are defined inside Accord (no
re-exported third-party names, no submodules), that every public class or function the
package binds is exported, that every exported class and function has a docstring, and
that ``from package import *`` gives exactly ``__all__``. The first test shows it
catches each kind of mistake. The order of every ``__all__`` in the tree is ruff's
(rule RUF022, selected in pyproject.toml: CONSTANTS, then Classes, then the rest).
"""

from __future__ import annotations

import importlib
import inspect
import sys
from types import ModuleType

import pytest

PACKAGES = [
    "accord.core",
    "accord.core.protocols",
    "accord.core.analysis",
    "accord.agents",
    "accord.formats",
    "accord.scenarios",
    "accord.web",
    "accord.web.study",
]


def export_problems(module: ModuleType) -> list[str]:
    """Everything wrong with ``module.__all__`` (empty when it is right)."""
    name = module.__name__
    exported = list(getattr(module, "__all__", []))
    problems = []
    if not exported:
        problems.append(f"{name} has no __all__")
    repeated = sorted({n for n in exported if exported.count(n) > 1})
    if repeated:
        problems.append(f"{name}.__all__ repeats {repeated}")
    for item in exported:
        if not hasattr(module, item):
            problems.append(f"{name}.__all__ names {item!r}, which does not exist")
            continue
        obj = getattr(module, item)
        if isinstance(obj, ModuleType):
            problems.append(f"{name}.__all__ names the module {item!r}")
            continue
        if inspect.isclass(obj) or inspect.isfunction(obj):
            if not (obj.__module__ or "").startswith("accord."):
                problems.append(f"{name} re-exports {item!r} from {obj.__module__}")
            if not (obj.__doc__ or "").strip():
                problems.append(f"{name}.{item} has no docstring")
    public = {
        n
        for n, v in vars(module).items()
        if not n.startswith("_")
        and (inspect.isclass(v) or inspect.isfunction(v))
        and (v.__module__ or "").startswith(name + ".")
    }
    missing = sorted(public - set(exported))
    if missing:
        problems.append(f"{name} binds public {missing} without exporting them")
    if set(exported) <= set(dir(module)):
        star: dict[str, object] = {}
        exec(f"from {name} import *", star)  # noqa: S102 - the star import under test
        got = sorted(k for k in star if k != "__builtins__")
        if got != sorted(set(exported)):
            problems.append(f"from {name} import * gives {got}, not __all__")
    return problems


def test_the_check_catches_each_kind_of_mistake(monkeypatch: pytest.MonkeyPatch) -> None:
    import accord.core.errors as errors

    fake = ModuleType("accord.fake")
    fake.AccordError = errors.AccordError  # type: ignore[attr-defined]
    fake.ConfigError = errors.ConfigError  # type: ignore[attr-defined]
    fake.ModuleType = ModuleType  # type: ignore[attr-defined]
    fake.errors = errors  # type: ignore[attr-defined]

    def helper() -> None:
        pass

    helper.__module__ = "accord.fake.helpers"
    fake.helper = helper  # type: ignore[attr-defined]
    fake.__all__ = ["ConfigError", "AccordError", "Gone", "ModuleType", "errors", "errors"]  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "accord.fake", fake)
    problems = export_problems(fake)
    assert problems == [
        "accord.fake.__all__ repeats ['errors']",
        "accord.fake.__all__ names 'Gone', which does not exist",
        "accord.fake re-exports 'ModuleType' from builtins",
        "accord.fake.__all__ names the module 'errors'",
        "accord.fake.__all__ names the module 'errors'",
        "accord.fake binds public ['helper'] without exporting them",
    ]


@pytest.mark.parametrize("package", PACKAGES)
def test_export_list_is_exact(package: str) -> None:
    assert export_problems(importlib.import_module(package)) == []


def test_the_core_exports_the_protocol_contract_and_the_error_tree() -> None:
    import accord.core as core

    for name in ("Mechanism", "ProtocolInfo", "Session", "Ultimatum", "make_session"):
        assert name in core.__all__
    errors = [getattr(core, n) for n in core.__all__ if n.endswith("Error")]
    assert errors and all(issubclass(e, core.AccordError) for e in errors)
