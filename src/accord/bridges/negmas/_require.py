"""The one place that imports NegMAS: a clear error naming the extra when it is missing."""

from __future__ import annotations

from types import ModuleType

from accord.core.errors import ConfigError

EXTRA_HINT = "install the optional extra: pip install '.[negmas]' (in the Accord clone)"


class MissingExtra(ConfigError):
    """An optional dependency of Accord is not installed."""


def require_negmas() -> ModuleType:
    """The ``negmas`` module, or :class:`MissingExtra` naming the extra to install."""
    try:
        import negmas
    except ImportError as exc:
        raise MissingExtra(
            f"the NegMAS bridge needs the negmas package, which is not installed ({exc}); "
            f"{EXTRA_HINT}"
        ) from None
    module: ModuleType = negmas
    return module
