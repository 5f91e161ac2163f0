"""A NegMAS negotiator that refuses to play blind: it ends the negotiation at once unless
its interface tells it the deadline (``nmi.n_steps``), else concedes linearly on it."""

from __future__ import annotations

from typing import Any

from negmas.gb.common import ResponseType
from negmas.sao import SAONegotiator


class NeedsDeadline(SAONegotiator):  # type: ignore[misc]
    """Offers its best outcome until the last round; ends the session if ``n_steps`` is
    unknown (so a session it did not end proves it knew the deadline)."""

    def propose(self, state: Any, dest: str | None = None) -> Any:
        if self.nmi.n_steps is None:
            return None  # walk away: it cannot plan without the deadline
        return self.ufun.best()

    def respond(self, state: Any, source: str | None = None) -> ResponseType:
        if self.nmi.n_steps is None:
            return ResponseType.END_NEGOTIATION
        if state.step >= self.nmi.n_steps - 1:
            return ResponseType.ACCEPT_OFFER
        return ResponseType.REJECT_OFFER
