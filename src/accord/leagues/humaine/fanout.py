"""Deliveries from the orchestrator to the parties of a round.

Each party of each round has its own :class:`Outbox`: messages to it go out in order,
one at a time, each with a timeout. A slow or dead party delays only its own queue,
never the relay of a message to the others, and never the reply to the sender. The
machinery is the web layer's (:mod:`accord.web.delivery`); this module only keeps the
orchestrator's way of naming an outbox (URL first).
"""

from __future__ import annotations

from collections.abc import Callable

from accord.web.clock import Clock
from accord.web.delivery import Delivery
from accord.web.delivery import Outbox as _Outbox

__all__ = ["Delivery", "Outbox"]


class Outbox(_Outbox):
    """Ordered POSTs to the party at ``base_url`` called ``name``, each within ``timeout``."""

    def __init__(
        self,
        base_url: str,
        name: str,
        timeout: float = 5.0,
        on_failure: Callable[[str, str, Delivery], None] | None = None,
        clock: Clock | None = None,
    ) -> None:
        if clock is None:
            super().__init__(name, base_url, timeout=timeout, on_failure=on_failure)
        else:
            super().__init__(name, base_url, timeout=timeout, clock=clock, on_failure=on_failure)
