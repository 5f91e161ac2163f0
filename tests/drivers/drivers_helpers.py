"""Every protocol of the registry's table, with its rules where it has them."""

from __future__ import annotations

from typing import Any

from accord.core.imports import import_object
from accord.core.protocols.registry import TABLE, TableEntry
from accord.core.protocols.rules import Rules


def rules_of(entry: TableEntry) -> Rules[Any, Any, Any]:
    """The rules a table row names (a class is made with no arguments)."""
    assert entry.rules is not None
    obj = import_object(entry.rules, "rules")
    rules = obj() if isinstance(obj, type) else obj
    assert isinstance(rules, Rules), f"{entry.rules} is not a Rules"
    return rules


WITH_RULES = [e for e in TABLE if e.rules is not None]
