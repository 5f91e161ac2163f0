"""Drivers that run any :class:`~accord.core.protocols.rules.Rules`.

The agent driver itself is :class:`accord.core.protocols.driver.AgentDriver` (in the core,
so every session class is one); this package adds what needs more than the core:
:mod:`.replay` (golden playthroughs and the conformance check :func:`check_rules`),
:mod:`.seats` (a sandboxed entrant as a seat of the agent driver, and the one place every
league's entrants are started, each league describing its agents by an ``Interface``)
and :mod:`.negotiator_host` (the one host of offer-protocol negotiators in the sandbox,
for the tournament and the seats). The web driver is :mod:`accord.web.driver`.
"""

from accord.drivers.replay import (
    ConformanceError,
    ConformanceReport,
    Playthrough,
    check_rules,
    random_playthrough,
    replay,
    transcript,
)

__all__ = [
    "ConformanceError",
    "ConformanceReport",
    "Playthrough",
    "check_rules",
    "random_playthrough",
    "replay",
    "transcript",
]
