"""Generation 2's deal confirmation: before an agent's Accept goes out as a deal, the
orchestrator asks each human UI to ``/confirmAccept`` it.

The Accept is *held*: its money is reserved at once (R1), but nobody hears of it until
the UIs answer. If every UI acknowledges it (or does not answer: a party without the
route, such as the manager, must not undo deals), it is released as a permitted message.
If a UI declines, the Accept is blocked after all: rule "confirm", the money comes back,
the seller gets ``/receiveRejection`` with the reason and the log says not permitted.

The question goes on each UI's *confirmation channel*, an :class:`accord.web.delivery.Outbox` of its
own with a long timeout: a person may take a while to click Confirm, and meanwhile every
other message still reaches the UI (and everybody else) at once.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from accord.web.delivery import Outbox

__all__ = ["DECLINED", "acknowledged", "confirm"]

DECLINED = "Deal declined by the buyer"
"""Start of the rationale of an Accept the buyer declined."""


def acknowledged(response: Any) -> bool | None:
    """True for an answer whose ``status`` starts with "ack", False for any other
    answer, None for no answer (timeout, refused connection, HTTP error).

    >>> acknowledged({"status": "acknowledged"}), acknowledged({"status": "declined"})
    (True, False)
    >>> acknowledged(None) is None
    True
    """
    if response is None:
        return None
    status = response.get("status", "") if isinstance(response, dict) else ""
    return str(status).lower().startswith("ack")


async def confirm(channels: Sequence[Outbox], body: dict[str, Any]) -> str | None:
    """Ask every UI (on its confirmation channel) to confirm the Accept ``body``.
    Returns None when the deal stands, else the reason it was declined."""
    answers = await asyncio.gather(*(ch.send("/confirmAccept", body) for ch in channels))
    for delivery in answers:
        response = delivery.response if delivery.ok else None
        if acknowledged(response) is False:
            why = response.get("rationale") if isinstance(response, dict) else None
            return f"{DECLINED}: {why or 'the answer was ' + repr(response)}"
    return None
