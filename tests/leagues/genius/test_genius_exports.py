"""The league's export lists are exact and documented (their order is ruff's RUF022)."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import accord.leagues.genius as genius

MODULES = [genius] + [
    importlib.import_module(f"accord.leagues.genius.{m.name}")
    for m in pkgutil.iter_modules(genius.__path__)
    if m.name != "cli"
]


def test_every_module_exports_a_documented_list_without_repeats() -> None:
    for module in MODULES:
        exported = list(module.__all__)
        assert len(exported) == len(set(exported)), module.__name__
        for name in exported:
            obj = getattr(module, name)
            if inspect.isclass(obj) or inspect.isfunction(obj):
                assert obj.__module__.startswith("accord."), (module.__name__, name)
                assert (obj.__doc__ or "").strip(), f"{module.__name__}.{name} has no docstring"


def test_the_package_exports_every_public_name_it_binds() -> None:
    public = {
        n
        for n, v in vars(genius).items()
        if not n.startswith("_") and (inspect.isclass(v) or inspect.isfunction(v))
    }
    assert public <= set(genius.__all__)
    star: dict[str, object] = {}
    exec("from accord.leagues.genius import *", star)  # noqa: S102 - the star import under test
    assert sorted(k for k in star if k != "__builtins__") == sorted(genius.__all__)
