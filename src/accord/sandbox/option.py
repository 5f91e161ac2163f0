"""The one spelling of the sandbox choice on every command line: ``--sandbox
{os,process,none}``.

Every league command that runs agents takes it with the same meaning: where the agents
named by path (``pkg.module:Class``, submitted code) run. ``os``: each in a bubblewrap
sandbox (the default); ``process``: each in a plain child process, with the same limits
and channel (weaker: it says what it gives up); ``none``: in the organiser's own process
(trusted code only). Built-in agents are Accord's own code; a league may run them
in-process in any mode. Older spellings stay as deprecated aliases that print one line.

    >>> sandbox_option("process")
    'process'
    >>> sandbox_option("off", aliases={"off": "none"}, warn=print)
    warning: --sandbox off is deprecated; use --sandbox none
    'none'
    >>> sandbox_option("bwrap")
    Traceback (most recent call last):
    ...
    accord.core.errors.ConfigError: --sandbox must be one of os, process, none; got 'bwrap'
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping

from accord.core.errors import ConfigError

__all__ = [
    "SANDBOX_CHOICES",
    "SANDBOX_HELP",
    "deprecated",
    "sandbox_callback",
    "sandbox_option",
    "warn_stderr",
]

SANDBOX_CHOICES = ("os", "process", "none")
SANDBOX_HELP = (
    "where agents named pkg.module:Class run: os (default: a bubblewrap sandbox, only "
    "their own code visible, hard limits), process (a plain child process: weaker, it "
    "can read this machine's files) or none (this process: trusted code only)"
)


def warn_stderr(line: str) -> None:
    """Print one line on stderr (the default ``warn`` of the CLIs)."""
    print(line, file=sys.stderr)


def deprecated(old: str, new: str) -> str:
    """The one line a deprecated spelling prints.

    >>> deprecated("--shared-process", "--sandbox none")
    'warning: --shared-process is deprecated; use --sandbox none'
    """
    return f"warning: {old} is deprecated; use {new}"


def sandbox_option(
    value: str,
    *,
    aliases: Mapping[str, str] | None = None,
    warn: Callable[[str], None] = warn_stderr,
) -> str:
    """``value`` checked against :data:`SANDBOX_CHOICES` (one clear error otherwise);
    a deprecated alias (``aliases[old] = new``) maps to its mode after one line."""
    if value in SANDBOX_CHOICES:
        return value
    if aliases and value in aliases:
        new = aliases[value]
        warn(deprecated(f"--sandbox {value}", f"--sandbox {new}"))
        return new
    raise ConfigError(f"--sandbox must be one of {', '.join(SANDBOX_CHOICES)}; got {value!r}")


def sandbox_callback(
    aliases: Mapping[str, str] | None = None,
) -> Callable[[str | None], str | None]:
    """A typer option callback checking ``--sandbox`` (``BadParameter`` names the
    choices) and mapping a deprecated alias after one line on stderr."""
    import typer

    def check(value: str | None) -> str | None:
        if value is None:
            return None
        try:
            return sandbox_option(value, aliases=aliases)
        except ConfigError:
            raise typer.BadParameter(
                f"must be one of {', '.join(SANDBOX_CHOICES)}; got {value!r}"
            ) from None

    return check
