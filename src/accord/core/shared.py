"""A bounded cache of things built from one object and shared while it is in use.

:func:`~accord.core.inverse.inverse_of` and :func:`~accord.core.finder.finder_for` build
one inverse per utility object and share it between every session on that profile. A
weak-keyed dictionary cannot bound that: each inverse refers to its utility, so no key
is ever collected and a long run (a tournament over many scenarios, a server) grows
without bound. :class:`SharedCache` keeps the ``maxsize`` most recently used entries,
keyed by identity (utilities are immutable and compare by identity), and drops the
least recently used one beyond that.

    >>> cache: SharedCache[object, int] = SharedCache(maxsize=2)
    >>> a, b, c = object(), object(), object()
    >>> cache.get_or_build(a, lambda k: 1), cache.get_or_build(b, lambda k: 2)
    (1, 2)
    >>> cache.get_or_build(a, lambda k: 99)   # a hit: not rebuilt, now most recent
    1
    >>> cache.get_or_build(c, lambda k: 3)    # b, the least recently used, goes
    3
    >>> len(cache), b in cache, a in cache
    (2, False, True)
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Generic, TypeVar

from accord.core.errors import ConfigError

__all__ = ["SharedCache"]

K = TypeVar("K")
V = TypeVar("V")


class SharedCache(Generic[K, V]):
    """At most ``maxsize`` values, keyed by the identity of their key object, least
    recently used dropped first. Thread-safe; a key stays alive while it is cached."""

    def __init__(self, maxsize: int) -> None:
        if maxsize < 1:
            raise ConfigError(f"maxsize must be >= 1, got {maxsize}")
        self.maxsize = maxsize
        self._items: OrderedDict[int, tuple[K, V]] = OrderedDict()
        self._lock = threading.Lock()

    def get_or_build(self, key: K, build: Callable[[K], V]) -> V:
        """The value cached for ``key``, else ``build(key)``, cached."""
        ident = id(key)
        items = self._items
        with self._lock:
            hit = items.get(ident)
            if hit is not None:
                items.move_to_end(ident)
                return hit[1]
        value = build(key)
        with self._lock:
            if ident in items:  # another thread built it meanwhile: ours replaces it
                items.move_to_end(ident)
            items[ident] = (key, value)  # the key held: its id is never reused here
            while len(items) > self.maxsize:
                items.popitem(last=False)
        return value

    def __contains__(self, key: object) -> bool:
        hit = self._items.get(id(key))
        return hit is not None and hit[0] is key

    def __len__(self) -> int:
        return len(self._items)

    def clear(self) -> None:
        """Forget every entry."""
        with self._lock:
            self._items.clear()
