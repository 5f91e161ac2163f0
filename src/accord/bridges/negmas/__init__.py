"""Run NegMAS negotiators, and the agent packages built on NegMAS, in Accord.

Needs the optional extra: ``pip install '.[negmas]'`` (NegMAS is AGPL; Accord's
core is MIT and never imports it). Without it, importing this package works and using
it raises :class:`MissingExtra` naming the extra.

Any concrete NegMAS SAO negotiator class is an agent wherever Accord asks for one:

    >>> from accord.agents import get_agent
    >>> neg = get_agent("negmas.sao:AspirationNegotiator")
    >>> type(neg).__name__, isinstance(neg, NegmasNegotiator)
    ('AspirationNegotiator', True)

See ``docs/negmas-bridge.md`` for the mapping of views, actions, time and discounting.
"""

from accord.bridges.negmas._require import EXTRA_HINT, MissingExtra, require_negmas
from accord.bridges.negmas.adapter import (
    NegmasNegotiator,
    adapt_class,
    is_negmas_negotiator,
    why_not,
)
from accord.bridges.negmas.convert import outcome_space, to_accord, utility

#: The agent packages built on NegMAS that the bridge knows by name.
AGENT_PACKAGES = ("negmas_genius_agents", "negmas_negolog")

__all__ = [
    "AGENT_PACKAGES",
    "EXTRA_HINT",
    "MissingExtra",
    "NegmasNegotiator",
    "adapt",
    "adapt_class",
    "is_negmas_negotiator",
    "outcome_space",
    "require_negmas",
    "to_accord",
    "utility",
    "why_not",
]


def adapt(obj: object) -> object:
    """The registry's hook: a NegMAS negotiator class becomes an Accord class; else as is
    (a NegMAS base class stays as is, and :func:`why_not` says why it cannot play)."""
    return adapt_class(obj) if is_negmas_negotiator(obj) else obj  # type: ignore[arg-type]
